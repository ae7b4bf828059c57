"""SandboxStack: the stack's own program under the real engine, in the sandbox's workspace.

The engine runs a copy of the project as a user has it checked out, in
.sandbox/<stack>/project/: the repository's Pulumi.yaml (so `refresh: always`
holds), `__main__.py` and what it imports (symlinks: an edit shows at the next
`up`), and a copy of the user's stack file, made again at every `up` with the
sandbox's own encryption salt in place of the user's. The user's file is never
written: the sandbox's state, passphrase and salt are not theirs.

The program runs on the Automation API's inline route, in this process
(sandbox/engine.py says why): the same `__main__.py` a `pulumi up` runs, with
this process's environment pointed at the sandbox (endpoints.py).

Exactly once: at most one sandbox command works on a stack at a time (a file
lock, up.lock). Holding it, a Pulumi lock left in the sandbox's backend can
only be a killed command's, and is cleared (`pulumi cancel`); so are the
plugins it left running (they carry this workspace's PULUMI_HOME). The jobs a
killed `up` submitted are found by the provider's own look by label on the next
`up` and adopted (docs/lifecycle.md): the sandbox adds nothing to that.
"""

from __future__ import annotations

import fcntl
import os
import runpy
import secrets
import shutil
import signal
import subprocess
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import yaml
from pulumi import automation as auto

from sandbox import endpoints, processes
from sandbox.endpoints import Endpoints
from sandbox.engine import Engine
from sandbox.gcp.storage import Storage
from sandbox.workspace import ROOT, Workspace
from stack_config import stack_file

# What the program and the dynamic provider host import, as the checkout has them.
PROJECT_FILES = ("__main__.py", "components", "stack_config", "images", "training", ".venv")
# The type of the job resource in state (components/spot_job/resource.py's dynamic resource).
JOB_TYPE = "pulumi-python:dynamic/spot-training:SpotTrainingJob"
# Keys of a stack file that belong to its own secrets provider, not to the sandbox's.
SECRETS_KEYS = ("encryptionsalt", "secretsprovider", "encryptedkey")


class SandboxRefused(RuntimeError):
    """What the sandbox cannot do with this stack, or right now: the message says why and what to do."""


class SandboxStack:
    def __init__(self, workspace: Workspace, engine: Engine, endpoints: Endpoints) -> None:
        self.workspace = workspace
        self.engine = engine
        self.endpoints = endpoints

    @property
    def env(self) -> dict[str, str]:
        return {
            **self.engine.environment(self.workspace),
            **self.endpoints.environment(self.workspace),
            "PULUMI_RUNTIME_VIRTUALENV": str(ROOT / ".venv"),  # the dynamic provider host's interpreter
        }

    def prepare(self, user_stack_file: Path) -> None:
        """The project copy, the passphrase and the stack file, as the engine will read them."""
        ws = self.workspace
        for folder in (ws.project_dir / "stacks", ws.state_dir, ws.pulumi_home, ws.gcloud_dir):
            folder.mkdir(parents=True, exist_ok=True)
        shutil.copy(ROOT / "Pulumi.yaml", ws.project_dir / "Pulumi.yaml")
        for name in PROJECT_FILES:
            link = ws.project_dir / name
            if not link.is_symlink():
                link.symlink_to(ROOT / name)
        if not ws.passphrase_file.exists():
            ws.passphrase_file.touch(mode=0o600)
            ws.passphrase_file.write_text(secrets.token_urlsafe(32))
        config = yaml.safe_load(user_stack_file.read_text()) or {}
        if any(stack_file.secure_leaves(value) for value in (config.get("config") or {}).values()):
            raise SandboxRefused(
                f"{user_stack_file} holds values encrypted by its own secrets provider, which the sandbox cannot "
                "decrypt: give them plain test values in a copy of the stack (docs/sandbox.md, Secrets)"
            )
        ours = self.stack_file
        kept = yaml.safe_load(ours.read_text()) if ours.exists() else {}
        body = {k: v for k, v in config.items() if k not in SECRETS_KEYS}
        body |= {k: v for k, v in (kept or {}).items() if k in SECRETS_KEYS}  # the sandbox's salt, once made
        ours.write_text(yaml.safe_dump(body, sort_keys=False))

    @property
    def stack_file(self) -> Path:
        return self.workspace.project_dir / "stacks" / f"Pulumi.{self.workspace.stack}.yaml"

    def up(self, on_output: Callable[[str], None]) -> auto.UpResult:
        with self._pointed():
            stack = self._stack()
            # What `pulumi up` shows before it asks: the preview's steps; then the update and its outputs.
            stack.preview(on_output=on_output, on_error=on_output, color="never")
            result = stack.up(on_output=on_output, on_error=on_output, color="never")
            if self.pending_operations():  # a killed `up`'s creates: the jobs are in state already (docs/lifecycle.md)
                stack.refresh(clear_pending_creates=True, color="never")
            return result

    def destroy(self, on_output: Callable[[str], None]) -> auto.DestroyResult | None:
        if not self.stack_file.exists():
            return None
        with self._pointed():
            stack = self._stack()
            # prod's buckets are protected (`pulumi destroy` refuses them): the sandbox's are disposable copies,
            # so its down lifts the protection in the sandbox's own state first. A real stack is not touched.
            subprocess.run(
                [str(self.engine.binary), "state", "unprotect", "--all", "--yes", "--stack", self.workspace.stack, "--non-interactive"],
                cwd=self.workspace.project_dir, env={**os.environ}, capture_output=True, text=True, check=False,
            )
            # The jobs first (the provider cancels each and waits for it to end, as in any destroy): a trainer
            # writes checkpoints into its team's bucket until it is stopped, so the buckets are emptied after.
            jobs = [r["urn"] for r in self.export().get("resources") or [] if r.get("type") == JOB_TYPE]
            if jobs:
                stack.destroy(target=jobs, on_output=on_output, on_error=on_output, color="never")
            # ...then empties its buckets, as README's "Destroy" tells a user to for a bucket kept with its data.
            storage = Storage(self.endpoints.storage)
            for bucket in storage.buckets():
                storage.empty(bucket)
            return stack.destroy(on_output=on_output, on_error=on_output, color="never")

    def outputs(self) -> dict[str, Any]:
        with self._pointed():
            return {k: v.value for k, v in self._stack().outputs().items()}

    def export(self) -> dict[str, Any]:
        with self._pointed():
            deployment = self._stack().export_stack().deployment
            return deployment if isinstance(deployment, dict) else {}

    def pending_operations(self) -> list[dict[str, Any]]:
        state = self._stack().export_stack().deployment or {}
        return list(state.get("pending_operations") or [])

    def _program(self) -> None:
        runpy.run_path(str(self.workspace.project_dir / "__main__.py"), run_name="__main__")

    def _stack(self) -> auto.Stack:
        return auto.create_or_select_stack(
            self.workspace.stack,
            project_name="spot-training",
            program=self._program,
            opts=auto.LocalWorkspaceOptions(
                work_dir=str(self.workspace.project_dir),
                pulumi_command=auto.PulumiCommand(root=str(self.engine.binary.parent.parent), skip_version_check=True),
                env_vars=self.env,
            ),
        )

    @contextmanager
    def _pointed(self) -> Iterator[None]:
        """This process's environment pointed at the sandbox (the inline program runs here), put back after."""
        with endpoints.environment(self.env):
            yield


