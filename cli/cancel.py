"""`spot-training cancel STACK TEAM/JOB`: cancels the job's active Vertex AI job(s), found
by the resource's label, and says what it cancelled. Needs Google credentials
(roles/aiplatform.user).

Pulumi's state still holds the job: the next `pulumi up` sees it ended (CANCELLED)
and leaves it so unless its spec or `rerun` changes. Exit 0 once cancelled, 1 if
no job of it is active, 2 for a bad argument, an unknown stack or an error from Google.
"""

from __future__ import annotations

import typer

from cli import arguments, deployed, output
from components.spot_job.model.job_name import JobName


def register(app: typer.Typer) -> None:
    app.command(name="cancel")(cancel)


def cancel(
    stack: str = arguments.STACK,
    job: str = arguments.TEAM_JOB,
    location: list[str] = arguments.LOCATIONS,
    sandbox: bool = arguments.SANDBOX,
) -> None:
    """Cancel the job's active Vertex AI job(s). Needs Google credentials.

    \b
    Examples:
      spot-training cancel dev vision/resnet-smoke
    """
    if sandbox:
        deployed.enter_sandbox(stack)
    from components.spot_job.client import job_service
    from components.spot_job.model import states

    _, _, found = deployed.submissions(stack, job, location)
    with deployed.google_errors():
        active = [j for j in found if j.get("state") in states.ACTIVE]
        if not active:
            ended = ", ".join(f"{JobName.parse(j['name']).id} {j.get('state')}" for j in found) or "none submitted"
            output.error(f"no active job of {job} in stack {stack} (its jobs: {ended}); nothing cancelled")
            raise typer.Exit(1)
        for j in active:
            service = job_service.JobService(JobName.parse(j["name"]).location)
            service.cancel(j["name"])
            now = service.get(j["name"])
            print(f"cancelled {j['name']} ({job}, was {j.get('state')}): now {(now or {}).get('state', 'gone')}")
