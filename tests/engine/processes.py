"""The processes an engine test started: every one carries the test's own PULUMI_HOME in its environment.

The CLI, the plugins it starts (the stand-in `gcp` plugin, the dynamic provider
host) and any driver a test runs inherit the project's environment
(tests/engine/project.py), so /proc tells which are the test's, wherever they
were reparented after their parent died.
"""

from __future__ import annotations

import os
import signal
import time
from pathlib import Path

from sandbox.processes import carrying

__all__ = ["carrying", "command", "kill", "outliving"]


def outliving(key: str, value: str, grace: float = 10.0) -> list[int]:
    """The processes still carrying key=value after `grace` seconds (a CLI that exited stops its plugins
    on its way out, not at once)."""
    deadline = time.monotonic() + grace
    while (left := carrying(key, value)) and time.monotonic() < deadline:
        time.sleep(0.2)
    return left


def kill(pids: list[int]) -> None:
    for pid in pids:
        try:
            os.kill(pid, signal.SIGKILL)
        except ProcessLookupError:
            pass


def command(pid: int) -> str:
    try:
        return Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace").strip()
    except OSError:
        return "?"
