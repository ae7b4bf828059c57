"""The dynamic provider host's interpreter under the real CLI: what the launcher (tools/engine/
pulumi-resource-pulumi-python, tests/test_dynamic_launcher.py) is given to find it.

The engine passes Pulumi.yaml's runtime options to a plugin as PULUMI_RUNTIME_<OPTION>
(pkg/resource/plugin/provider_plugin.go), from the project's runtime. On the inline route the
engine tests take (the Automation API's `program=`), the CLI replaces that runtime with `client`
and the language server's address (pkg/cmd/pulumi/operations/io.go): `toolchain` and
`virtualenv` do not reach the launcher, which runs `python3` from PATH, or the environment
PULUMI_RUNTIME_VIRTUALENV names. A `pulumi up` typed at a shell, through the language host,
passes `toolchain: uv`, and the launcher runs the project's `.venv` (not run here: the language
host cannot be built from the Go module proxy, docs/development.md).
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest
import yaml
from pulumi.automation import errors as auto_errors

pytestmark = pytest.mark.engine


def _without_the_venv_on_path(project) -> None:
    """PATH as a shell has it before `uv run` or an activated environment: `python3` has no pulumi.
    Both the project's `.venv/bin` and the environment running these tests go: `uv run pytest` (as
    .ci/run runs them) puts the latter first on PATH, under another name for the same directory."""
    venvs = {(project.dir / ".venv" / "bin").resolve(), (Path(sys.prefix) / "bin").resolve()}
    kept = [p for p in project.env["PATH"].split(os.pathsep) if p and Path(p).resolve() not in venvs]
    project.env["PATH"] = os.pathsep.join(kept)


def test_pulumi_runtime_virtualenv_in_the_environment_is_the_hosts_interpreter(engine_project):
    project, emulator = engine_project, engine_project.emulator
    _without_the_venv_on_path(project)
    (project.dir / "envs").mkdir()
    (project.dir / "envs" / "training").symlink_to((project.dir / ".venv").resolve())
    project.env["PULUMI_RUNTIME_VIRTUALENV"] = "envs/training"  # relative to the project's directory

    result = project.stack().up(color="never")

    assert result.summary.result == "succeeded"
    assert emulator.calls["CreateCustomJob"] == 2


def test_a_virtualenv_naming_nothing_fails_the_up_with_the_launchers_message(engine_project):
    project, emulator = engine_project, engine_project.emulator
    project.env["PULUMI_RUNTIME_VIRTUALENV"] = "no-such-venv"
    lines: list[str] = []

    with pytest.raises(auto_errors.CommandError) as failed:
        project.stack().up(color="never", on_output=lines.append, on_error=lines.append)

    printed = "\n".join(lines) + str(failed.value)
    assert f"{project.dir}/no-such-venv does not exist" in printed, printed
    assert "uv sync" in printed
    assert emulator.calls["CreateCustomJob"] == 0


def test_on_the_inline_route_pulumi_yamls_runtime_options_do_not_reach_the_launcher(engine_project):
    """Recorded so that nobody reads the other engine tests as a test of `toolchain: uv`."""
    project, emulator = engine_project, engine_project.emulator
    settings = yaml.safe_load((project.dir / "Pulumi.yaml").read_text())
    settings["runtime"]["options"] = {"toolchain": "uv", "virtualenv": "no-such-venv"}
    (project.dir / "Pulumi.yaml").write_text(yaml.safe_dump(settings, sort_keys=False))

    assert project.stack().up(color="never").summary.result == "succeeded"  # python3 from PATH ran the host

    _without_the_venv_on_path(project)
    emulator.reset_calls()
    with pytest.raises(auto_errors.CommandError) as failed:
        project.stack().refresh(color="never")
    assert "No module named 'pulumi'" in str(failed.value)  # nor does toolchain: uv
