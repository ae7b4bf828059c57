"""The resubmission policy: a bounded number of resubmissions, and a fallback
ladder from SPOT that never moves a job to a strategy Google would refuse
(where a rung moves it to another region: region_move.py)."""

from __future__ import annotations

from components.spot_job.rules import flex_start
from components.spot_job.rules.known import Fail, Known

# Bounds that keep state small and `pulumi up` finite.
MAX_RESUBMISSIONS = 10


def resubmission(k: Known, fail: Fail) -> None:
    policy = k.get(k.inputs, "resubmission", dict)
    if policy is None:
        return
    limit = k.number(policy, "maxResubmissions")
    if limit is not None and not 0 <= limit <= MAX_RESUBMISSIONS:
        fail("resubmission.maxResubmissions", f"must be between 0 and {MAX_RESUBMISSIONS}, got {limit}")
    stop = k.number(policy, "stopWithoutProgress")
    if stop is not None and not 0 <= stop <= MAX_RESUBMISSIONS:
        fail(
            "resubmission.stopWithoutProgress",
            f"must be between 0 (never stop) and {MAX_RESUBMISSIONS} attempts without progress, got {stop}",
        )
    rungs = [(i, r) for i, r in enumerate(k.get(policy, "fallback", list) or []) if isinstance(r, dict)]
    if rungs and k.strategy() not in (None, "SPOT"):
        fail("resubmission.fallback", f"falls back from SPOT; the strategy here is already {k.strategy()}")
    previous = 0
    for i, rung in rungs:
        path = f"resubmission.fallback[{i}]"
        after = k.number(rung, "afterStockouts")
        if after is None:
            if not k.has(rung, "afterStockouts"):
                fail(f"{path}.afterStockouts", "is required: after how many STOCKOUT failures this rung applies")
        elif after <= previous:
            fail(f"{path}.afterStockouts", f"must be more than {previous} (each rung comes after the one before)")
        else:
            previous = after
        if not k.has(rung, "strategy") and not k.has(rung, "location"):
            fail(f"{path}.strategy", "is required unless the rung names a location: FLEX_START, STANDARD or auto")
        elif k.text(rung, "strategy") == "FLEX_START" and k.machines_known() and not flex_start.qualifies(k.inputs):
            why = "; ".join(f"{p}: {r}" for p, r in flex_start.problems(k.inputs))
            fail(
                f"{path}.strategy",
                f"this job cannot run on FLEX_START ({why}); use STANDARD, or auto to pick FLEX_START only where it applies",
            )
