"""`spot-training status STACK`: the stack's jobs as Vertex AI sees them, found by the
stack's label (every job spot-training submits carries it): one row per submission,
with its state, attempt, strategy, region, times, the training's progress and console
page. Needs Google credentials.

The progress comes from the progress record the training runtime keeps beside the
checkpoints (components/spot_job/model/progress.py): one Cloud Storage read per job
resource, not per attempt, as the record remembers the attempts before the latest.

Exit 0 with the table (or "no job"), 2 for an unknown stack or an error from Google.
"""

from __future__ import annotations

from typing import Any

import typer

from cli import arguments, deployed, output
from components.spot_job.model.job_name import JobName


def register(app: typer.Typer) -> None:
    app.command(name="status")(status)


def status(
    stack: str = arguments.STACK,
    location: list[str] = arguments.LOCATIONS,
    sandbox: bool = arguments.SANDBOX,
) -> None:
    """The stack's jobs on Vertex AI: state, attempt, strategy, region, start and end, console link. Needs Google credentials.

    \b
    Examples:
      spot-training status dev
      spot-training status dev --location us-east1
    """
    if sandbox:
        deployed.enter_sandbox(stack)
    from components.spot_job.model import submission_labels

    target = deployed.load(stack)
    deployed.check_locations(stack, location)
    jobs = deployed.rendered(target)
    names = {submission_labels.resource_value(f"{target.scope}/{team}-{job}"): f"{team}/{job}" for team, _, job in (n.partition("/") for n in jobs)}
    where = deployed.parents_of_jobs(target, jobs, location)
    with deployed.google_errors():
        found = deployed.with_attempts(deployed.labelled(where, submission_labels.STACK_LABEL, submission_labels.stack_value(target.scope)), names)
    if not found:
        print(f"No job of stack {stack} ({target.project}) in: {', '.join(where)}")
        return
    records = _records(found)
    output.table(
        ("JOB", "STATE", "ATTEMPT", "STRATEGY", "REGION", "STARTED", "ENDED", "PROGRESS", "CONSOLE"),
        [
            (
                f.name,
                f.job.get("state") or "-",
                str(f.attempt),
                ((f.job.get("jobSpec") or {}).get("scheduling") or {}).get("strategy") or "STRATEGY_UNSPECIFIED",
                JobName.parse(f.job["name"]).location,  # a fallback rung may have moved the attempt
                f.job.get("startTime") or "-",
                f.job.get("endTime") or "-",
                _progress(records, f.job),
                JobName.parse(f.job["name"]).console_url,
            )
            for f in found
        ],
    )


def _records(found: list[deployed.Found]) -> dict[str, dict[str, Any] | None]:
    """Each job resource's progress record, by its URI: read once, whatever number of attempts."""
    from components.spot_job.client import progress_record
    from components.spot_job.model import progress

    records: dict[str, dict[str, Any] | None] = {}
    if not progress_record.readable():  # emulated jobs wrote to no real bucket
        return records
    for f in found:
        uri = progress.record_uri(progress.output_dir(f.job))
        if uri is None or uri in records:
            continue
        with output.progress(f"reading {uri}"):
            records[uri], why = progress_record.fetch(uri, JobName.parse(f.job["name"]).project)
        if why:
            output.note(f"{f.name}: progress unknown: {why}")
    return records


def _progress(records: dict[str, dict[str, Any] | None], job: dict[str, Any]) -> str:
    """The steps the attempt checkpointed, "from→to of total", as its job's record tells them; "-" if it does not."""
    from components.spot_job.model import progress

    uri = progress.record_uri(progress.output_dir(job))
    made = progress.reported(records.get(uri) if uri else None, JobName.parse(job["name"]).id)
    if made is None or made.step is None:
        return "-"
    return f"{made.start_step}→{made.step}" + (f" of {made.total_steps}" if made.total_steps else "")
