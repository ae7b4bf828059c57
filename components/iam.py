"""One way every component says who may do what on the resource it owns.

`iam` maps a role to named members, Cloud Foundation Fabric style:
    {"roles/storage.objectViewer": {"trainer": sa.member, "vision": "group:vision-ml@acme.example"}}
Each (role, key) becomes one additive member grant, named from the role and
the key, so adding or removing one member never touches the others' grants and
a member that is itself an Output (a service account made in the same stack)
still gets a stable resource name.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from typing import TypeVar

import pulumi

Iam = Mapping[str, Mapping[str, pulumi.Input[str]]]
# The grant resource `make` returns, kept as its own type: callers read its `id`
# (a CustomResource's), which pulumi.Resource does not have.
Grant = TypeVar("Grant", bound=pulumi.Resource)

# Members that would make a resource public; never granted by this project.
PUBLIC_MEMBERS = frozenset({"allUsers", "allAuthenticatedUsers"})


def role_slug(role: str) -> str:
    """roles/storage.objectViewer -> storage-objectviewer, for resource names."""
    return re.sub(r"[^a-z0-9]+", "-", role.removeprefix("roles/").lower()).strip("-")


def grant_members(
    name: str, iam: Iam, make: Callable[[str, str, pulumi.Input[str]], Grant]
) -> list[Grant]:
    """Calls `make(resource_name, role, member)` once per member of `iam`."""
    grants: list[Grant] = []
    for role, members in sorted(iam.items()):
        for key, member in sorted(members.items()):
            if isinstance(member, str) and member in PUBLIC_MEMBERS:
                raise ValueError(f"{name}: {role} for {key}: {member} would make the resource public")
            grants.append(make(f"{name}-{role_slug(role)}-{key}", role, member))
    return grants
