"""The resubmission gate: lets the scheduled workflow resubmit preempted jobs, and nothing else.

    uv run --locked python -m operations.resubmit_gate plan.json

`plan.json` is what `pulumi preview --refresh --json` printed for a stack.
Every step must be either one that changes nothing (`same`, `read`,
`refresh`) or the resubmission of a failed job: an `update` of a
SpotTrainingJob with no changed input and no replace, for which the
provider's own decision (components/spot_job/decision/verdict.py, the function its
`diff` and `update` carry out) is a resubmission, from the step's refreshed
old state and its new inputs. So the gate approves exactly what the preview
announced as "will be submitted again", and nothing the provider would do
otherwise (a job gone, cancelled outside, or held back by its policy).

Anything else is a merged change no `up` has applied yet (or an unreviewed
one): it goes out through the reviewed `up` on main, not from a timer. So one
such step refuses the whole plan: exit 1, each offending resource named on
stderr, nothing on stdout. Otherwise exit 0 and print the URN of each job to
resubmit, one a line, for `pulumi up --target` (none: nothing to do).
Exit 2: the plan cannot be read.
"""

from __future__ import annotations

import json
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from components.spot_job.decision.verdict import Kind, decide
from components.spot_job.model.job_inputs import JobInputs
from components.spot_job.model.job_state import JobState

JOB_TYPE = "pulumi-python:dynamic/spot-training:SpotTrainingJob"
# Steps that change no resource: unchanged, a data-source read, a refresh of state.
NO_CHANGE = frozenset({"same", "read", "refresh"})


@dataclass(frozen=True)
class Verdict:
    targets: tuple[str, ...]  # job URNs to resubmit
    notes: tuple[str, ...]  # one line per job resubmitted, for the log
    refusals: tuple[str, ...]  # one line per offending step


def resource_type(step: dict[str, Any]) -> str:
    for side in ("newState", "oldState"):
        type_ = (step.get(side) or {}).get("type")
        if isinstance(type_, str) and type_:
            return type_
    # urn:pulumi:STACK::PROJECT::[parent types$]TYPE::NAME
    parts = str(step.get("urn", "")).split("::")
    return parts[2].rsplit("$", 1)[-1] if len(parts) >= 4 else "(unknown type)"


def changed_keys(step: dict[str, Any]) -> list[str]:
    """What the step changes, as the engine reports it and as its inputs show (both sides present)."""
    changed = list(step.get("replaceReasons") or []) + list(step.get("diffReasons") or [])
    changed += sorted(step.get("detailedDiff") or {})
    old, new = step.get("oldState"), step.get("newState")
    if old and new:
        before, after = old.get("inputs") or {}, new.get("inputs") or {}
        changed += [key for key in sorted(set(before) | set(after)) if before.get(key) != after.get(key)]
    return list(dict.fromkeys(changed))


def why_not_a_resubmission(step: dict[str, Any]) -> str | None:
    """None for a resubmission of a failed job; else why this step is something else."""
    op, kind, changed = step.get("op"), resource_type(step), changed_keys(step)
    because = f" ({', '.join(changed)})" if changed else ""
    if kind != JOB_TYPE:
        return f"{op} of a {kind}{because}: not a training job"
    if op != "update":
        return f"{op} of a job{because}: a resubmission is an update of a job that exists"
    if step.get("replaceReasons"):
        return f"update replacing {', '.join(step['replaceReasons'])}: a resubmission replaces nothing"
    if changed:
        return (
            f"update changing {', '.join(changed)}: a resubmission changes no input, so this would apply "
            "a change no reviewed up has applied"
        )
    old, new = step.get("oldState") or {}, step.get("newState") or {}
    if not old or not new:
        return "update without both old and new state in the plan: cannot tell what the provider will do"
    outputs = old.get("outputs") or {}
    state = JobState.of(outputs, old.get("id") or "")
    decided = decide(state, JobInputs.of(outputs), JobInputs.of(new.get("inputs") or {}))
    if decided.kind != Kind.RESUBMIT:
        return f"update of a job in {state.state or 'no state'} that the provider does not resubmit ({decided.kind.value})"
    return None


def judge(plan: dict[str, Any]) -> Verdict:
    targets, notes, refusals = [], [], []
    for step in plan.get("steps") or []:
        if step.get("op") in NO_CHANGE:
            continue
        urn = step.get("urn", "(no urn)")
        reason = why_not_a_resubmission(step)
        if reason is not None:
            refusals.append(f"{urn}: {reason}")
            continue
        state = JobState.of(step["oldState"].get("outputs") or {}, step["oldState"].get("id") or "")
        error = (state.error or {}).get("message") or "no error message"
        targets.append(urn)
        notes.append(
            f"{urn.rsplit('::', 1)[-1]}: {state.job.id or '(no job id)'} attempt {state.attempt} "
            f"ended FAILED ({error}); resubmitting"
        )
    return Verdict(tuple(targets), tuple(notes), tuple(refusals))


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    if len(args) != 1:
        print("usage: python -m operations.resubmit_gate PLAN.json (the output of pulumi preview --json)", file=sys.stderr)
        return 2
    path = Path(args[0])
    try:
        plan = json.loads(path.read_text())
    except (OSError, ValueError) as error:
        print(f"resubmit gate: cannot read {path} as pulumi preview --json output: {error}", file=sys.stderr)
        return 2
    if not isinstance(plan, dict):
        print(f"resubmit gate: {path} is not a pulumi preview --json document", file=sys.stderr)
        return 2
    verdict = judge(plan)
    if verdict.refusals:
        print(
            f"resubmit gate: refused: the plan does more than resubmit failed jobs ({len(verdict.refusals)} "
            "step(s) below). Nothing is applied; these changes go out through the reviewed `pulumi up` on main.",
            file=sys.stderr,
        )
        for line in verdict.refusals:
            print(f"  {line}", file=sys.stderr)
        return 1
    if not verdict.targets:
        print("resubmit gate: nothing to resubmit", file=sys.stderr)
    for line in verdict.notes:
        print(f"resubmit gate: {line}", file=sys.stderr)
    for urn in verdict.targets:
        print(urn)
    return 0


if __name__ == "__main__":
    sys.exit(main())
