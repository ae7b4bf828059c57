"""What the verbs that ask Vertex AI share: the stack (operations.stack), where its
jobs may be, the jobs found by spot-training's labels, and Google's errors as one
clean message (exit 2).

They need Google credentials (application-default, as `pulumi up` uses) with
roles/aiplatform.viewer, or roles/aiplatform.user to cancel; with
AIPLATFORM_EMULATOR_HOST set they talk to that emulator instead.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import typer

if TYPE_CHECKING:
    from operations.stack import Stack

from cli import output
from components.spot_job.model.job_name import JobName, parent_of, split_parent


@dataclass(frozen=True)
class Found:
    name: str  # "team/job"
    job: dict[str, Any]  # the CustomJob as Vertex returns it (REST-shaped)
    attempt: int  # its place among its resource's submissions, by create time


def load(stack: str) -> Stack:
    """The stack's project, region and label scope; exit 2 if there is no such stack."""
    from operations.stack import Stack, StackError

    try:
        return Stack.load(stack)
    except StackError as problem:
        output.error(str(problem))
        raise typer.Exit(2) from None


def enter_sandbox(stack: str) -> None:
    """Point this command at the stack's sandbox (sandbox/endpoints.py), or exit 2 saying how to start it."""
    from sandbox.endpoints import SandboxNotRunning, enter

    try:
        enter(stack)
    except SandboxNotRunning as problem:
        output.error(str(problem))
        raise typer.Exit(2) from None


def submissions(stack: str, job: str, location: list[str]) -> tuple[Any, list[str], list[dict[str, Any]]]:
    """The stack, where its job TEAM/JOB may be, and every submission of that job (cancel, logs)."""
    team, name = team_job(job)
    target = load(stack)
    check_locations(stack, location)
    jobs = rendered(target)
    if jobs and job not in jobs:  # checked before any call: a typo is told as one, not as missing credentials
        removed = (
            f" A job removed from the config is the next `pulumi up`'s to cancel or keep (its onDelete); "
            f"`spot-training sweep {stack}` finds what no state points to"
        )
        output.error(not_a_job(job, stack, sorted(jobs)) + removed)
        raise typer.Exit(2)
    where = parents_of_jobs(target, {job: jobs[job]} if job in jobs else {}, location)
    with google_errors():
        return target, where, of_resource(where, target, team, name)


def team_job(value: str) -> tuple[str, str]:
    """TEAM/JOB, or exit 2 if it names no job a stack can have (stack_config.job_names)."""
    from stack_config.job_names import team_job_failure

    problem = team_job_failure(value)
    if problem is not None:
        output.error(problem)
        raise typer.Exit(2)
    team, _, job = value.partition("/")
    return team, job


def check_locations(stack: str, locations: list[str]) -> None:
    """Each --location is a region Vertex AI training runs in (or the stack's spot-training:extraRegions),
    or exit 2 with the nearest one: checked before any call, as the stack's own regions are at validate."""
    from stack_config import place, stack_file
    from stack_config.keys import NS

    extra = (stack_file.read(stack) or {}).get(f"{NS}:extraRegions")
    for location in locations:
        failures: list[str] = []
        place.region(location, [r for r in extra if isinstance(r, str)] if isinstance(extra, list) else [], failures, "--location")
        if failures:
            output.error(failures[0])
            raise typer.Exit(2)


def not_a_job(job: str, stack: str, jobs: list[str]) -> str:
    """The message for a TEAM/JOB the rendered stack does not have: its jobs, and the nearest one."""
    import difflib

    near = difflib.get_close_matches(job, jobs, n=1)
    hint = f"; did you mean {near[0]}?" if near else "."
    return f"{job} is not a job of stack {stack} (its jobs: {', '.join(jobs)}){hint}"


def resource_label(stack: Stack, team: str, job: str) -> str:
    """The spot_training_resource label of every job the resource TEAM-JOB of the stack submitted."""
    from components.spot_job.model import submission_labels

    return submission_labels.resource_value(f"{stack.scope}/{team}-{job}")