@contextmanager
def exclusive(workspace: Workspace, stack: SandboxStack | None = None) -> Iterator[None]:
    """Hold the stack's sandbox lock; then clear what a killed command left: its plugins, its Pulumi lock."""
    workspace.root.mkdir(parents=True, exist_ok=True)
    with (workspace.root / "up.lock").open("w") as lock:
        try:
            fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            raise SandboxRefused(f"another sandbox command is working on stack {workspace.stack}: wait for it to finish") from None
        stop_left(workspace)
        if stack is not None:
            _clear_stale_lock(stack)
        yield


def left_plugins(workspace: Workspace) -> list[int]:
    """Processes carrying this workspace's PULUMI_HOME: the CLI and plugins of a command that was killed
    (called while holding the lock, when no command of this workspace is running)."""
    return processes.carrying("PULUMI_HOME", str(workspace.pulumi_home))


def stop_left(workspace: Workspace, timeout: float = 10.0) -> None:
    """SIGKILL what a killed command left, and wait until it is gone: a killed command's engine lives on
    (it was that command's child, now reparented) and finishes or writes its update while it runs."""
    left = left_plugins(workspace)
    for pid in left:
        try:
            os.kill(pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
    deadline = time.monotonic() + timeout
    while any(processes.alive(pid) for pid in left):
        if time.monotonic() > deadline:
            raise SandboxRefused(f"processes {left} of a killed sandbox command of stack {workspace.stack} do not end: stop them, then retry")
        time.sleep(0.05)


def _clear_stale_lock(stack: SandboxStack) -> None:
    """Holding the sandbox's lock, with no process of this workspace left, a Pulumi lock is a killed command's."""
    if not _pulumi_locks(stack.workspace):
        return
    with stack._pointed():
        try:
            stack._stack().cancel()
        except auto.CommandError:
            if _pulumi_locks(stack.workspace):
                raise  # still locked: not the race below, the engine's own error says why
            # else the killed command's engine let go of the lock between the look and the cancel


def _pulumi_locks(workspace: Workspace) -> list[Path]:
    locks = workspace.state_dir / ".pulumi" / "locks"
    return list(locks.rglob("*.json")) if locks.is_dir() else []
