"""The orphan sweep: a stack's jobs that no resource of its state points to.

A job is submitted before the engine records it, so an `up` interrupted in
between leaves a job that only its labels tie to the stack. The next `create`
of that resource finds it and cancels it; when no create comes (the stack was
destroyed, or the job removed from the program), nothing else will, and it
bills until it ends. This lists such jobs by the stack's label and, with
--cancel, cancels them. Jobs submitted with `onDelete: keep` were released on
purpose: shown, never cancelled unless --include-released; but a younger active
copy of a released job's submission key is a duplicate (submission.py's
invariant), ORPHANED like any other.

It also lists the records of the stack's jobs that ended (a destroy whose
cancels took longer than it waited leaves them behind, CANCELLING, then
CANCELLED) and that no state points to, and with --delete-ended deletes them.
A job still CANCELLING is cancelled but has not ended: Vertex refuses to delete
it yet, so it is reported and left for a later sweep.

    uv run python -m operations.sweep <stack> [--state FILE] [--location L]... [--cancel] [--delete-ended] [--include-released]

Exit codes: 0 nothing left to do (no active orphan, or all cancelled; with
--delete-ended every ended record deleted), 1 active orphans found and not
cancelled (they bill), 2 an error, 3 with --delete-ended: done, but a job is
still stopping (CANCELLING) and its record can only be deleted by a later sweep.
"""

from __future__ import annotations

import argparse
import enum
import shlex
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from components.spot_job.model import ordering, states, submission_labels
from components.spot_job.model.job_name import JobName, parent_of, split_parent
from offline import table as tables

from .stack import Stack, StackError
from .state import StackState, StateError


class Status(str, enum.Enum):
    """What the sweep makes of a job no state points to, as it prints it. Not a Vertex job state:
    it groups them by states.py (STOPPING is CANCELLING, ENDED is states.ENDED), with the release label."""

    ORPHANED = "ORPHANED"
    RELEASED = "RELEASED"
    STOPPING = "CANCELLING"
    ENDED = "ENDED"

    def __str__(self) -> str:
        return str(self.value)


# Vertex says a job is cancelled before it has stopped; its record cannot be deleted until it has.
# How long a record's deletion (a long-running operation) may take before the sweep gives up on it.
DELETE_TIMEOUT = 120.0
# The exit codes, as the docstring and docs/cli.md describe them.
DONE, ORPHANS_LEFT, ERROR, STILL_STOPPING = 0, 1, 2, 3
INCLUDE_RELEASED_ALONE = "--include-released only goes with --cancel or --delete-ended"


@dataclass(frozen=True)
class Finding:
    job: dict[str, Any]
    status: Status

    @property
    def ended(self) -> bool:
        return self.job.get("state") in states.ENDED

    @property
    def active(self) -> bool:
        return self.job.get("state") in states.ACTIVE


def unaccounted(jobs: list[dict[str, Any]], state: StackState) -> list[Finding]:
    """The jobs among `jobs` (the stack's) that no resource of `state` points to, each with its
    kind: active (ORPHANED, or RELEASED with onDelete: keep), stopping (CANCELLING), or ended
    (ENDED, or RELEASED with onDelete: keep)."""
    found = []
    duplicates = _duplicates(jobs)
    for job in jobs:
        if job.get("name") in state.job_names:
            continue
        # A released job is the one its destroy kept; a younger active copy of its key is a duplicate, an orphan.
        released = (job.get("labels") or {}).get(submission_labels.RELEASE_LABEL) == submission_labels.RELEASED and job["name"] not in duplicates
        if job.get("state") in states.STOPPING:
            status = Status.STOPPING  # someone cancelled it, released or not: it is on its way to ENDED
        elif job.get("state") in states.ACTIVE:
            status = Status.RELEASED if released else Status.ORPHANED
        elif job.get("state") in states.ENDED:
            status = Status.RELEASED if released else Status.ENDED
        else:
            continue  # a state this sweep does not know is neither billing for sure nor deletable
        found.append(Finding(job, status))
    order = list(Status)
    return sorted(found, key=lambda f: (order.index(f.status), *ordering.by_creation(f.job)))


def _duplicates(jobs: list[dict[str, Any]]) -> set[str]:
    """The active jobs that carry the submission key of an older active job: every one but the oldest of
    each key (ordering.py, the protocol's rule), which the protocol, and a destroy under keep, cancel."""
    by_key: dict[str, list[dict[str, Any]]] = {}
    for job in jobs:
        key = (job.get("labels") or {}).get(submission_labels.SUBMISSION_LABEL)
        if key and job.get("state") in states.ACTIVE:
            by_key.setdefault(key, []).append(job)
    return {job["name"] for copies in by_key.values() for job in ordering.oldest_first(copies)[1:]}


