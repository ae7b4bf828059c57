"""The sandbox's services for one stack: start them, find them again, stop them.

Two processes, each in a session of its own so that they outlive the command
that started them: the JobService (`python -m sandbox.daemon`, which also runs
the jobs' code) and Cloud Storage (fake-gcs-server, built from the Go module
proxy at the version tools/gcs/go.mod pins, on its filesystem backend under
.sandbox/<stack>/storage/). services.json records each one's pid and address.

Found again, not trusted: a recorded service counts only if its pid is alive,
is the process that was started (its command line names this stack's
workspace) and answers. `ensure` reuses both when both do; otherwise it stops
whatever of them is left (a sandbox killed half-way leaves its record or its
processes, never one without the other for long) and starts both afresh. The
jobs survive that (the JobService's journal), and so do the buckets.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
import urllib.request
from dataclasses import dataclass
from pathlib import Path

from sandbox import fake_gcs, processes
from sandbox.endpoints import CREDENTIAL_VARIABLES, Endpoints
from sandbox.workspace import ROOT, Workspace

START_TIMEOUT = 30.0


class ServiceError(RuntimeError):
    """A service that cannot be started: the message says what to do."""


@dataclass(frozen=True)
class Services:
    endpoints: Endpoints
    jobservice_pid: int
    storage_pid: int
    reused: bool

    def record(self) -> dict[str, object]:
        return {
            "jobservice": {"address": self.endpoints.jobservice, "pid": self.jobservice_pid},
            "storage": {"url": self.endpoints.storage, "pid": self.storage_pid},
        }


def ensure(workspace: Workspace, port: int = 0, storage_port: int = 0, run_for: float = 30.0) -> Services:
    """The stack's services, running: the recorded ones if both still answer, else both started afresh."""
    found = running(workspace)
    if found is not None:
        return found
    stop(workspace)
    workspace.root.mkdir(parents=True, exist_ok=True)
    for folder in (workspace.storage_dir, workspace.runs_dir, workspace.gcloud_dir):
        folder.mkdir(parents=True, exist_ok=True)
    try:
        binary = fake_gcs.ensure_binary()
    except fake_gcs.Unavailable as unavailable:
        raise ServiceError(str(unavailable)) from None
    storage_port = storage_port or _free_port()
    storage_url = f"http://127.0.0.1:{storage_port}"
    log = workspace.service_log.open("ab")
    storage = subprocess.Popen(
        [str(binary), "-scheme", "http", "-host", "127.0.0.1", "-port", str(storage_port), "-backend", "filesystem",
         "-filesystem-root", str(workspace.storage_dir), "-external-url", storage_url, "-log-level", "error"],
        stdin=subprocess.DEVNULL, stdout=log, stderr=log, start_new_session=True, env=_clean_env(),
    )
    _write(workspace, {"storage": {"url": storage_url, "pid": storage.pid}})  # recorded at once: a kill now leaves it findable
    if not _answers(storage_url, storage):
        stop(workspace)
        raise ServiceError(f"Cloud Storage (fake-gcs-server) did not start on port {storage_port}: {_tail(workspace.service_log)}")
    daemon = subprocess.Popen(
        [sys.executable, "-m", "sandbox.daemon", str(workspace.root), "--port", str(port), "--storage", storage_url, "--run-for", str(run_for)],
        cwd=ROOT, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=log, start_new_session=True, text=True, env=_clean_env(),
    )
    _write(workspace, {"storage": {"url": storage_url, "pid": storage.pid}, "jobservice": {"address": "", "pid": daemon.pid}})
    assert daemon.stdout is not None
    address = daemon.stdout.readline().strip()
    if not address:
        daemon.wait(timeout=10)
        stop(workspace)
        raise ServiceError(_tail(workspace.service_log).removeprefix("error: ") or "the sandbox's JobService did not start")
    services = Services(Endpoints(address, storage_url), daemon.pid, storage.pid, reused=False)
    _write(workspace, services.record())
    return services


def running(workspace: Workspace) -> Services | None:
    """The recorded services, if both are alive, are the ones started for this workspace, and answer."""
    record = _read(workspace)
    try:
        address, storage_url = record["jobservice"]["address"], record["storage"]["url"]
        daemon, storage = int(record["jobservice"]["pid"]), int(record["storage"]["pid"])
    except (KeyError, TypeError, ValueError):
        return None
    if not address or not (_ours(daemon, workspace) and _ours(storage, workspace)):
        return None
    if not _answers(storage_url, None, timeout=2.0) or not _grpc_answers(address):
        return None
    return Services(Endpoints(address, storage_url), daemon, storage, reused=True)


def stop(workspace: Workspace) -> list[int]:
    """Stop every recorded service that is still this workspace's (SIGTERM, then SIGKILL), and forget them.
    The pids stopped: none when nothing was left."""
    record = _read(workspace)
    stopped = []
    for key in ("jobservice", "storage"):
        try:
            pid = int(record[key]["pid"])
        except (KeyError, TypeError, ValueError):
            continue
        if _ours(pid, workspace):
            _terminate(pid)
            stopped.append(pid)
    workspace.services_file.unlink(missing_ok=True)
    return stopped


def _terminate(pid: int) -> None:
    try:
        os.kill(pid, signal.SIGTERM)
    except ProcessLookupError:
        return
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline and processes.alive(pid):
        time.sleep(0.1)
    if processes.alive(pid):
        try:
            os.kill(pid, signal.SIGKILL)
        except ProcessLookupError:
            pass


def _ours(pid: int, workspace: Workspace) -> bool:
    """Alive, and started for this workspace: its command line names the workspace (a reused pid does not)."""
    if not processes.alive(pid):
        return False
    try:
        command = Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\0")
    except OSError:
        return False
    root = str(workspace.root).encode()
    return any(part == root or part.startswith(root + b"/") for part in command)


def _free_port() -> int:
    import socket

    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def _answers(url: str, process: subprocess.Popen[bytes] | None, timeout: float = START_TIMEOUT) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if process is not None and process.poll() is not None:
            return False
        try:
            with urllib.request.urlopen(f"{url}/storage/v1/b", timeout=1) as answer:
                if answer.status == 200:
                    return True
        except OSError:
            time.sleep(0.05)
    return False


def _grpc_answers(address: str) -> bool:
    import grpc

    with grpc.insecure_channel(address) as channel:
        try:
            grpc.channel_ready_future(channel).result(timeout=2.0)
            return True
        except grpc.FutureTimeoutError:
            return False


def _clean_env() -> dict[str, str]:
    return {k: v for k, v in os.environ.items() if k not in CREDENTIAL_VARIABLES and not k.startswith("FAKE_GCS_")}


def _read(workspace: Workspace) -> dict:  # type: ignore[type-arg]  # services.json as written by _write
    try:
        loaded = json.loads(workspace.services_file.read_text())
        return loaded if isinstance(loaded, dict) else {}
    except (OSError, ValueError):
        return {}


def _write(workspace: Workspace, record: dict[str, object]) -> None:
    partial = workspace.services_file.with_suffix(".partial")
    partial.write_text(json.dumps(record, indent=2))
    os.replace(partial, workspace.services_file)


def _tail(path: Path) -> str:
    try:
        lines = path.read_text(errors="replace").strip().splitlines()
    except OSError:
        return ""
    return lines[-1] if lines else ""
