"""What the next `pulumi up` does with a job: one decision for the preview and the action.

`decide(olds, news)` is a pure function of the job's stored state (the old
props: its inputs and outputs) and its new inputs. The provider's `diff` only
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
Pure: no Pulumi, no Google client.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass
from typing import Any

from . import changes, defaults, resubmission, spec, states
from .resource_state import JobState

_NO_UNKNOWN = object()


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
    resubmission: resubmission.Resubmission | None = None

    @property
    def changes(self) -> bool:
        """Whether the engine is to plan a step (a replace or an update) for the job."""
        return self.kind in (Kind.REPLACE, Kind.RESUBMIT) or bool(self.knobs)

    @property
    def warns(self) -> bool:
        """Whether the reason is a warning (the job will not do what its config might suggest)."""
        return self.kind in (Kind.GONE, Kind.CANCELLED_OUTSIDE, Kind.HELD_BACK)


def decide(olds: dict[str, Any], news: dict[str, Any], id_: str = "", unknown: Any = _NO_UNKNOWN) -> Decision:
    """The decision for a job whose stored props are `olds` (id `id_`), given its new inputs `news`.

    `unknown` is the engine's marker of a value a preview cannot know yet."""
    label = news.get("displayName") or olds.get("displayName") or id_
    cancel_first = (news.get("replaceOrder") or defaults.DEFAULT_REPLACE_ORDER) == defaults.ReplaceOrder.CANCEL_FIRST
    before, after = spec.job_definition(olds), spec.job_definition(news)
    replaces = [key for key in spec.JOB_FIELDS if before.get(key) != after.get(key)]
    replaces += [key for key in spec.TRIGGER_FIELDS if olds.get(key) != news.get(key)]
    if replaces:
        lines = changes.describe(olds, news, unknown=None if unknown is _NO_UNKNOWN else unknown)
        order = "the old one cancelled first" if cancel_first else "the old one cancelled after"
        return Decision(
            Kind.REPLACE,
            f"{label}: will be submitted again as a new job ({order}), because:\n  " + "\n  ".join(lines),
            replaces=tuple(replaces),
            cancel_first=cancel_first,
        )
    knobs = tuple(key for key in spec.KNOB_FIELDS if olds.get(key) != news.get(key))
    state = JobState.of(olds, id_)

    def decided(kind: Kind, reason: str = "", due: resubmission.Resubmission | None = None) -> Decision:
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
    if _is_unknown(news.get("resubmission"), unknown):
        return decided(Kind.KNOBS, f"{ended}; whether it is submitted again depends on `resubmission`, known once deployed.")
    due = resubmission.next_submission(olds, news)
    if due is None:
        why = resubmission.held_back(olds, news)
        return decided(
            Kind.HELD_BACK,
            f"{ended} and is not submitted again: {why}. Change its spec or `rerun` to run it again. "
            f"{state.job.console_url}",
        )
    return decided(
        Kind.RESUBMIT,
        f"{ended}; will be submitted again as attempt {due.attempt} on {due.strategy} "
        f"{resubmission.why(due, olds, news)}{_resumes(state)}",
        due,
    )


def _resumes(state: JobState) -> str:
    """Where the next attempt's training starts, when the attempt that ended left a progress record."""
    made = state.progress
    if made is None or made.step is None:
        return ""
    return f"; its training resumes from the checkpoint at {made.at()}"


def _failure(state: JobState) -> str:
    return resubmission.STOCKOUT if resubmission.is_stockout(state.error) else "FAILED"


def _is_unknown(value: Any, unknown: Any) -> bool:
    if unknown is _NO_UNKNOWN:
        return False
    if isinstance(value, str) and value == unknown:
        return True
    if isinstance(value, dict):
        return any(_is_unknown(v, unknown) for v in value.values())
    if isinstance(value, list):
        return any(_is_unknown(v, unknown) for v in value)
    return False
