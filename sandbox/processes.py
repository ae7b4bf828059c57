"""What /proc says of a process the sandbox started: whether it lives, and which carry a mark.

Every process the sandbox starts carries its workspace in its environment
(PULUMI_HOME for the engine and its plugins, a mark for replicas), so a later
command finds those a killed one left, wherever they were reparented.
"""

from __future__ import annotations

import os
from pathlib import Path


def carrying(key: str, value: str) -> list[int]:
    """The pids of this user's live processes whose environment has key=value (not this process)."""
    needle = f"{key}={value}".encode()
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit() or int(entry.name) == os.getpid():
            continue
        try:
            environ = (entry / "environ").read_bytes()
        except OSError:
            continue  # gone, or not ours
        if needle in environ.split(b"\0") and alive(int(entry.name)):
            found.append(int(entry.name))
    return found


def alive(pid: int) -> bool:
    """Whether the process runs (a zombie does not: one of ours is reaped here)."""
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    if state == "Z":
        try:
            os.waitpid(pid, os.WNOHANG)  # our own child, exited: reap it
        except ChildProcessError:
            pass
        return False
    return True
