"""The orphan sweep: a stack's active jobs that no resource of its state points to.

A job is submitted before the engine records it, so an `up` interrupted in
between leaves a job that only its labels tie to the stack. The next `create`
of that resource finds it and cancels it; when no create comes (the stack was
destroyed, or the job removed from the program), nothing else will, and it
bills until it ends. This lists such jobs by the stack's label and, with
--cancel, cancels them. Jobs submitted with `onDelete: keep` were released on
purpose: shown, never cancelled unless --include-released.

    uv run python -m operations.sweep <stack> [--state FILE] [--location L]... [--cancel [--include-released]]

Exit codes: 0 nothing orphaned (or all cancelled), 1 orphans found (and not
cancelled), 2 an error.
"""

from __future__ import annotations

import argparse
import shlex
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from components.spot_job import labels
from offline import table as tables

from .stack import Stack, StackError
from .state import StackState, StateError

ORPHANED, RELEASED = "ORPHANED", "RELEASED"


@dataclass(frozen=True)
class Finding:
    job: dict[str, Any]
    status: str  # ORPHANED or RELEASED


def unaccounted(jobs: list[dict[str, Any]], state: StackState) -> list[Finding]:
    """The active jobs among `jobs` (the stack's) that no resource of `state` points to."""
    found = []
    for job in jobs:
        if job.get("name") in state.job_names or job.get("state") not in labels.ACTIVE_STATES:
            continue
        released = (job.get("labels") or {}).get(labels.RELEASE_LABEL) == labels.RELEASED
        found.append(Finding(job, RELEASED if released else ORPHANED))
    return sorted(found, key=lambda f: (f.status, f.job.get("createTime") or "", f.job["name"]))


def parents_crossed(stack: Stack, state: StackState, extra_locations: list[str]) -> list[str]:
    """Where the stack's jobs may be, every project crossed with every location (unlike the
    CLI's parents_of_jobs, which takes each job's own pairs): its gcp:project and gcp:region, every project and
    location of a job in state (a job may set its own, and an attempt may have run in
    another region), every region a fallback ladder of the config or of the state
    names, crossed, plus --location."""
    projects = {stack.gcp_project} | {project for project, _ in state.places}
    locations = {stack.region, *stack.ladder_regions} | {location for _, location in state.places} | set(extra_locations)
    return [f"projects/{p}/locations/{loc}" for p in sorted(projects) for loc in sorted(locations)]


def table(findings: list[Finding]) -> str:
    from components.spot_job import vertex

    header = ("STATUS", "JOB", "DISPLAY NAME", "STATE", "CREATED", "CONSOLE")
    return tables.plain(header, [
        (f.status, f.job["name"], f.job.get("displayName") or "-", f.job.get("state") or "-",
         f.job.get("createTime") or "-", vertex.console_url(f.job["name"]))
        for f in findings
    ])


# How the sweep is run again, for the --cancel it suggests; `spot-training sweep` passes its own.
COMMAND = ("uv", "run", "python", "-m", "operations.sweep")


def _parser(prog: str = "python -m operations.sweep") -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog=prog,
        description="List (and with --cancel, cancel) a stack's active Vertex AI jobs that its state does not point to.",
    )
    parser.add_argument("stack", help="a stack of stacks/, e.g. dev")
    parser.add_argument("--state", type=Path, metavar="FILE",
                        help="the stack's state, as `pulumi stack export` prints it (default: run that command)")
    parser.add_argument("--location", action="append", default=[], metavar="LOCATION",
                        help="also search this region (repeatable); the stack's gcp:region and the locations "
                             "of the jobs in state are always searched")
    parser.add_argument("--cancel", action="store_true", help="cancel the orphaned jobs")
    parser.add_argument("--include-released", action="store_true",
                        help="with --cancel: cancel the released ones (onDelete: keep) too")
    return parser


def main(argv: list[str] | None = None, command: tuple[str, ...] = COMMAND) -> int:
    argv = sys.argv[1:] if argv is None else list(argv)
    parser = _parser(" ".join(command[2:]))
    args = parser.parse_args(argv)
    if args.include_released and not args.cancel:
        parser.error("--include-released only goes with --cancel")
    try:
        stack = Stack.load(args.stack)
        state = StackState.from_file(args.state, stack) if args.state else StackState.export(stack)
    except (StackError, StateError) as error:
        return _fail(error)
    # Imported once the inputs are known good: the Google client takes seconds to import.
    from components.spot_job import vertex

    try:
        return _sweep(args, [*command, *argv], stack, state)
    except vertex.VertexError as error:
        return _fail(error)


def _fail(error: Exception) -> int:
    print(f"sweep: {error}", file=sys.stderr)
    return 2


def _sweep(args: argparse.Namespace, command: list[str], stack: Stack, state: StackState) -> int:
    from components.spot_job import vertex

    if state.pending:
        # An update that is running now has submitted jobs it has not recorded yet;
        # one that was interrupted left them behind (what this sweep is for).
        print(
            f"sweep: {state.source} records operations not finished: "
            + "; ".join(f"{urn} ({op})" for urn, op in state.pending)
            + ". If an update is running now, the jobs it is submitting show as ORPHANED: run the sweep once it ends.",
            file=sys.stderr,
        )
    where = parents_crossed(stack, state, args.location)
    stack_label = labels.stack_value(stack.scope)
    findings: list[Finding] = []
    for location in sorted({parent.split("/")[3] for parent in where}):
        with vertex.JobService(location) as service:
            for parent in where:
                if parent.split("/")[3] == location:
                    findings += unaccounted(service.labelled(parent, labels.STACK_LABEL, stack_label), state)
    if not findings:
        print(f"No active job of stack {stack.name} ({stack.project}) outside its state in: {', '.join(where)}")
        return 0

    print(table(findings))
    orphans = [f for f in findings if f.status == ORPHANED]
    released = [f for f in findings if f.status == RELEASED]
    print()
    if orphans:
        print(f"{ORPHANED}: {len(orphans)} job(s) no resource of the stack's state points to; each bills until it ends.")
    if released:
        print(f"{RELEASED}: {len(released)} job(s) submitted with onDelete: keep, left to run on purpose.")
    targets = orphans + (released if args.include_released else [])
    if not args.cancel:
        if not orphans:
            return 0
        print(f"To cancel the orphaned ones: {shlex.join([*command, '--cancel'])}")
        return 1
    for f in targets:
        name = f.job["name"]
        with vertex.JobService(name.split("/")[3]) as service:
            service.cancel(name)
            now = service.get(name)
        print(f"cancelled {name} ({f.job.get('displayName') or '-'}, {f.status}): now {(now or {}).get('state', 'gone')}")
    if released and not args.include_released:
        print(f"Left the {RELEASED} job(s) running; add --include-released to cancel them too.")
    return 0


if __name__ == "__main__":
    sys.exit(main())
