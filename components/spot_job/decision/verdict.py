"""What the next `pulumi up` does with a job: one decision for the preview and the action.

`decide(state, old, new)` is a pure function of the job's state as last seen
(resource_state.JobState), the inputs it is stored with and its new inputs
(job_inputs.JobInputs), each read once from the engine's props by the provider. The provider's `diff` only
turns the decision into a DiffResult and logs its `reason` (the line the
preview shows); `create`/`update` only carry it out; the resubmission gate
(operations/resubmit_gate.py) asks it whether a planned step is a
resubmission. So a preview says what `up` does, by construction.

Outcomes, in the order they are decided:

- REPLACE: the job's definition (`spec.JOB_FIELDS`) or `rerun` changed. A
  CustomJob cannot change, so a new job is submitted: `cancel_first` says
  whether the old one is cancelled before (`replaceOrder: cancelFirst`, the
  default) or after. The new job is a new submission: a create adopts only an
  active job of its key (submission.py), never the ended record of an earlier
  run of the same spec, so A -> B -> A and a `rerun` set back run the
  training again, as the preview says.
- GONE: the record was deleted outside Pulumi after the job ended. Not run
  again, whatever it ended as (a FAILED one included): `rerun` runs it again.
- CANCELLED_OUTSIDE: someone else cancelled it. Not run again; `rerun` does.
- RESUBMIT: it ended FAILED and its policy resubmits it: the attempt, why,
  and where (the rung of the fallback ladder).
- HELD_BACK: it ended FAILED and its policy does not resubmit it: why.
- KNOBS: only inputs that steer the provider changed: state is updated in
  place, no call to Vertex.
- UNCHANGED.

Knob changes ride along with GONE, CANCELLED_OUTSIDE, HELD_BACK and RESUBMIT.

`plan_delete(state, job)` decides what a delete (`pulumi destroy`, or the old
half of a replacement) does with a job: the provider's `delete` only carries
the plan out, through the one stop path (stopping.py, submission.cancel_copies).
So what destroy does is read here too, for every `onDelete`:

- `delete` (default): cancel the job if it is active and wait for it to stop
  (at most `deleteTimeout`), delete its record, and the records of its earlier
  attempts, each in the region it ran in.
- `cancel`: cancel and wait the same way; every record stays.
- `keep`: the job in state is neither cancelled nor waited on and every record
  stays: it runs on, in Vertex's hands, forgotten by the stack.

With all three, copies are stopped: active jobs of the resource, in every
region its attempts may be in (JobInputs.locations), that carry one of its
attempts' submission keys, except the job in state. Under `keep` too: the job
kept is the one the state points to (the oldest of its key, submission.py's
rule), and any other copy of its key is a duplicate the protocol's invariant
says converges to cancelled. Jobs of the resource under other keys are never
stopped here (a `submitFirst` replacement's new job; under `keep`, jobs
released on purpose).

Both are pure: no Pulumi, no Google client.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass

from components.spot_job.decision import change_lines, resubmission_policy
from components.spot_job.model import spec, states
from components.spot_job.model.defaults import OnDelete, ReplaceOrder
from components.spot_job.model.job_inputs import JobInputs
from components.spot_job.model.job_name import JobName
from components.spot_job.model.job_state import JobState


class Kind(enum.Enum):
    UNCHANGED = "unchanged"
    KNOBS = "knobs only"
    REPLACE = "replacement"
    RESUBMIT = "resubmission"
    HELD_BACK = "held back"
    GONE = "gone"
    CANCELLED_OUTSIDE = "cancelled outside"


@dataclass(frozen=True)
class Decision:
    kind: Kind
    reason: str = ""  # the line a person reads in the preview and the `up` log; "" when there is nothing to say
    knobs: tuple[str, ...] = ()  # knob inputs that changed (updated in place)
    replaces: tuple[str, ...] = ()  # inputs whose change makes a new job
    cancel_first: bool = True  # for a replacement: the old job is cancelled before the new one is submitted
    resubmission: resubmission_policy.Resubmission | None = None

    @property
    def changes(self) -> bool:
        """Whether the engine is to plan a step (a replace or an update) for the job."""
        return self.kind in (Kind.REPLACE, Kind.RESUBMIT) or bool(self.knobs)

    @property
    def warns(self) -> bool:
        """Whether the reason is a warning (the job will not do what its config might suggest)."""
        return self.kind in (Kind.GONE, Kind.CANCELLED_OUTSIDE, Kind.HELD_BACK)


def decide(state: JobState, old: JobInputs, new: JobInputs) -> Decision:
    """The decision for a job last seen as `state`, stored with the inputs `old`, given its new inputs `new`.

    A value a preview cannot know yet is the `unknown` marker `new` was read with (JobInputs.of)."""
    label = new.label or old.label or state.job.id
    cancel_first = new.replace_order is ReplaceOrder.CANCEL_FIRST
    replaces = [key for key in spec.JOB_FIELDS if old.definition.get(key) != new.definition.get(key)]
    replaces += [key for key in spec.TRIGGER_FIELDS if old.triggers.get(key) != new.triggers.get(key)]
    if replaces:
        lines = change_lines.describe(old, new)
        order = "the old one cancelled first" if cancel_first else "the old one cancelled after"
        return Decision(
            Kind.REPLACE,
            f"{label}: will be submitted again as a new job ({order}), because:\n  " + "\n  ".join(lines),
            replaces=tuple(replaces),
            cancel_first=cancel_first,
        )
    knobs = tuple(key for key in spec.KNOB_FIELDS if old.knobs.get(key) != new.knobs.get(key))

    def decided(kind: Kind, reason: str = "", due: resubmission_policy.Resubmission | None = None) -> Decision:
        return Decision(kind, reason, knobs=knobs, cancel_first=cancel_first, resubmission=due)

    if state.gone:
        return decided(
            Kind.GONE,
            f"{label}: job {state.job.id} was deleted outside Pulumi after it ended (last seen {state.state}); it is "
            "not run again. To run it again, set or change `rerun` on the job.",
        )
    if state.state in states.CANCELLED_OR_CANCELLING:
        return decided(
            Kind.CANCELLED_OUTSIDE,
            f"{label}: job {state.job.id} was cancelled outside this stack; it is not run again. To run it again, "
            f"set or change `rerun` on the job. {state.job.console_url}",
        )
    if state.state != states.FAILED:
        return decided(Kind.KNOBS if knobs else Kind.UNCHANGED)
    ended = f"{label}: {state.job.id} ended FAILED ({_failure(state)})"
    if not new.policy.known:
        return decided(Kind.KNOBS, f"{ended}; whether it is submitted again depends on `resubmission`, known once deployed.")
    due = resubmission_policy.next_submission(state, new)
    if due is None:
        why = resubmission_policy.held_back(state, new)
        return decided(
            Kind.HELD_BACK,
            f"{ended} and is not submitted again: {why}. Change its spec or `rerun` to run it again. "
            f"{state.job.console_url}",
        )
    return decided(
        Kind.RESUBMIT,
        f"{ended}; will be submitted again as attempt {due.attempt} on {due.strategy} "
        f"{resubmission_policy.why(due, state, new)}{_resumes(state)}",
        due,
    )


def _resumes(state: JobState) -> str:
    """Where the next attempt's training starts, when the attempt that ended left a progress record."""
    made = state.progress
    if made is None or made.step is None:
        return ""
    return f"; its training resumes from the checkpoint at {made.at()}"


