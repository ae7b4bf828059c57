"""A component's type renamed without replacing what it holds: Pulumi's aliases.

A resource's URN is its type, qualified by its ancestors' types, and its name:
rename a component's type (`spot-training:<module>:<Type>`) and the URN of
every resource under it changes too. The engine matches state by URN, so
without an alias it plans a delete and a create for each: a new, empty
staging bucket, a new service account without its grants, every job submitted
again. A component keeps the types it was registered as before in
FORMER_TYPES; aliased by them, it and (by inheritance) its children keep
their URNs. docs/team.md, "Renaming a component", has the convention.
"""

from __future__ import annotations

from collections.abc import Sequence

import pulumi


def with_former_types(opts: pulumi.ResourceOptions | None, former_types: Sequence[str]) -> pulumi.ResourceOptions | None:
    """`opts` with an alias for each former type (same name, same parent); `opts` itself when there is none."""
    if not former_types:
        return opts
    return pulumi.ResourceOptions.merge(opts, pulumi.ResourceOptions(aliases=[pulumi.Alias(type_=t) for t in former_types]))
