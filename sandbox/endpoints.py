"""What a command needs to talk to a stack's running sandbox instead of Google: the environment.

The provider and every verb pick their endpoints from the variables Google's
own clients read for emulators: AIPLATFORM_EMULATOR_HOST (this project's
JobService client, components/spot_job/client/job_service.py) and
STORAGE_EMULATOR_HOST (google-cloud-storage). Nothing else tells them they are
in a sandbox. CLOUDSDK_CONFIG points at an empty directory and
GOOGLE_APPLICATION_CREDENTIALS is removed, so no credential of the machine's
is read by anything the sandbox starts.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass

from sandbox.workspace import Workspace

# Removed from every environment the sandbox hands on: the machine's Google credentials and emulators.
CREDENTIAL_VARIABLES = ("GOOGLE_APPLICATION_CREDENTIALS", "GOOGLE_CLOUD_PROJECT", "CLOUDSDK_CORE_PROJECT")


class SandboxNotRunning(LookupError):
    """The stack has no running sandbox: the message says what to run."""


@dataclass(frozen=True)
class Endpoints:
    jobservice: str  # host:port of the JobService (and its developer API)
    storage: str  # http://host:port of fake-gcs-server

    def environment(self, workspace: Workspace) -> dict[str, str]:
        return {
            "AIPLATFORM_EMULATOR_HOST": self.jobservice,
            "STORAGE_EMULATOR_HOST": self.storage,
            "CLOUDSDK_CONFIG": str(workspace.gcloud_dir),
        }


def of(stack: str) -> Endpoints:
    """The endpoints of the stack's sandbox, as services.json records them; SandboxNotRunning if it has none.

    Read from the record only: whether each service still answers is services.py's to check
    (a verb that finds one gone says so as a Google error would: UNAVAILABLE)."""
    workspace = Workspace.of(stack)
    try:
        record = json.loads(workspace.services_file.read_text())
        return Endpoints(record["jobservice"]["address"], record["storage"]["url"])
    except (OSError, ValueError, KeyError, TypeError):
        raise SandboxNotRunning(f"stack {stack} has no sandbox running: start it with `spot-training sandbox up {stack}`") from None


@contextmanager
def pointed(workspace: Workspace, endpoints: Endpoints) -> Iterator[None]:
    """This process pointed at the sandbox for a while (its clients read the environment), put back after."""
    with environment(endpoints.environment(workspace)):
        yield


@contextmanager
def environment(variables: dict[str, str]) -> Iterator[None]:
    """This process's environment without the machine's credentials and with `variables`, put back after."""
    saved = dict(os.environ)
    for name in CREDENTIAL_VARIABLES:
        os.environ.pop(name, None)
    os.environ.update(variables)
    try:
        yield
    finally:
        os.environ.clear()
        os.environ.update(saved)


def enter(stack: str) -> Workspace:
    """Point this process at the stack's sandbox (os.environ), for a verb run with --sandbox."""
    endpoints = of(stack)
    workspace = Workspace.of(stack)
    for name in CREDENTIAL_VARIABLES:
        os.environ.pop(name, None)
    os.environ.update(endpoints.environment(workspace))
    return workspace
