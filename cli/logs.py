"""`spot-training logs STACK TEAM/JOB`: where the job's logs are: its newest submission's
Cloud Logging query, and the gcloud commands that stream or read it. Fetches no log
itself; finding the job needs Google credentials (roles/aiplatform.viewer).

Exit 0 with the commands, 1 if the job was never submitted, 2 for a bad argument,
an unknown stack or an error from Google.
"""

from __future__ import annotations

import shlex
from typing import Any

import typer

from cli import arguments, deployed, output
from components.spot_job.model.job_name import JobName

# Cloud Logging keeps a project's logs 30 days by default; `gcloud logging read` looks back 1 day unless told.
FRESHNESS = "30d"
ENDED = ("JOB_STATE_SUCCEEDED", "JOB_STATE_FAILED", "JOB_STATE_CANCELLED", "JOB_STATE_EXPIRED")


def register(app: typer.Typer) -> None:
    app.command(name="logs")(logs)


def query(job_id: str) -> str:
    """The Cloud Logging filter of a CustomJob's logs (its monitored resource is ml_job)."""
    return f'resource.type="ml_job" AND resource.labels.job_id="{job_id}"'


def logs(
    stack: str = arguments.STACK,
    job: str = arguments.TEAM_JOB,
    location: list[str] = arguments.LOCATIONS,
    sandbox: bool = arguments.SANDBOX,
    follow: bool = typer.Option(False, "--follow", "-f", help="with --sandbox: print what the job writes until it ends"),
) -> None:
    """The job's Cloud Logging query and the gcloud commands that stream it. Needs Google credentials to find the job.
    With --sandbox: the job's own log files in the sandbox, every attempt and replica.

    \b
    Examples:
      spot-training logs dev vision/resnet-smoke
      spot-training logs dev tabular/baseline --sandbox --follow
    """

    if follow and not sandbox:
        output.error("--follow reads the sandbox's log files (with --sandbox); against Google, stream with the gcloud command logs prints")
        raise typer.Exit(2)
    if sandbox:
        deployed.enter_sandbox(stack)
    _, where, submitted = deployed.submissions(stack, job, location)
    found = deployed.with_attempts(submitted, {})
    if not found:
        output.error(f"no job of {job} was submitted in stack {stack} (searched: {', '.join(where)})")
        raise typer.Exit(1)
    newest = found[-1]
    if sandbox:
        _sandbox_logs(stack, job, [f.job for f in found], follow)
        return
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


def _sandbox_logs(stack: str, job: str, submitted: list[dict[str, Any]], follow: bool) -> None:
    """Every submission's log files, oldest first (a resubmission after a STOCKOUT is a job of its own), each
    attempt and replica; with follow, the newest's until it ends."""
    from components.spot_job.client.job_service import job_service_client
    from sandbox import logs as sandbox_logs
    from sandbox.workspace import Workspace

    workspace = Workspace.of(stack)
    printer = sandbox_logs.Follower(print)
    for number, each in enumerate(submitted, 1):
        name = JobName.parse(each["name"])
        print(f"{job}: {each['name']} ({each.get('state')}), submission {number} of {len(submitted)}, in the sandbox")
        if not sandbox_logs.files(workspace, name.id):
            pools = (each.get("jobSpec") or {}).get("workerPoolSpecs") or []
            ran = any(p.get("pythonPackageSpec") for p in pools)
            print("  no log yet: its replicas have not started" if ran else "  simulated: its image is not run, so it writes no log (docs/sandbox.md)")
        printer.catch_up(sandbox_logs.files(workspace, name.id))
    if follow:
        newest = JobName.parse(submitted[-1]["name"])
        client = job_service_client(newest.location)

        def ended() -> bool:
            return str(client.get_custom_job(name=submitted[-1]["name"]).state.name) in ENDED

        sandbox_logs.follow(workspace, newest.id, ended, printer)