def parents_crossed(stack: Stack, state: StackState, extra_locations: list[str]) -> list[str]:
    """Where the stack's jobs may be, every project crossed with every location (unlike the
    CLI's parents_of_jobs, which takes each job's own pairs): its gcp:project and gcp:region, every project and
    location of a job in state (a job may set its own, and an attempt may have run in
    another region), every region a fallback ladder of the config or of the state
    names, crossed, plus --location."""
    projects = {stack.gcp_project} | {project for project, _ in state.places}
    locations = {stack.region, *stack.ladder_regions} | {location for _, location in state.places} | set(extra_locations)
    return [parent_of(p, loc) for p in sorted(projects) for loc in sorted(locations)]


HEADER = ("STATUS", "JOB", "DISPLAY NAME", "STATE", "CREATED", "CONSOLE")


def rows(findings: list[Finding]) -> list[tuple[str, ...]]:
    return [
        (str(f.status), f.job["name"], f.job.get("displayName") or "-", f.job.get("state") or "-",
         f.job.get("createTime") or "-", JobName.parse(f.job["name"]).console_url)
        for f in findings
    ]


def table(findings: list[Finding]) -> str:
    return tables.plain(HEADER, rows(findings))


@dataclass(frozen=True)
class Output:
    """Where the sweep writes its table and its lines: plain text by default; `spot-training
    sweep` passes its own (on a terminal: the table folded to the width, the lines wrapped)."""

    table: Callable[[Sequence[str], list[tuple[str, ...]]], None] = lambda header, found: print(tables.plain(header, found))
    line: Callable[[str], None] = print


PLAIN = Output()


# How the sweep is run again, for the --cancel it suggests; `spot-training sweep` passes its own.
COMMAND = ("uv", "run", "python", "-m", "operations.sweep")


def _parser(prog: str = "python -m operations.sweep") -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog=prog,
        description="List a stack's Vertex AI jobs that its state does not point to: active ones (with --cancel, "
                    "cancelled) and the records of ended ones (with --delete-ended, deleted).",
    )
    parser.add_argument("stack", help="a stack of stacks/, e.g. dev")
    parser.add_argument("--state", type=Path, metavar="FILE",
                        help="the stack's state, as `pulumi stack export` prints it (default: run that command)")
    parser.add_argument("--location", action="append", default=[], metavar="LOCATION",
                        help="also search this region (repeatable); the stack's gcp:region and the locations "
                             "of the jobs in state are always searched")
    parser.add_argument("--cancel", action="store_true", help="cancel the orphaned jobs")
    parser.add_argument("--delete-ended", action="store_true",
                        help="delete the records of the ended jobs no state points to (a job still CANCELLING is "
                             "left for a later sweep)")
    parser.add_argument("--include-released", action="store_true",
                        help="with --cancel or --delete-ended: the released ones (onDelete: keep) too")
    return parser


def main(argv: list[str] | None = None, command: tuple[str, ...] = COMMAND, out: Output = PLAIN) -> int:
    argv = sys.argv[1:] if argv is None else list(argv)
    parser = _parser(" ".join(command[2:]))
    args = parser.parse_args(argv)
    if args.include_released and not (args.cancel or args.delete_ended):
        parser.error(INCLUDE_RELEASED_ALONE)
    try:
        stack = Stack.load(args.stack)
        state = StackState.from_file(args.state, stack) if args.state else StackState.export(stack)
    except (StackError, StateError) as error:
        return _fail(error)
    # Imported once the inputs are known good: the Google client takes seconds to import.
    from components.spot_job.client import job_service

    try:
        return _sweep(args, [*command, *argv], stack, state, out)
    except job_service.VertexError as error:
        return _fail(error)


def _fail(error: Exception) -> int:
    print(f"sweep: {error}", file=sys.stderr)
    return ERROR


