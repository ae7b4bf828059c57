"""What the next `pulumi up` does with a job that failed: the resubmission policy.

Pure, like spec.py: the provider's `diff` (to announce a resubmission) and
`update` (to carry it out) ask the same question of the same state, so a
preview shows exactly what an `up` will do.

A Spot job that Compute Engine preempts past its own restarts ends FAILED with
a STOCKOUT error. Such a job is submitted again, as a new CustomJob with the
same spec and the same baseOutputDirectory (so the training code resumes from
AIP_CHECKPOINT_DIR), up to `maxResubmissions` times. A failure of the training
code itself is not resubmitted unless `onOtherFailures` says so. A fallback
ladder, off unless configured, moves a job that keeps being preempted off SPOT,
to another region, or both: each rung sets what it names (its `strategy`, its
`location` with the CMEK key that region needs), and what it leaves out carries
over from the rungs before it, so `[{afterStockouts: 2, location: us-east1},
{afterStockouts: 4, strategy: STANDARD}]` runs SPOT at home twice, SPOT in
us-east1 twice, then STANDARD in us-east1.

A job whose last `stopWithoutProgress` attempts (2 by default, 0 for never)
are known to have made no progress, by the training's own progress record
(progress.py), is not resubmitted: it would pay for the same steps again. An
attempt whose progress is unknown (a trainer without the runtime) never
counts against it.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from . import defaults, progress, states, values
from .job_name import JobName
from .resource_state import JobState
from .rules import flex_start

STOCKOUT = "STOCKOUT"


@dataclass(frozen=True)
class Placement:
    """Where and how an attempt runs: its scheduling strategy, its region and the CMEK key it is encrypted with."""

    strategy: str
    location: str
    kms_key_name: str | None  # the job's own key at home, a rung's key in the rung's region
    rung: int | None = None  # the index of the last rung reached that moved the job, None at home


@dataclass(frozen=True)
class Resubmission:
    """The next submission of a failed job: its attempt number, why, and where and on what strategy."""

    attempt: int
    reason: str  # STOCKOUT, or FAILED for another failure the policy resubmits
    strategy: str
    location: str
    kms_key_name: str | None
    stockouts: int  # the STOCKOUT failures so far, which picked the placement


def is_stockout(error: dict[str, Any] | None) -> bool:
    """Vertex reports a preempted Spot job as FAILED with an error naming STOCKOUT."""
    if not error:
        return False
    return STOCKOUT in str(error.get("message", "")).upper()


def next_submission(state: dict[str, Any], news: dict[str, Any]) -> Resubmission | None:
    """The resubmission due for a job whose last observed outputs are `state`,
    under the policy and spec in `news`; None when the job stays as it is.

    Only FAILED jobs qualify: SUCCEEDED is done, CANCELLED was someone's choice,
    and EXPIRED hit the job's own timeout.
    """
    if state.get("state") != states.FAILED:
        return None
    policy = news.get("resubmission") or {}
    attempt = _whole(state.get("attempt"), 1)
    limit = _whole(policy.get("maxResubmissions"), defaults.DEFAULT_MAX_RESUBMISSIONS)
    if attempt - 1 >= limit:
        return None
    stockout = is_stockout(state.get("error"))
    if not stockout and not policy.get("onOtherFailures"):
        return None
    if _stalled(state, policy):
        return None
    stockouts = sum(is_stockout(a.get("error")) for a in state.get("history") or []) + stockout
    place = placement_after(stockouts, news)
    return Resubmission(
        attempt + 1, STOCKOUT if stockout else "FAILED", place.strategy, place.location, place.kms_key_name, stockouts
    )


def held_back(state: dict[str, Any], news: dict[str, Any]) -> str | None:
    """Why a FAILED job is not resubmitted, in words for the `up` log; None if it is
    (or is not FAILED)."""
    if state.get("state") != states.FAILED or next_submission(state, news) is not None:
        return None
    if not is_stockout(state.get("error")) and not (news.get("resubmission") or {}).get("onOtherFailures"):
        return "not a STOCKOUT, and resubmission.onOtherFailures is off"
    attempt = _whole(state.get("attempt"), 1)
    policy = news.get("resubmission") or {}
    if attempt - 1 < _whole(policy.get("maxResubmissions"), defaults.DEFAULT_MAX_RESUBMISSIONS) and _stalled(state, policy):
        limit = _stop_without_progress(policy)
        last = JobState.of(state).progress
        at = last.at() if last else "an unknown step"
        if limit == 1:
            run = f"attempt {attempt} made no progress: it ended at {at}, where it started (1 attempt without progress"
        else:
            run = f"attempt {attempt} ended at {at}, as attempt {attempt - 1} did ({limit} attempts in a row without progress"
        return f"{run}; resubmission.stopWithoutProgress: {limit})"
    return f"resubmission.maxResubmissions reached after {attempt} attempts"


def _stop_without_progress(policy: dict[str, Any]) -> int:
    return _whole(policy.get("stopWithoutProgress"), progress.DEFAULT_STOP_WITHOUT_PROGRESS)


def _stalled(state: dict[str, Any], policy: dict[str, Any]) -> bool:
    """Whether the job's last `stopWithoutProgress` attempts, the one that just ended among them,
    are known to have made no progress (progress.py): resubmitting it would only pay again."""
    return progress.stalled(JobState.of(state).progress_so_far, _stop_without_progress(policy))


def strategy_after(stockouts: int, inputs: dict[str, Any]) -> str:
    """The strategy a submission gets after `stockouts` STOCKOUT failures."""
    return placement_after(stockouts, inputs).strategy


def placement_after(stockouts: int, inputs: dict[str, Any]) -> Placement:
    """Where and how a submission runs after `stockouts` STOCKOUT failures: the
    spec's own strategy, location and key, until fallback rungs say otherwise.
    A ladder applies to a SPOT job only (the rules refuse one on another strategy)."""
    own = ((inputs.get("jobSpec") or {}).get("scheduling") or {}).get("strategy") or defaults.DEFAULT_STRATEGY
    own_key = ((inputs.get("encryptionSpec") or {}).get("kmsKeyName")) or None
    place = Placement(own, inputs.get("location") or "", own_key)
    if own != "SPOT":
        return place
    for i, rung in sorted(_rungs(inputs), key=lambda pair: _whole(pair[1].get("afterStockouts"), 0)):
        if not stockouts >= _whole(rung.get("afterStockouts"), 0) > 0:
            continue
        if rung.get("strategy"):
            strategy = rung["strategy"]
            if strategy == "auto":
                strategy = "FLEX_START" if flex_start.qualifies(inputs) else "STANDARD"
            place = Placement(strategy, place.location, place.kms_key_name, place.rung)
        if not rung.get("location"):
            continue
        if rung["location"] == inputs.get("location"):  # back home, with the job's own key
            place = Placement(place.strategy, rung["location"], own_key, None)
        else:
            place = Placement(place.strategy, rung["location"], rung.get("kmsKeyName") or None, i)
    return place


def locations(inputs: dict[str, Any], ran_in: Iterable[str] = ()) -> list[str]:
    """The regions a job may be in, each once: its own location first, then each region its
    ladder names, in ladder order, then `ran_in` (where its attempts ran, as its state says:
    a ladder since changed may have moved one elsewhere). The one answer to "where may a job
    of this resource be" for the protocol, the provider, the CLI and the sweep."""
    found = [inputs.get("location") or ""] + [r["location"] for _, r in _rungs(inputs) if r.get("location")] + list(ran_in)
    return [loc for loc in dict.fromkeys(found) if loc]


def _rungs(inputs: dict[str, Any]) -> list[tuple[int, dict[str, Any]]]:
    rungs = ((inputs.get("resubmission") or {}).get("fallback")) or []
    return [(i, r) for i, r in enumerate(rungs) if isinstance(r, dict)]


def why(due: Resubmission, olds: dict[str, Any], news: dict[str, Any]) -> str:
    """Why the next attempt runs where it does, in words for the preview and the `up` log."""
    current = _location_of(olds) or news.get("location")
    if due.location != current:
        return f"moved from {current} to {due.location} after {due.stockouts} STOCKOUT failure(s) (resubmission.fallback)"
    if due.location != news.get("location"):
        return f"in {due.location}, where resubmission.fallback moved it"
    return f"in {due.location}"


def _location_of(state: dict[str, Any]) -> str | None:
    try:
        return JobName.parse(str(state.get("jobName") or "")).location
    except ValueError:
        return None


def _whole(value: Any, default: int) -> int:
    # The one coercion `check` validated with: 1, 1.0 (Pulumi's wire format
    # carries every number as a double) and "1" (as YAML or REST may write it).
    number = values.as_int(value)
    return default if number is None else number
