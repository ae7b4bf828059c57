"""Runs the `spot-training` command as a user does: the installed console script, in a subprocess."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
COMMAND = Path(sys.executable).parent / "spot-training"  # installed by `uv sync` (pyproject's [project.scripts])


def spot_training(*args: str, stacks_dir: Path | None = None, env: dict[str, str] | None = None, cwd: Path = ROOT) -> subprocess.CompletedProcess:
    """`spot-training ARGS...` without credentials or the Pulumi CLI; its exit code and output."""
    environment = {k: v for k, v in os.environ.items() if not k.startswith(("GOOGLE_", "CLOUDSDK_", "PULUMI_", "AIPLATFORM_"))}
    if stacks_dir is not None:
        environment["SPOT_TRAINING_STACKS_DIR"] = str(stacks_dir)
    environment.update(env or {})
    return subprocess.run([str(COMMAND), *args], cwd=cwd, env=environment, capture_output=True, text=True)
