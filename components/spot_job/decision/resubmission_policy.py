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

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from components.spot_job.model import progress, states
from components.spot_job.model.job_inputs import JobInputs, Policy
from components.spot_job.model.job_state import JobState

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


def is_stockout(error: Mapping[str, Any] | None) -> bool:
    """Vertex reports a preempted Spot job as FAILED with an error naming STOCKOUT."""
    if not error:
        return False
    return STOCKOUT in str(error.get("message", "")).upper()


def next_submission(state: JobState, job: JobInputs) -> Resubmission | None:
    """The resubmission due for a job last seen as `state`, under the policy and spec of `job`
    (its new inputs); None when the job stays as it is.

    Only FAILED jobs qualify: SUCCEEDED is done, CANCELLED was someone's choice,
    and EXPIRED hit the job's own timeout.
    """
    if state.state != states.FAILED:
        return None
    policy = job.policy
    if state.attempt - 1 >= policy.max_resubmissions:
        return None
    stockout = is_stockout(state.error)
    if not stockout and not policy.on_other_failures:
        return None
    if _stalled(state, policy):
        return None
    stockouts = sum(is_stockout(a.error) for a in state.attempts) + stockout
    place = placement_after(stockouts, job)
    return Resubmission(
        state.attempt + 1, STOCKOUT if stockout else "FAILED", place.strategy, place.location, place.kms_key_name, stockouts
    )


def held_back(state: JobState, job: JobInputs) -> str | None:
    """Why a FAILED job is not resubmitted, in words for the `up` log; None if it is
    (or is not FAILED)."""
    if state.state != states.FAILED or next_submission(state, job) is not None:
        return None
    policy = job.policy
    if not is_stockout(state.error) and not policy.on_other_failures:
        return "not a STOCKOUT, and resubmission.onOtherFailures is off"
    attempt = state.attempt
    if attempt - 1 < policy.max_resubmissions and _stalled(state, policy):
        limit = policy.stop_without_progress
        at = state.progress.at() if state.progress else "an unknown step"
        if limit == 1:
            run = f"attempt {attempt} made no progress: it ended at {at}, where it started (1 attempt without progress"
        else:
            run = f"attempt {attempt} ended at {at}, as attempt {attempt - 1} did ({limit} attempts in a row without progress"
        return f"{run}; resubmission.stopWithoutProgress: {limit})"
    return f"resubmission.maxResubmissions reached after {attempt} attempts"


def _stalled(state: JobState, policy: Policy) -> bool:
    """Whether the job's last `stopWithoutProgress` attempts, the one that just ended among them,
    are known to have made no progress (progress.py): resubmitting it would only pay again."""
    return progress.stalled(state.progress_so_far, policy.stop_without_progress)


def strategy_after(stockouts: int, job: JobInputs) -> str:
    """The strategy a submission gets after `stockouts` STOCKOUT failures."""
    return placement_after(stockouts, job).strategy


def placement_after(stockouts: int, job: JobInputs) -> Placement:
    """Where and how a submission runs after `stockouts` STOCKOUT failures: the
    spec's own strategy, location and key, until fallback rungs say otherwise.
    A ladder applies to a SPOT job only (the rules refuse one on another strategy)."""
    place = Placement(job.strategy, job.location, job.kms_key_name)
    if job.strategy != "SPOT":
        return place
    for rung in sorted(job.policy.fallback, key=lambda rung: rung.after_stockouts):
        if not stockouts >= rung.after_stockouts > 0:
            continue
        if rung.strategy:
            strategy = rung.strategy
            if strategy == "auto":
                strategy = "FLEX_START" if job.flex_start_fits else "STANDARD"
            place = Placement(strategy, place.location, place.kms_key_name, place.rung)
        if not rung.location:
            continue
        if rung.location == job.location:  # back home, with the job's own key
            place = Placement(place.strategy, rung.location, job.kms_key_name, None)
        else:
            place = Placement(place.strategy, rung.location, rung.kms_key_name, rung.index)
    return place


def why(due: Resubmission, state: JobState, job: JobInputs) -> str:
    """Why the next attempt runs where it does, in words for the preview and the `up` log."""
    current = state.job.location or job.location
    if due.location != current:
        return f"moved from {current} to {due.location} after {due.stockouts} STOCKOUT failure(s) (resubmission.fallback)"
    if due.location != job.location:
        return f"in {due.location}, where resubmission.fallback moved it"
    return f"in {due.location}"
