"""How a job's scalar values arrive and what they mean: whole numbers in any of
the forms the wire brings them, and protobuf durations. Pure, no imports of
the project, so the rules and the canonical form share one reading."""

from __future__ import annotations

import re
from decimal import Decimal
from typing import Any, TypeGuard

# A google.protobuf.Duration in its JSON form: seconds with up to 9 fractional digits.
DURATION = re.compile(r"^(\d+)(\.\d{1,9})?s$")


def as_int(value: Any) -> int | None:
    """A whole number however it arrives: 1, "1" (REST writes int64 as a string)
    or 1.0 (Pulumi's wire format carries every number as a double)."""
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value
    if isinstance(value, float) and value.is_integer():
        return int(value)
    if isinstance(value, str) and re.fullmatch(r"-?\d+", value):
        return int(value)
    return None


def duration_seconds(value: str) -> float:
    match = DURATION.match(value)
    if not match:
        raise ValueError(f"not a duration like '86400s': {value!r}")
    return float(Decimal(match.group(1) + (match.group(2) or "")))


def is_duration(value: Any) -> TypeGuard[str]:
    return isinstance(value, str) and bool(DURATION.match(value))