def _failure(state: JobState) -> str:
    return resubmission_policy.STOCKOUT if resubmission_policy.is_stockout(state.error) else "FAILED"


@dataclass(frozen=True)
class Copies:
    """The copies to stop: active jobs of the resource that carry one of `keys`, looked for in
    `regions`, except `spare` (the job in state)."""

    keys: tuple[str, ...]
    regions: tuple[str, ...]
    spare: str


@dataclass(frozen=True)
class Teardown:
    on_delete: OnDelete
    job: JobName  # the current attempt, the one the state points to
    label: str  # how the log names the resource
    scope: str  # its submissionScope (the sweep command the log names)
    cancel: bool  # cancel the job if active, and wait for it to stop when a slot is free
    timeout: float  # how long that wait may take, in seconds (0 when there is no wait)
    delete_record: bool  # delete its record once it has stopped
    copies: Copies  # copies of its submissions that no state names, to cancel
    past_records: tuple[JobName, ...]  # earlier attempts' records to delete, each where it ran


def plan_delete(state: JobState, job: JobInputs) -> Teardown:
    """The plan for deleting the job last seen as `state`, stored with the inputs `job`."""
    on_delete = job.on_delete
    stops = on_delete is not OnDelete.KEEP
    deletes = on_delete is OnDelete.DELETE
    # A copy that slipped through (an answer lost, a list that lagged) carries one of the state's
    # submission keys under a name no state holds: found by label, in every region an attempt ran in.
    keys = [state.submission_key or "", *(job.submission_key(n) for n in range(1, state.attempt + 1))]
    regions = job.locations(tuple(ran.location for ran in state.all_jobs))
    return Teardown(
        on_delete=on_delete,
        job=state.job,
        label=job.label or str(state.job),
        scope=job.scope,
        cancel=stops,
        timeout=job.delete_timeout if stops else 0.0,
        delete_record=deletes,
        copies=Copies(tuple(k for k in dict.fromkeys(keys) if k), tuple(dict.fromkeys(r for r in regions if r)), str(state.job)),
        # Earlier attempts ended before this one was submitted; their records go too, each in the
        # region it ran in (a fallback rung may have moved it).
        past_records=state.past_jobs if deletes else (),
    )
