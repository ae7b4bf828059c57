"""What the next `pulumi up` does with a job that failed: the resubmission policy.

Pure, like spec.py: the provider's `diff` (to announce a resubmission) and
`update` (to carry it out) ask the same question of the same state, so a
preview shows exactly what an `up` will do.

A Spot job that Compute Engine preempts past its own restarts ends FAILED with
a STOCKOUT error. Such a job is submitted again, as a new CustomJob with the
same spec and the same baseOutputDirectory (so the training code resumes from
AIP_CHECKPOINT_DIR), up to `maxResubmissions` times. A failure of the training
code itself is not resubmitted unless `onOtherFailures` says so. A fallback
ladder, off unless configured, moves a job that keeps being preempted off SPOT.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from . import spec

FAILED = "JOB_STATE_FAILED"
STOCKOUT = "STOCKOUT"
# What an attempt that ended is remembered by, in the `history` output.
HISTORY_MESSAGE_CHARS = 200


@dataclass(frozen=True)
class Resubmission:
    """The next submission of a failed job: its attempt number, why, and on what strategy."""

    attempt: int
    reason: str  # STOCKOUT, or FAILED for another failure the policy resubmits
    strategy: str


def is_stockout(error: dict[str, Any] | None) -> bool:
    """Vertex reports a preempted Spot job as FAILED with an error naming STOCKOUT."""
    return bool(error) and STOCKOUT in str(error.get("message", "")).upper()


def next_submission(state: dict[str, Any], news: dict[str, Any]) -> Resubmission | None:
    """The resubmission due for a job whose last observed outputs are `state`,
    under the policy and spec in `news`; None when the job stays as it is.

    Only FAILED jobs qualify: SUCCEEDED is done, CANCELLED was someone's choice,
    and EXPIRED hit the job's own timeout.
    """
    if state.get("state") != FAILED:
        return None
    policy = news.get("resubmission") or {}
    attempt = _whole(state.get("attempt"), 1)
    limit = _whole(policy.get("maxResubmissions"), spec.DEFAULT_MAX_RESUBMISSIONS)
    if attempt - 1 >= limit:
        return None
    stockout = is_stockout(state.get("error"))
    if not stockout and not policy.get("onOtherFailures"):
        return None
    stockouts = sum(is_stockout(a.get("error")) for a in state.get("history") or []) + stockout
    return Resubmission(attempt + 1, STOCKOUT if stockout else "FAILED", strategy_after(stockouts, news))


def held_back(state: dict[str, Any], news: dict[str, Any]) -> str | None:
    """Why a FAILED job is not resubmitted, in words for the `up` log; None if it is
    (or is not FAILED)."""
    if state.get("state") != FAILED or next_submission(state, news) is not None:
        return None
    if not is_stockout(state.get("error")) and not (news.get("resubmission") or {}).get("onOtherFailures"):
        return "not a STOCKOUT, and resubmission.onOtherFailures is off"
    return f"resubmission.maxResubmissions reached after {_whole(state.get('attempt'), 1)} attempts"


def strategy_after(stockouts: int, inputs: dict[str, Any]) -> str:
    """The strategy a submission gets after `stockouts` STOCKOUT failures: the
    spec's own, until a fallback rung says otherwise."""
    own = ((inputs.get("jobSpec") or {}).get("scheduling") or {}).get("strategy") or spec.DEFAULT_STRATEGY
    rungs = ((inputs.get("resubmission") or {}).get("fallback")) or []
    reached = [r for r in rungs if stockouts >= _whole(r.get("afterStockouts"), 0) > 0]
    if own != "SPOT" or not reached:
        return own
    strategy = max(reached, key=lambda r: _whole(r.get("afterStockouts"), 0)).get("strategy")
    if strategy == "auto":
        return "FLEX_START" if spec.flex_start_qualifies(inputs) else "STANDARD"
    return strategy


def history_entry(state: dict[str, Any]) -> dict[str, Any]:
    """How an attempt that ended is remembered: short, so state stays small."""
    error = state.get("error")
    return {
        "jobId": state.get("jobId"),
        "state": state.get("state"),
        "strategy": state.get("strategy"),
        "error": {"code": error.get("code", 0), "message": str(error.get("message", ""))[:HISTORY_MESSAGE_CHARS]}
        if error
        else None,
    }


def _whole(value: Any, default: int) -> int:
    # The one coercion `check` validated with: 1, 1.0 (Pulumi's wire format
    # carries every number as a double) and "1" (as YAML or REST may write it).
    number = spec.as_int(value)
    return default if number is None else number
