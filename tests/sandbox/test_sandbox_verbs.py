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
