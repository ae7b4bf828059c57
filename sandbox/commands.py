"""What `spot-training sandbox up | down | preempt` do, apart from printing: cli/sandbox.py prints.

`up` starts or reuses the stack's services (services.py), then runs the stack's
program under the engine against them (stack.py); `down` destroys the stack as
`pulumi destroy` does (the provider cancels and deletes the jobs) and stops the
services; `preempt` asks the JobService's developer API to reclaim a running
job's Spot VMs. The provider is told nothing of the sandbox but its endpoints.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from google.cloud import aiplatform_v1

from sandbox import drill as drills
from sandbox import endpoints, engine, services
from sandbox.endpoints import Endpoints
from sandbox.jobservice import developer_api
from sandbox.stack import JOB_TYPE, SandboxStack, exclusive
from sandbox.workspace import Workspace
from stack_config import stack_file


@dataclass(frozen=True)
class UpOutcome:
    engine: engine.Engine
    services: services.Services
    result: str  # "succeeded" or "failed"
    jobs: dict[str, dict[str, Any]]  # "team/job" -> {name, state, simulated}


def up(stack: str, say: Callable[[str], None], port: int = 0, storage_port: int = 0, run_for: float = 30.0,
       preempt_every: float = 0.0, seed: int = 0, grace: float = 30.0) -> UpOutcome:
    workspace = Workspace.of(stack)
    user_file = stack_file.path(stack)
    found = engine.find()
    with exclusive(workspace):
        running = services.ensure(workspace, port, storage_port, run_for)
        target = SandboxStack(workspace, found, running.endpoints)
        target.prepare(user_file)
    with exclusive(workspace, target):
        say(f"engine: {found.describe()}")
        how = "reused" if running.reused else "started"
        say(f"services {how}: JobService {running.endpoints.jobservice}, Cloud Storage {running.endpoints.storage} (logs: {workspace.service_log})")
        result = target.up(say)
        developer_api.call(running.endpoints.jobservice, "Chaos", {"every": preempt_every, "seed": seed, "grace": grace})
        return UpOutcome(found, running, result.summary.result, job_summary(target, running.endpoints))


def down(stack: str, say: Callable[[str], None]) -> list[int]:
    """Destroy the stack in the sandbox, then stop its services; the pids stopped."""
    workspace = Workspace.of(stack)
    if not workspace.exists():
        return []
    found = engine.find()
    with exclusive(workspace):
        running = services.running(workspace)
        if running is None and workspace.stack_file_made():
            running = services.ensure(workspace)  # the destroy must reach the jobs: bring the services back first
    with exclusive(workspace, SandboxStack(workspace, found, running.endpoints) if running else None):
        if running is not None:
            target = SandboxStack(workspace, found, running.endpoints)
            say(f"engine: {found.describe()}")
            target.destroy(say)
        return services.stop(workspace)


def preempt(stack: str, job: str, replica: str | None, grace: float, for_good: bool) -> str:
    workspace = Workspace.of(stack)
    running = services.running(workspace)
    if running is None:
        raise developer_api.DeveloperError(f"stack {stack} has no sandbox running: start it with `spot-training sandbox up {stack}`")
    name = job_name(workspace, running.endpoints, job)
    request: dict[str, Any] = {"job": name, "grace": grace, "forGood": for_good}
    if replica:
        request["replica"] = replica
    try:
        return str(developer_api.call(running.endpoints.jobservice, "Preempt", request)["message"])
    except developer_api.DeveloperError as refused:  # the JobService knows the CustomJob, the user typed TEAM/JOB
        raise developer_api.DeveloperError(str(refused).replace(name, f"{job} ({name})", 1)) from None


def drill(stack: str, job: str, say: Callable[[str], None], count: int, seed: int, grace: float,
          tolerance: float | None) -> drills.Outcome:
    """Run TEAM/JOB's spec twice in the stack's sandbox, alone and preempted `count` times (sandbox/drill.py)."""
    from google.protobuf import json_format

    from components.spot_job.client.job_service import job_service_client
    from sandbox.gcp.storage import Storage
    from sandbox.jobservice.runner import simulated

    workspace = Workspace.of(stack)
    running = services.running(workspace)
    if running is None:
        raise developer_api.DeveloperError(f"stack {stack} has no sandbox running: start it with `spot-training sandbox up {stack}`")
    name = job_name(workspace, running.endpoints, job)
    with endpoints.pointed(workspace, running.endpoints):
        client = job_service_client(name.split("/")[3])
        source = json_format.MessageToDict(aiplatform_v1.CustomJob.pb(client.get_custom_job(name=name)))
        if simulated(source):
            raise developer_api.DeveloperError(f"{job} is a containerSpec job: the sandbox simulates it and runs no code, so there is nothing to drill (docs/sandbox.md)")
        strategy = ((source.get("jobSpec") or {}).get("scheduling") or {}).get("strategy") or "STANDARD"
        if strategy != "SPOT":
            raise developer_api.DeveloperError(f"{job} runs on {strategy}, not SPOT: only Spot VMs are preempted")
        return drills.Drill(client, Storage(running.endpoints.storage), running.endpoints.jobservice, say).run(
            source, job, count, seed, grace, tolerance,
        )


def exported(stack: str) -> dict[str, Any]:
    """The stack's state in the sandbox, as `pulumi stack export` prints it (what `sweep --sandbox` reads)."""
    workspace = Workspace.of(stack)
    running = services.running(workspace)
    if running is None or not workspace.stack_file_made():
        raise developer_api.DeveloperError(f"stack {stack} has no sandbox running: start it with `spot-training sandbox up {stack}`")
    return {"version": 3, "deployment": SandboxStack(workspace, engine.find(), running.endpoints).export()}


def job_name(workspace: Workspace, endpoints: Endpoints, job: str) -> str:
    """The CustomJob the stack's state holds for TEAM/JOB (its latest attempt)."""
    team, _, name = job.partition("/")
    target = SandboxStack(workspace, engine.find(), endpoints)
    for resource in target.export().get("resources") or []:
        if resource.get("type") == JOB_TYPE and resource["urn"].endswith(f"::{team}-{name}"):
            found = (resource.get("outputs") or {}).get("jobName")
            if found:
                return str(found)
    raise developer_api.DeveloperError(f"{job} has no job in the sandbox's state: run `spot-training sandbox up {workspace.stack}` first")


def job_summary(target: SandboxStack, endpoints: Endpoints) -> dict[str, dict[str, Any]]:
    """Each job of the stack: its CustomJob, state, and whether the sandbox runs its code or simulates it."""
    described = {j["name"]: j for j in developer_api.call(endpoints.jobservice, "Describe", {})["jobs"]}
    by_resource = {
        r["urn"].rsplit("::", 1)[1]: r.get("outputs") or {} for r in target.export().get("resources") or [] if r.get("type") == JOB_TYPE
    }
    jobs = {}
    for team, job in declared_jobs(target):
        outputs = by_resource.get(f"{team}-{job}", {})
        name = outputs.get("jobName") or ""
        jobs[f"{team}/{job}"] = {
            "name": name, "state": outputs.get("state") or "", "simulated": bool(described.get(name, {}).get("simulated", True)),
        }
    return jobs


def declared_jobs(target: SandboxStack) -> list[tuple[str, str]]:
    """(team, job) of every job the stack file declares."""
    import yaml

    config = (yaml.safe_load(target.stack_file.read_text()) or {}).get("config") or {}
    teams = config.get("spot-training:teams") or {}
    return [(team, job) for team, body in teams.items() for job in ((body or {}).get("jobs") or {})]
