"""A stack's state as `pulumi stack export` prints it, read for the jobs it points to."""

from __future__ import annotations

import json
import subprocess
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from components.spot_job.model.job_inputs import JobInputs
from components.spot_job.model.job_state import JobState

from .stack import ROOT, Stack

JOB_TYPE = "pulumi-python:dynamic/spot-training:SpotTrainingJob"
EXPORT_VERSION = 3  # the deployment format `pulumi stack export` has written since Pulumi 1.x
# How `pulumi stack export` writes a secret it was not asked to show.
_SECRET_SIG = "4dabf18193072939515e22adb298388d"


class StateError(ValueError):
    """A state that cannot be read, or is not the stack's."""


@dataclass(frozen=True)
class StackState:
    source: str  # where it came from, for messages
    job_names: frozenset[str]  # every job a resource points to: its id, jobName, history attempts
    # (project, location) of every job resource, of every attempt it made, and of every
    # region its fallback ladder may move it to
    places: frozenset[tuple[str, str]]
    pending: tuple[tuple[str, str], ...]  # (urn, operation) of operations an update has not finished

    @classmethod
    def from_file(cls, path: Path, stack: Stack) -> StackState:
        try:
            text = path.read_text()
        except OSError as error:
            raise StateError(f"cannot read the state file {path}: {error.strerror or error}") from None
        return cls.parse(text, str(path), stack)

    @classmethod
    def export(cls, stack: Stack, root: Path = ROOT) -> StackState:
        command = ["pulumi", "stack", "export", "--stack", stack.name]
        try:
            done = subprocess.run(command, cwd=root, capture_output=True, text=True)
        except FileNotFoundError:
            raise StateError(
                f"the Pulumi CLI (`pulumi`) is not on PATH, so the state cannot be exported here: run "
                f"`pulumi stack export --stack {stack.name} > {stack.name}-state.json` where it is, "
                f"and pass --state {stack.name}-state.json"
            ) from None
        if done.returncode != 0:
            message = " ".join(done.stderr.split()) or f"exit code {done.returncode}"
            raise StateError(f"`{' '.join(command)}` failed: {message}; or pass the exported state with --state FILE")
        return cls.parse(done.stdout, f"the output of `{' '.join(command)}`", stack)

    @classmethod
    def parse(cls, text: str, source: str, stack: Stack) -> StackState:
        try:
            exported = json.loads(text)
        except json.JSONDecodeError as error:
            raise StateError(f"{source} is not the JSON of `pulumi stack export`: {error}") from None
        if not isinstance(exported, dict) or not isinstance(exported.get("deployment"), dict):
            raise StateError(f"{source} has no `deployment`: it is not the output of `pulumi stack export`")
        if exported.get("version") != EXPORT_VERSION:
            raise StateError(
                f"{source} is a deployment of version {exported.get('version')!r}; this sweep reads version "
                f"{EXPORT_VERSION}"
            )
        deployment = exported["deployment"]
        names: set[str] = set()
        places: set[tuple[str, str]] = set()
        for resource in deployment.get("resources") or []:
            urn = _of_stack(resource, source, stack)
            if resource.get("type") != JOB_TYPE:
                continue
            outputs = resource.get("outputs") or resource.get("inputs") or {}
            project = _text(outputs, "project", urn)
            _text(outputs, "location", urn)  # a job without one is not a state this sweep can read: StateError
            history = [past for past in outputs.get("history") or [] if isinstance(past, dict)]
            pointed = [resource.get("id"), outputs.get("jobName"), *(p.get("jobName") or p.get("jobId") for p in history)]
            if any(_is_secret(value) for value in pointed):
                raise StateError(
                    f"{source}: {urn} holds its job's name encrypted; export with `pulumi stack export --show-secrets`"
                )
            # The current attempt and each past one, as the provider reads them (a past attempt by its
            # full name, or, in a state written before attempts could move, by its id: one of the
            # resource's own project and location).
            try:
                state = JobState.of(outputs, str(resource.get("id") or ""))
            except ValueError as error:
                raise StateError(f"{source}: {urn}: {error}") from None
            jobs = [job for job in state.all_jobs if job.id]
            names.update(str(job) for job in jobs)
            # Where the resource's jobs may be (its project in every region of JobInputs.locations), and
            # each job where its name puts it.
            places.update((project, loc) for loc in JobInputs.of(outputs).locations(tuple(job.location for job in jobs)))
            places.update((job.project, job.location) for job in jobs)
        pending = tuple(
            ((op.get("resource") or {}).get("urn", "?"), op.get("type", "?"))
            for op in deployment.get("pending_operations") or []
            if isinstance(op, dict)
        )
        return cls(source, frozenset(names), frozenset(places), pending)


def _of_stack(resource: Any, source: str, stack: Stack) -> str:
    """The resource's URN, once it is known to be of `stack`: a state of another stack
    would make every job of this one look orphaned, and --cancel would stop them all."""
    urn = resource.get("urn") if isinstance(resource, dict) else None
    parts = urn.split("::") if isinstance(urn, str) else []
    if not isinstance(urn, str) or len(parts) < 4 or not parts[0].startswith("urn:pulumi:"):
        raise StateError(f"{source}: a resource without a valid `urn`: {str(resource)[:120]}")
    of_stack, of_project = parts[0].removeprefix("urn:pulumi:"), parts[1]
    if (of_stack, of_project) != (stack.name, stack.project):
        raise StateError(
            f"{source} is the state of stack {of_stack} of project {of_project}, not {stack.name} of {stack.project}"
        )
    return urn


def _text(outputs: dict[str, Any], key: str, urn: str) -> str:
    value = outputs.get(key)
    if not isinstance(value, str) or not value:
        raise StateError(f"{urn} has no `{key}` in state")
    return value


def _is_secret(value: Any) -> bool:
    return isinstance(value, dict) and _SECRET_SIG in value
