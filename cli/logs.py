"""`spot-training logs STACK TEAM/JOB`: where the job's logs are: its newest submission's
Cloud Logging query, and the gcloud commands that stream or read it. Fetches no log
itself; finding the job needs Google credentials (roles/aiplatform.viewer).

Exit 0 with the commands, 1 if the job was never submitted, 2 for a bad argument,
an unknown stack or an error from Google.
"""

from __future__ import annotations

import shlex

import typer

from cli import arguments, deployed, output
from components.spot_job.model.job_name import JobName

# Cloud Logging keeps a project's logs 30 days by default; `gcloud logging read` looks back 1 day unless told.
FRESHNESS = "30d"


def register(app: typer.Typer) -> None:
    app.command(name="logs")(logs)


def query(job_id: str) -> str:
    """The Cloud Logging filter of a CustomJob's logs (its monitored resource is ml_job)."""
    return f'resource.type="ml_job" AND resource.labels.job_id="{job_id}"'


def logs(
    stack: str = arguments.STACK,
    job: str = arguments.TEAM_JOB,
    location: list[str] = arguments.LOCATIONS,
) -> None:
    """The job's Cloud Logging query and the gcloud commands that stream it. Needs Google credentials to find the job.

    \b
    Examples:
      spot-training logs dev vision/resnet-smoke
    """

    _, where, submitted = deployed.submissions(stack, job, location)
    found = deployed.with_attempts(submitted, {})
    if not found:
        output.error(f"no job of {job} was submitted in stack {stack} (searched: {', '.join(where)})")
        raise typer.Exit(1)
    newest = found[-1]
    name = JobName.parse(newest.job["name"])
    project, region, job_id = name.project, name.location, name.id
    print(f"{job}: {newest.job['name']} ({newest.job.get('state')}, attempt {newest.attempt} of {len(found)})")
    print(f"\nCloud Logging query (project {project}):\n  {query(job_id)}")
    print(f"\nStream it while the job runs:\n  {shlex.join(['gcloud', 'ai', 'custom-jobs', 'stream-logs', job_id, f'--project={project}', f'--region={region}'])}")
    print(f"\nRead what it wrote (newest first):\n  {shlex.join(['gcloud', 'logging', 'read', query(job_id), f'--project={project}', f'--freshness={FRESHNESS}'])}")
    print(f"\nConsole: {name.console_url}")
    if len(found) > 1:
        earlier = ", ".join(f"{JobName.parse(f.job['name']).id} ({f.job.get('state')})" for f in found[:-1])
        print(f"Earlier attempts: {earlier}; their logs: the same query with their job id")
