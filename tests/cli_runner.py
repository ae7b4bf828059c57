"""Runs the `spot-training` command as a user does: the installed console script, in a subprocess."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Callable
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


def spot_training_in_process(
    *args: str, stacks_dir: Path | None = None, env: dict[str, str] | None = None, cwd: Path | None = None
) -> subprocess.CompletedProcess:
    """The same command, run in this process (typer's test runner): for the cases where the
    process boundary is not what is tested, since each process pays the imports anew.
    Each verb keeps at least one test through `spot_training`, as a user runs it."""
    from typer.testing import CliRunner

    from cli.app import app

    environment: dict[str, str | None] = {k: None for k in os.environ if k.startswith(("GOOGLE_", "CLOUDSDK_", "PULUMI_", "AIPLATFORM_"))}
    if stacks_dir is not None:
        environment["SPOT_TRAINING_STACKS_DIR"] = str(stacks_dir)
    environment.update(env or {})
    previous = Path.cwd()
    if cwd is not None:
        os.chdir(cwd)  # as the user's shell would be; put back after
    try:
        result = CliRunner().invoke(app, list(args), env=environment)
    finally:
        os.chdir(previous)
    if result.exception is not None and not isinstance(result.exception, SystemExit):
        raise result.exception
    return subprocess.CompletedProcess(list(args), result.exit_code, result.stdout, result.stderr)


def main_in_process(main: Callable[[list[str]], int], args: list[str], capsys) -> subprocess.CompletedProcess:
    """A `python -m MODULE ARGS...` command's main(argv) in this process, from the project's
    directory as the command is run, its output read from pytest's capsys: for a module that is
    not a typer verb (the sweep, the offline render). A usage error is argparse's exit, taken as
    its code; an exception that escapes main fails the test, as a traceback would show."""
    previous = Path.cwd()
    os.chdir(ROOT)
    try:
        code = main(list(args))
    except SystemExit as exit_:
        code = exit_.code if isinstance(exit_.code, int) else 2
    finally:
        os.chdir(previous)
    out, err = capsys.readouterr()
    return subprocess.CompletedProcess(list(args), code, out, err)
