"""The dynamic provider launcher the engine starts, `pulumi-resource-pulumi-python` (tools/engine/).

The engine passes the project's `runtime.options` of Pulumi.yaml to a provider
plugin as PULUMI_RUNTIME_<OPTION> and starts it in the project's directory; the
launcher picks the interpreter from them as the released one does: the
`virtualenv` option (or PULUMI_RUNTIME_VIRTUALENV set by hand), else `.venv`
for `toolchain: uv`, else poetry's environment for `toolchain: poetry`, else
PULUMI_PYTHON_CMD or `python3`. Each case here runs the launcher with a
stand-in interpreter that records how it was started.
"""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

from tests.engine.project import LAUNCHER

ADDRESS = "127.0.0.1:12345"  # the engine's address, the one argument the engine passes


def _interpreter(path: Path) -> Path:
    """A stand-in `python` at `path` that records its own path and arguments, and PYTHONHOME."""
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text('#!/bin/sh\necho "$0 $* PYTHONHOME=${PYTHONHOME:-} PATH=${PATH%%:*}"\n')
    path.chmod(0o755)
    return path


def _launch(project: Path, tmp: Path, **env: str) -> subprocess.CompletedProcess:
    bin_dir = tmp / "bin"  # python3 and poetry on PATH
    return subprocess.run(
        [str(LAUNCHER), ADDRESS], cwd=project, capture_output=True, text=True,
        env={"PATH": f"{bin_dir}:/usr/bin:/bin", "HOME": str(tmp), **env},
    )


@pytest.fixture
def project(tmp_path: Path) -> Path:
    directory = tmp_path / "project"
    directory.mkdir()
    _interpreter(tmp_path / "bin" / "python3")
    return directory


def test_toolchain_uv_runs_the_projects_dot_venv(project: Path, tmp_path: Path) -> None:
    python = _interpreter(project / ".venv" / "bin" / "python")
    done = _launch(project, tmp_path, PULUMI_RUNTIME_TOOLCHAIN="uv", PYTHONHOME="/elsewhere")
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == [str(python), "-u", "-m", "pulumi.dynamic", ADDRESS, "PYTHONHOME=", f"PATH={python.parent}"]


@pytest.mark.parametrize("option", ["envs/team", "envs/team/"])
def test_the_virtualenv_option_relative_to_the_project_wins_over_the_toolchain(project: Path, tmp_path: Path, option: str) -> None:
    _interpreter(project / ".venv" / "bin" / "python")
    python = _interpreter(project / "envs" / "team" / "bin" / "python")
    done = _launch(project, tmp_path, PULUMI_RUNTIME_TOOLCHAIN="uv", PULUMI_RUNTIME_VIRTUALENV=option)
    assert done.returncode == 0, done.stderr
    assert done.stdout.split()[0] == str(python)


def test_an_absolute_virtualenv(project: Path, tmp_path: Path) -> None:
    python = _interpreter(tmp_path / "shared-venv" / "bin" / "python")
    done = _launch(project, tmp_path, PULUMI_RUNTIME_VIRTUALENV=str(tmp_path / "shared-venv"))
    assert done.returncode == 0, done.stderr
    assert done.stdout.split()[0] == str(python)


def test_toolchain_poetry_asks_poetry_where_its_environment_is(project: Path, tmp_path: Path) -> None:
    python = _interpreter(tmp_path / "poetry-env" / "bin" / "python")
    poetry = tmp_path / "bin" / "poetry"
    poetry.write_text(f'#!/bin/sh\n[ "$*" = "env info --path" ] && echo {tmp_path / "poetry-env"}\n')
    poetry.chmod(0o755)
    done = _launch(project, tmp_path, PULUMI_RUNTIME_TOOLCHAIN="poetry")
    assert done.returncode == 0, done.stderr
    assert done.stdout.split()[0] == str(python)


def test_without_options_it_runs_pulumi_python_cmd_or_python3(project: Path, tmp_path: Path) -> None:
    done = _launch(project, tmp_path)
    assert done.returncode == 0, done.stderr
    assert done.stdout.split()[:5] == [str(tmp_path / "bin" / "python3"), "-u", "-m", "pulumi.dynamic", ADDRESS]
    other = _interpreter(tmp_path / "other" / "python3.12")
    assert _launch(project, tmp_path, PULUMI_PYTHON_CMD=str(other)).stdout.split()[0] == str(other)


@pytest.mark.parametrize("made", [False, True], ids=["missing", "not a virtual environment"])
def test_a_virtualenv_that_is_not_there_is_one_message_naming_it_and_the_option(project: Path, tmp_path: Path, made: bool) -> None:
    if made:
        (project / ".venv").mkdir()
    done = _launch(project, tmp_path, PULUMI_RUNTIME_TOOLCHAIN="uv")
    assert done.returncode == 1 and done.stdout == ""
    assert f"{project}/.venv" in done.stderr
    assert ("is not a virtual environment" if made else "does not exist") in done.stderr
    assert "uv sync" in done.stderr and "Pulumi.yaml" in done.stderr


def test_the_launcher_names_no_checkout() -> None:
    """It finds the interpreter from the project it is started in, not from where it was built."""
    assert str(Path(__file__).resolve().parents[1]) not in LAUNCHER.read_text()
    assert os.access(LAUNCHER, os.X_OK)
