"""`spot-training status STACK`: the stack's jobs as Vertex AI sees them, found by the
stack's label (every job spot-training submits carries it): one row per submission,
with its state, attempt, strategy, region, times and console page. Needs Google credentials.

Exit 0 with the table (or "no job"), 2 for an unknown stack or an error from Google.
"""

from __future__ import annotations

import typer

from cli import arguments, deployed, output
from components.spot_job.job_name import JobName


def register(app: typer.Typer) -> None:
    app.command(name="status")(status)


def status(
    stack: str = arguments.STACK,
    location: list[str] = arguments.LOCATIONS,
) -> None:
    """The stack's jobs on Vertex AI: state, attempt, strategy, region, start and end, console link. Needs Google credentials."""
    from components.spot_job import labels

    target = deployed.load(stack)
    jobs = deployed.rendered(target)
    names = {labels.resource_value(f"{target.scope}/{team}-{job}"): f"{team}/{job}" for team, _, job in (n.partition("/") for n in jobs)}
    where = deployed.parents_of_jobs(target, jobs, location)
    with deployed.google_errors():
        found = deployed.with_attempts(deployed.labelled(where, labels.STACK_LABEL, labels.stack_value(target.scope)), names)
    if not found:
        print(f"No job of stack {stack} ({target.project}) in: {', '.join(where)}")
        return
    output.table(
        ("JOB", "STATE", "ATTEMPT", "STRATEGY", "REGION", "STARTED", "ENDED", "CONSOLE"),
        [
            (
                f.name,
                f.job.get("state") or "-",
                str(f.attempt),
                ((f.job.get("jobSpec") or {}).get("scheduling") or {}).get("strategy") or "STRATEGY_UNSPECIFIED",
                JobName.parse(f.job["name"]).location,  # a fallback rung may have moved the attempt
                f.job.get("startTime") or "-",
                f.job.get("endTime") or "-",
                JobName.parse(f.job["name"]).console_url,
            )
            for f in found
        ],
    )
