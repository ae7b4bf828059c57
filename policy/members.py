"""IAM grants as the three resource shapes say them, and which members are public.

Every IAM resource family of pulumi-gcp (projects, service accounts, buckets,
repositories, ...) comes as a Member (`role`, `member`), a Binding (`role`,
`members`) and a Policy (`policyData`, the JSON of a whole IAM policy). Each
grant is returned with the field that says it, for the violation message.
"""

from __future__ import annotations

import json
from typing import Any, NamedTuple

from support import items, mapping

# Anyone on the internet, and anyone with a Google account.
PUBLIC_MEMBERS = ("allUsers", "allAuthenticatedUsers")


class Grant(NamedTuple):
    role: Any
    role_field: str  # e.g. "role", "policyData.bindings[0].role"
    member: Any
    member_field: str  # e.g. "member", "members[1]", "policyData.bindings[0].members[1]"


def is_public(member: Any) -> bool:
    return isinstance(member, str) and member.strip().casefold() in {m.casefold() for m in PUBLIC_MEMBERS}


def grants(resource_type: str, props: Any) -> list[Grant]:
    """The (role, member) pairs a Member, Binding or Policy resource grants."""
    props = mapping(props)
    kind = resource_type.rsplit(":", 1)[-1].lower()
    if kind.endswith("iammember"):
        return [Grant(props.get("role"), "role", props.get("member"), "member")]
    if kind.endswith("iambinding"):
        role = props.get("role")
        return [Grant(role, "role", member, f"members[{i}]") for i, member in enumerate(items(props.get("members")))]
    if kind.endswith("iampolicy"):
        return _policy_grants(props.get("policyData"))
    return []


def roles(resource_type: str, props: Any) -> list[tuple[Any, str]]:
    """The roles a Member, Binding or Policy resource grants, each with its field (a binding with no members too)."""
    props = mapping(props)
    kind = resource_type.rsplit(":", 1)[-1].lower()
    if kind.endswith("iammember") or kind.endswith("iambinding"):
        return [(props.get("role"), "role")]
    if kind.endswith("iampolicy"):
        return [(binding.get("role"), f"policyData.bindings[{i}].role") for i, binding in _policy_bindings(props.get("policyData"))]
    return []


def _policy_bindings(policy_data: Any) -> list[tuple[int, Any]]:
    if not isinstance(policy_data, str):
        return []
    try:
        document = json.loads(policy_data)
    except ValueError:
        return []  # not an IAM policy; Google refuses it
    return [(i, mapping(b)) for i, b in enumerate(items(mapping(document).get("bindings")))]


def _policy_grants(policy_data: Any) -> list[Grant]:
    return [
        Grant(binding.get("role"), f"policyData.bindings[{i}].role", member, f"policyData.bindings[{i}].members[{j}]")
        for i, binding in _policy_bindings(policy_data)
        for j, member in enumerate(items(binding.get("members")))
    ]
