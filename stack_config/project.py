"""The project's directory: where the program runs, and what a stack's relative paths
(`packages.x.source`, `images.x.build.context`) are relative to.

`pulumi` finds Pulumi.yaml above the directory it is run from and runs the program
in that directory, so `pulumi up` from docs/ reads `training/spot-runtime` as the
project's. The offline verbs do the same, from the stack files they read: the nearest
directory at or above the stacks directory that holds a Pulumi.yaml (this checkout's
root, or, for `diff`, the tree exported at REF). A stacks directory outside any
project (SPOT_TRAINING_STACKS_DIR pointing elsewhere) keeps the paths relative to
where the command runs.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Iterator
from pathlib import Path

from . import stack_file


def directory() -> Path:
    """The directory of the project whose stack files are read, or the working directory."""
    stacks = stack_file.stacks_dir().resolve()
    for candidate in (stacks, *stacks.parents):
        if (candidate / "Pulumi.yaml").is_file():
            return candidate
    return Path.cwd()


@contextlib.contextmanager
def working_directory() -> Iterator[Path]:
    """Run in the project's directory, as `pulumi` runs the program, and return to where the user
    is after: a path the user types (render --out) stays relative to where they typed it."""
    here = Path.cwd()
    there = directory()
    os.chdir(there)
    try:
        yield there
    finally:
        os.chdir(here)
