"""The verbs that read a deployed stack, pointed at its sandbox with --sandbox; and the sandbox's bad input."""

from __future__ import annotations

import pytest

from tests.cli_runner import spot_training_in_process


@pytest.mark.parametrize("verb", [["status", "dev"], ["report", "dev"], ["cancel", "dev", "tabular/baseline"]])
def test_a_verb_with_sandbox_and_no_sandbox_running_says_how_to_start_one(verb, tmp_path):
    result = spot_training_in_process(*verb, "--sandbox", env={"SPOT_TRAINING_SANDBOX_HOME": str(tmp_path)})
    assert result.returncode == 2
    assert result.stderr.strip() == "error: stack dev has no sandbox running: start it with `spot-training sandbox up dev`"


def test_preempt_of_a_job_the_stack_does_not_have_names_the_nearest(tmp_path):
    result = spot_training_in_process("sandbox", "preempt", "dev", "tabular/baseln", env={"SPOT_TRAINING_SANDBOX_HOME": str(tmp_path)})
    assert result.returncode == 2
    assert "tabular/baseln is not a job of stack dev" in result.stderr and "did you mean tabular/baseline?" in result.stderr
    assert "Traceback" not in result.stderr


def test_preempt_with_no_sandbox_running_is_one_line(tmp_path):
    result = spot_training_in_process("sandbox", "preempt", "dev", "tabular/baseline", env={"SPOT_TRAINING_SANDBOX_HOME": str(tmp_path)})
    assert result.returncode == 1
    assert result.stderr.strip() == "error: stack dev has no sandbox running: start it with `spot-training sandbox up dev`"


def test_a_bad_replica_or_duration_is_refused_before_anything_runs(tmp_path):
    env = {"SPOT_TRAINING_SANDBOX_HOME": str(tmp_path)}
    replica = spot_training_in_process("sandbox", "preempt", "dev", "tabular/baseline", "--replica", "chief", env=env)
    assert replica.returncode == 2 and "--replica 'chief' is not POOL:INDEX" in replica.stderr
    grace = spot_training_in_process("sandbox", "preempt", "dev", "tabular/baseline", "--grace", "soon", env=env)
    assert grace.returncode == 2 and "--grace 'soon' is not a duration" in grace.stderr


def test_a_drill_without_a_preemption_or_with_a_bad_tolerance_is_refused(tmp_path):
    env = {"SPOT_TRAINING_SANDBOX_HOME": str(tmp_path)}
    none = spot_training_in_process("sandbox", "drill", "dev", "tabular/baseline", "--preemptions", "0", env=env)
    assert none.returncode == 2
    assert none.stderr.strip() == "error: --preemptions must be at least 1, got 0: a drill without a preemption proves nothing"
    loose = spot_training_in_process("sandbox", "drill", "dev", "tabular/baseline", "--tolerance", "2", env=env)
    assert loose.returncode == 2 and "--tolerance is a relative difference between 0 and 1" in loose.stderr


def test_a_drill_of_an_unknown_job_or_with_no_sandbox_is_one_line(tmp_path):
    env = {"SPOT_TRAINING_SANDBOX_HOME": str(tmp_path)}
    unknown = spot_training_in_process("sandbox", "drill", "dev", "tabular/baselin", env=env)
    assert unknown.returncode == 2 and "did you mean tabular/baseline?" in unknown.stderr
    idle = spot_training_in_process("sandbox", "drill", "dev", "tabular/baseline", env=env)
    assert idle.returncode == 1
    assert idle.stderr.strip() == "error: stack dev has no sandbox running: start it with `spot-training sandbox up dev`"
    assert "Traceback" not in unknown.stderr + idle.stderr


def _stand_in_engine(tmp_path, monkeypatch):
    """An engine that only answers its version: these tests end before the engine would run."""
    from sandbox import engine

    binary = tmp_path / "engine" / "bin" / "pulumi"
    binary.parent.mkdir(parents=True)
    binary.write_text(f"#!/bin/sh\necho v{'.'.join(map(str, engine.supported()))}\n")
    binary.chmod(0o755)
    monkeypatch.setattr(engine, "BUILT", binary)


def test_up_with_no_engine_says_how_to_build_one(tmp_path, monkeypatch):
    from sandbox import engine

    monkeypatch.setattr(engine, "BUILT", tmp_path / "no-engine" / "pulumi")
    monkeypatch.setenv("PATH", str(tmp_path))
    result = spot_training_in_process("sandbox", "up", "dev", env={"SPOT_TRAINING_SANDBOX_HOME": str(tmp_path / "home")})
    assert result.returncode == 2
    assert len(result.stderr.strip().splitlines()) == 1 and "tools/engine/build.sh" in result.stderr, result.stderr


def test_up_with_go_missing_says_to_install_it_and_leaves_nothing_running(tmp_path, monkeypatch):
    from sandbox import fake_gcs, services
    from sandbox.workspace import Workspace

    _stand_in_engine(tmp_path, monkeypatch)
    monkeypatch.setattr(fake_gcs, "BINARY", tmp_path / "bin" / "fake-gcs-server")  # not built, and no Go to build it
    monkeypatch.setattr(fake_gcs, "LOCK", tmp_path / "bin" / "fake-gcs-server.lock")
    monkeypatch.setenv("PATH", str(tmp_path / "engine" / "bin"))
    home = tmp_path / "home"
    result = spot_training_in_process("sandbox", "up", "dev", env={"SPOT_TRAINING_SANDBOX_HOME": str(home)})
    assert result.returncode == 2
    [line] = result.stderr.strip().splitlines()
    assert "Go is not installed: install Go (https://go.dev/doc/install), then run tools/gcs/build.sh" in line
    assert services.running(Workspace("dev", home / "dev")) is None


def test_up_on_a_taken_port_names_it_and_leaves_nothing_running(tmp_path, monkeypatch):
    import socket

    from sandbox import processes
    from sandbox.workspace import Workspace

    _stand_in_engine(tmp_path, monkeypatch)
    home = tmp_path / "home"
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        result = spot_training_in_process("sandbox", "up", "dev", "--port", str(port), env={"SPOT_TRAINING_SANDBOX_HOME": str(home)})
    assert result.returncode == 2
    [line] = result.stderr.strip().splitlines()
    assert line == f"error: port {port} on 127.0.0.1 is in use: pick another (--port) or stop what holds it"
    assert not (Workspace("dev", home / "dev").services_file.exists())
    assert processes.carrying("SPOT_TRAINING_SANDBOX_HOME", str(home)) == []
