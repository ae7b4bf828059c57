"""A sandbox job's logs: the files the runner writes, one per attempt and replica (runner.py).

`logs --sandbox` prints them in order, attempt by attempt; with --follow it then prints what
is appended, and the files of later attempts (a preemption's restart) as they appear, until
the job has ended and nothing more is written. A simulated (containerSpec) job runs no code
and has no log.
"""

from __future__ import annotations

import re
import time
from collections.abc import Callable
from pathlib import Path

from sandbox.workspace import Workspace

POLL = 0.5


def files(workspace: Workspace, job_id: str) -> list[Path]:
    """The job's log files, attempt by attempt, replica by replica."""
    def order(path: Path) -> tuple[int, str]:
        found = re.fullmatch(r"attempt-(\d+)", path.parent.name)
        return (int(found.group(1)) if found else 0, path.name)

    return sorted((workspace.runs_dir / job_id).glob("attempt-*/*.log"), key=order)


def title(path: Path) -> str:
    return f"== {path.parent.name.replace('-', ' ')}, {path.stem} ({path}) =="


class Follower:
    """Prints each file's lines once, a title before a file's first lines or when another file's came between."""

    def __init__(self, say: Callable[[str], None]) -> None:
        self._say = say
        self._read: dict[Path, int] = {}
        self._last: Path | None = None

    def catch_up(self, paths: list[Path]) -> bool:
        """Print what is new in `paths`; whether anything was."""
        printed = False
        for path in paths:
            with path.open("rb") as log:
                log.seek(self._read.get(path, 0))
                data = log.read()
            complete = data[: data.rfind(b"\n") + 1]  # a line still being written waits for its end
            if not complete:
                continue
            self._read[path] = self._read.get(path, 0) + len(complete)
            if self._last != path:
                self._say(title(path))
                self._last = path
            for line in complete.decode(errors="replace").splitlines():
                self._say(line)
            printed = True
        return printed


def follow(workspace: Workspace, job_id: str, ended: Callable[[], bool], follower: Follower) -> None:
    """Print the job's logs, then what is written until the job has ended and its files are read to the end."""
    follower.catch_up(files(workspace, job_id))
    while True:
        done = ended()  # looked at first: what the job wrote before it ended is read after
        follower.catch_up(files(workspace, job_id))
        if done:
            return
        time.sleep(POLL)
