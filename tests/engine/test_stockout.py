"""A Spot job preempted (STOCKOUT) under the real CLI: the scheduled workflow's path, end to end.

`pulumi preview --refresh --json` captured from the CLI is what operations.resubmit_gate
reads (not a hand-written fixture), and its verdict drives `pulumi up --target`.
"""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from tests.engine.project import ROOT

pytestmark = pytest.mark.engine


def test_a_preempted_job_is_targeted_by_the_gate_from_the_real_preview_and_resubmitted_once(engine_project, tmp_path):
    project, emulator = engine_project, engine_project.emulator
    stack = project.stack()
    assert stack.up(color="never").summary.result == "succeeded"
    jobs = {r["urn"].rsplit("::", 1)[1]: r for r in project.job_resources()}
    preempted = jobs["vision-resnet"]
    emulator.preempt(preempted["outputs"]["jobName"])
    emulator.reset_calls()

    plan = stack.preview(refresh=True, json=True, color="never")
    (tmp_path / "plan.json").write_text(plan.stdout)
    assert emulator.calls["CreateCustomJob"] == 0
    gate = subprocess.run(
        [sys.executable, "-m", "operations.resubmit_gate", str(tmp_path / "plan.json")], cwd=ROOT, capture_output=True, text=True
    )
    assert gate.returncode == 0, gate.stderr + plan.stdout
    assert gate.stdout.split() == [preempted["urn"]], gate.stderr

    result = stack.up(target=gate.stdout.split(), color="never")

    assert result.summary.result == "succeeded"
    assert emulator.calls["CreateCustomJob"] == 1
    after = {r["urn"].rsplit("::", 1)[1]: r["outputs"] for r in project.job_resources()}
    assert after["vision-resnet"]["attempt"] == 2
    assert after["vision-resnet"]["jobName"] != preempted["outputs"]["jobName"]
    assert after["vision-eval"]["jobName"] == jobs["vision-eval"]["outputs"]["jobName"]
    json.loads(plan.stdout)  # what the CLI printed is the JSON document the gate read
