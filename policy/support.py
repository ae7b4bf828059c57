"""What every policy of the pack shares: reading the engine's view of a resource.

A resource's props arrive wrapped by pulumi_policy: mappings and lists are
read-only proxies (not dict/list) that raise UnknownValueError when a value
still unknown during preview is read. These helpers accept either form and let
that error through, so pulumi_policy reports "can't run policy during preview"
rather than a violation the value may not have.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

from pulumi_policy import PolicyComplianceFramework, ReportViolation, ResourceValidationArgs

EMPTY: Mapping[str, Any] = {}

Validation = Callable[[ResourceValidationArgs, ReportViolation], None]


def mapping(value: Any) -> Mapping[str, Any]:
    """`value` if it is a map, else an empty one (a wrong shape is the provider's to reject)."""
    return value if isinstance(value, Mapping) else EMPTY


def items(value: Any) -> Sequence[Any]:
    """`value` if it is a list, else an empty one."""
    return value if isinstance(value, Sequence) and not isinstance(value, (str, bytes)) else ()


def of_types(types: tuple[str, ...], validate: Validation) -> Validation:
    """`validate`, run only on resources of one of `types`."""

    def validation(args: ResourceValidationArgs, report_violation: ReportViolation) -> None:
        if args.resource_type in types:
            validate(args, report_violation)

    return validation


def cis(reference: str) -> PolicyComplianceFramework:
    return PolicyComplianceFramework(name="CIS Google Cloud Platform Foundation Benchmark", reference=reference)