def rendered(stack: Stack) -> dict[str, dict[str, Any]]:
    """The stack's jobs as this checkout renders them ("team/job" -> inputs), or none if it does
    not render: only names and extra locations come from here, never what is cancelled."""
    from cli.diff import InvalidStack, jobs_of
    from offline.program import UnknownStack

    try:
        with output.progress(f"rendering {stack.name} to name its jobs"):
            return jobs_of(stack.name)
    except (InvalidStack, UnknownStack):
        output.note(f"stack {stack.name} does not render here; jobs are named by their labels")
        return {}


def parents_of_jobs(stack: Stack, jobs: dict[str, dict[str, Any]], locations: list[str]) -> list[str]:
    """Each (project, location) a job of the rendered stack may run in, not crossed (the sweep
    crosses them, operations.sweep.parents_crossed): the stack's gcp:project and gcp:region,
    every job's own and every region its fallback ladder may move it to, and --location."""
    from components.spot_job.model.job_inputs import JobInputs

    places = {(stack.gcp_project, stack.region)}
    places |= {(str(i["project"]), loc) for i in jobs.values() if i.get("project") for loc in JobInputs.of(i).locations()}
    places |= {(stack.gcp_project, location) for location in locations}
    return [parent_of(p, loc) for p, loc in sorted(places)]


def labelled(where: list[str], label: str, value: str) -> list[dict[str, Any]]:
    from components.spot_job.client import job_service

    found = []
    for location in sorted({split_parent(parent)[1] for parent in where}):
        service = job_service.JobService(location)
        with output.progress(f"listing the stack's jobs in {location}"):
            for parent in where:
                if split_parent(parent)[1] == location:
                    found += service.labelled(parent, label, value)
    return found


def of_resource(where: list[str], stack: Stack, team: str, job: str) -> list[dict[str, Any]]:
    """The jobs the resource TEAM-JOB of the stack submitted: its resource label, and (checked
    here too, as a create checks before it adopts) the stack's label."""
    from components.spot_job.model import submission_labels

    jobs = labelled(where, submission_labels.RESOURCE_LABEL, resource_label(stack, team, job))
    return [j for j in jobs if (j.get("labels") or {}).get(submission_labels.STACK_LABEL) == submission_labels.stack_value(stack.scope)]


def with_attempts(jobs: list[dict[str, Any]], names: dict[str, str]) -> list[Found]:
    """Each job, named (by `names`, resource label -> team/job, else its labels and display
    name) and numbered among its resource's submissions, oldest first."""
    from components.spot_job.model import ordering, submission_labels

    by_resource: dict[str, list[dict[str, Any]]] = {}
    for job in ordering.oldest_first(jobs):
        by_resource.setdefault((job.get("labels") or {}).get(submission_labels.RESOURCE_LABEL) or job["name"], []).append(job)
    found = []
    for resource, submitted in by_resource.items():
        for attempt, job in enumerate(submitted, 1):
            found.append(Found(names.get(resource) or _named_by_labels(job), job, attempt))
    return sorted(found, key=lambda f: (f.name, f.attempt))


def _named_by_labels(job: dict[str, Any]) -> str:
    team = (job.get("labels") or {}).get("team") or "?"
    return f"{team}/{(job.get('displayName') or JobName.parse(job['name']).id).removeprefix(f'{team}-')}"


@contextmanager
def google_errors() -> Iterator[None]:
    """Vertex AI's and Google auth's errors as one message and exit 2."""
    from google.api_core import exceptions
    from google.auth import exceptions as auth

    from components.spot_job.client import job_service

    try:
        yield
    except job_service.VertexError as problem:
        output.error(str(problem))
        raise typer.Exit(2) from None
    except auth.GoogleAuthError as problem:
        output.error(
            f"no usable Google credentials: {' '.join(str(problem).split()).rstrip('.')}. Sign in with "
            "`gcloud auth application-default login` (or set GOOGLE_APPLICATION_CREDENTIALS)"
        )
        raise typer.Exit(2) from None
    except exceptions.GoogleAPICallError as problem:
        output.error(f"Vertex AI: {problem.message or problem}")
        raise typer.Exit(2) from None
