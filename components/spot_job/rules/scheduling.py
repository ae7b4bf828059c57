"""jobSpec.scheduling: the strategy's current names, a timeout above zero,
and maxWaitDuration only where it means something (FLEX_START).
https://cloud.google.com/vertex-ai/docs/reference/rest/v1/CustomJobSpec#scheduling
"""

from __future__ import annotations

from ..values import duration_seconds, is_duration
from .known import Fail, Known

# Scheduling.Strategy: ON_DEMAND and LOW_COST are deprecated names.
# https://cloud.google.com/vertex-ai/docs/reference/rest/v1/CustomJobSpec#strategy
DEPRECATED_STRATEGIES = {
    "ON_DEMAND": "is deprecated by Vertex AI; use STANDARD",
    "LOW_COST": "is deprecated by Vertex AI; use SPOT",
}


def scheduling(k: Known, fail: Fail) -> None:
    values = k.get(k.spec(), "scheduling", dict) or {}
    strategy = k.text(values, "strategy")
    if strategy in DEPRECATED_STRATEGIES:
        fail("jobSpec.scheduling.strategy", f"{strategy} {DEPRECATED_STRATEGIES[strategy]}")
    timeout = k.text(values, "timeout")
    if is_duration(timeout) and duration_seconds(timeout) <= 0:
        fail("jobSpec.scheduling.timeout", "must be longer than 0s")
    if k.has(values, "maxWaitDuration") and k.strategy() not in (None, "FLEX_START"):
        fail(
            "jobSpec.scheduling.maxWaitDuration",
            f"only applies to strategy FLEX_START; the strategy here is {k.strategy()}",
        )