def _sweep(args: argparse.Namespace, command: list[str], stack: Stack, state: StackState, out: Output) -> int:
    from components.spot_job.client import job_service

    if state.pending:
        # An update that is running now has submitted jobs it has not recorded yet;
        # one that was interrupted left them behind (what this sweep is for).
        print(
            f"sweep: {state.source} records operations not finished: "
            + "; ".join(f"{urn} ({op})" for urn, op in state.pending)
            + ". If an update is running now, the jobs it is submitting show as ORPHANED (and those it adopts as"
            " ENDED or ORPHANED): run the sweep once it ends.",
            file=sys.stderr,
        )
    where = parents_crossed(stack, state, args.location)
    stack_label = submission_labels.stack_value(stack.scope)
    findings: list[Finding] = []
    for location in sorted({split_parent(parent)[1] for parent in where}):
        service = job_service.JobService(location)
        for parent in where:
            if split_parent(parent)[1] == location:
                findings += unaccounted(service.labelled(parent, submission_labels.STACK_LABEL, stack_label), state)
    if not findings:
        out.line(f"No job of stack {stack.name} ({stack.project}) outside its state in: {', '.join(where)}")
        return DONE

    out.table(HEADER, rows(findings))
    orphans = [f for f in findings if f.status is Status.ORPHANED]
    released = [f for f in findings if f.status is Status.RELEASED and f.active]
    released_records = [f for f in findings if f.status is Status.RELEASED and f.ended]
    stopping = [f for f in findings if f.status is Status.STOPPING]
    records = [f for f in findings if f.status is Status.ENDED]
    out.line("")
    if orphans:
        out.line(f"{Status.ORPHANED}: {len(orphans)} job(s) no resource of the stack's state points to; each bills until it ends.")
    if released or released_records:
        out.line(f"{Status.RELEASED}: {len(released) + len(released_records)} job(s) submitted with onDelete: keep, left on "
              f"purpose ({len(released)} active, {len(released_records)} ended).")
    if stopping:
        out.line(f"{Status.STOPPING}: {len(stopping)} job(s) cancelled and still stopping; their records can be deleted once "
              "they have ended: run the sweep again later, with --delete-ended.")
    if records:
        out.line(f"{Status.ENDED}: {len(records)} record(s) of jobs that ended; they bill nothing.")

    deletable = records + (released_records if args.include_released else [])
    if args.cancel:
        for f in orphans + (released if args.include_released else []):
            now = _cancel(f, out)
            if now is not None and now.get("state") in states.STOPPING:
                stopping.append(Finding(now, Status.STOPPING))
            elif now is not None and Finding(now, f.status).ended:
                deletable.append(Finding(now, f.status))  # stopped at once: its record can go now too
        if released and not args.include_released:
            out.line(f"Left the {Status.RELEASED} job(s) running; add --include-released to cancel them too.")
    left: list[Finding] = []
    if args.delete_ended:
        for f in deletable:
            if not _delete(f, out):
                left.append(f)
        for f in stopping:
            out.line(f"{f.job['name']} is still {states.CANCELLING}: run the sweep again later to delete its record.")
        if released_records and not args.include_released:
            out.line(f"Left the ended {Status.RELEASED} record(s); add --include-released to delete them too.")
    elif records or (released_records and args.include_released):
        out.line(f"To delete the {Status.ENDED} records: {shlex.join([*command, '--delete-ended'])}")

    if orphans and not args.cancel:
        out.line(f"To cancel the orphaned ones: {shlex.join([*command, '--cancel'])}")
        return ORPHANS_LEFT
    if args.delete_ended and (stopping or left):
        return STILL_STOPPING
    return DONE


def _cancel(f: Finding, out: Output) -> dict[str, Any] | None:
    """Cancel the job; the job as Vertex shows it right after (None once it is gone)."""
    from components.spot_job.client import job_service

    name = f.job["name"]
    service = job_service.JobService(JobName.parse(name).location)
    service.cancel(name)
    now = service.get(name)
    out.line(f"cancelled {name} ({f.job.get('displayName') or '-'}, {f.status}): now {(now or {}).get('state', 'gone')}")
    return now


def _delete(f: Finding, out: Output) -> bool:
    """Delete the ended job's record and wait for it; False if Vertex refused (the job changed meanwhile)."""
    from google.api_core import exceptions

    from components.spot_job.client import job_service

    name = f.job["name"]
    try:
        service = job_service.JobService(JobName.parse(name).location)
        service.delete_record(name, DELETE_TIMEOUT)
    except exceptions.FailedPrecondition as refused:
        out.line(f"not deleted {name}: {refused.message}; run the sweep again later.")
        return False
    out.line(f"deleted {name} ({f.job.get('displayName') or '-'}, {f.job.get('state')})")
    return True


if __name__ == "__main__":
    sys.exit(main())
