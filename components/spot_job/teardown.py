"""What a delete (`pulumi destroy`, or the old half of a replacement) does with a job: one plan.

`plan(props, id_)` is a pure function of the job's stored state, beside
`decision.decide` (what `up` does): the provider's `delete` only carries the
plan out, through the one stop path (stopping.py, submission.cancel_copies).
So what destroy does is read here, for every `onDelete`:

- `delete` (default): cancel the job if it is active and wait for it to stop
  (at most `deleteTimeout`), delete its record, and the records of its earlier
  attempts, each in the region it ran in.
- `cancel`: cancel and wait the same way; every record stays.
- `keep`: the job in state is neither cancelled nor waited on and every record
  stays: it runs on, in Vertex's hands, forgotten by the stack.

With all three, copies are stopped: active jobs of the resource, in every
region its attempts may be in (resubmission.locations), that carry one of its
attempts' submission keys, except the job in state. Under `keep` too: the job
kept is the one the state points to (the oldest of its key, submission.py's
rule), and any other copy of its key is a duplicate the protocol's invariant
says converges to cancelled. Jobs of the resource under other keys are never
stopped here (a `submitFirst` replacement's new job; under `keep`, jobs
released on purpose).

Pure: no Pulumi, no Google client.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from . import defaults, resubmission, spec, values
from .job_name import JobName
from .resource_state import JobState


@dataclass(frozen=True)
class Copies:
    """The copies to stop: active jobs of the resource that carry one of `keys`, looked for in
    `regions`, except `spare` (the job in state)."""

    keys: tuple[str, ...]
    regions: tuple[str, ...]
    spare: str


@dataclass(frozen=True)
class Teardown:
    on_delete: defaults.OnDelete
    job: JobName  # the current attempt, the one the state points to
    label: str  # how the log names the resource
    scope: str  # its submissionScope (the sweep command the log names)
    cancel: bool  # cancel the job if active, and wait for it to stop when a slot is free
    timeout: float  # how long that wait may take, in seconds (0 when there is no wait)
    delete_record: bool  # delete its record once it has stopped
    copies: Copies  # copies of its submissions that no state names, to cancel
    past_records: tuple[JobName, ...]  # earlier attempts' records to delete, each where it ran


def plan(props: dict[str, Any], id_: str = "") -> Teardown:
    """The plan for deleting the job whose stored props (inputs and outputs) are `props`, id `id_`."""
    state = JobState.of(props, id_)
    on_delete = defaults.OnDelete(props.get("onDelete") or defaults.DEFAULT_ON_DELETE)
    stops = on_delete is not defaults.OnDelete.KEEP
    deletes = on_delete is defaults.OnDelete.DELETE
    # A copy that slipped through (an answer lost, a list that lagged) carries one of the state's
    # submission keys under a name no state holds: found by label, in every region an attempt ran in.
    keys = [state.submission_key or "", *(spec.submission_key(props, n) for n in range(1, state.attempt + 1))]
    regions = resubmission.locations(props, (job.location for job in state.all_jobs))
    timeout = values.duration_seconds(props.get("deleteTimeout") or defaults.DEFAULT_DELETE_TIMEOUT) if stops else 0.0
    return Teardown(
        on_delete=on_delete,
        job=state.job,
        label=props.get("displayName") or str(state.job),
        scope=props.get("submissionScope") or "",
        cancel=stops,
        timeout=timeout,
        delete_record=deletes,
        copies=Copies(tuple(k for k in dict.fromkeys(keys) if k), tuple(dict.fromkeys(r for r in regions if r)), str(state.job)),
        # Earlier attempts ended before this one was submitted; their records go too, each in the
        # region it ran in (a fallback rung may have moved it).
        past_records=state.past_jobs if deletes else (),
    )
