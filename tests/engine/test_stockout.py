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
    _same_shape_as_the_fixture(json.loads(plan.stdout))


def _same_shape_as_the_fixture(real: dict) -> None:
    """tests/previews/resubmission.json (the gate's unit tests) is what the real CLI prints for a
    resubmission, in every field the gate reads. The real one adds a `refresh` step per resource,
    and its update's newState has no id or outputs yet (the fixture's has: the gate reads neither)."""
    fixture = json.loads((ROOT / "tests" / "previews" / "resubmission.json").read_text())
    [want] = [s for s in fixture["steps"] if s["op"] == "update"]
    [got] = [s for s in real["steps"] if s["op"] == "update"]
    assert set(want) <= set(got)
    for key in ("diffReasons", "replaceReasons", "detailedDiff"):
        assert not got.get(key) and not want.get(key), key
    assert got["oldState"]["type"] == want["oldState"]["type"] == got["newState"]["type"]
    assert set(want["oldState"]) <= set(got["oldState"]) and set(want["newState"]) - {"id", "outputs"} <= set(got["newState"])
    assert got["oldState"]["outputs"]["state"] == want["oldState"]["outputs"]["state"] == "JOB_STATE_FAILED"
    assert got["oldState"]["inputs"] == got["newState"]["inputs"]
    assert set(want["oldState"]["outputs"]) <= set(got["oldState"]["outputs"]) | {"error"}
    assert {s["op"] for s in real["steps"]} <= {"same", "refresh", "update"}


def test_destroy_cancels_and_deletes_every_attempt_each_in_its_region_after_the_ladder_moved(engine_project):
    import yaml

    project, emulator = engine_project, engine_project.emulator
    config = yaml.safe_load(project.stack_file.read_text())
    resnet = config["config"]["spot-training:teams"]["vision"]["jobs"]["resnet"]
    resnet["resubmission"] = {"maxResubmissions": 3, "fallback": [{"afterStockouts": 1, "location": "us-east1"}]}
    project.stack_file.write_text(yaml.safe_dump(config, sort_keys=False))
    stack = project.stack()
    assert stack.up(color="never").summary.result == "succeeded"
    first = next(r for r in project.job_resources() if r["urn"].endswith("::vision-resnet"))["outputs"]["jobName"]
    emulator.preempt(first)

    lines: list[str] = []
    assert stack.up(color="never", on_output=lines.append, on_error=lines.append).summary.result == "succeeded"
    second = next(r for r in project.job_resources() if r["urn"].endswith("::vision-resnet"))["outputs"]
    assert second["attempt"] == 2, "\n".join(lines)
    assert second["jobName"].startswith("projects/acme-ml-test/locations/us-east1/customJobs/")
    assert "/locations/us-central1/" in first

    emulator.reset_calls()
    assert stack.destroy(color="never").summary.result == "succeeded"
    assert emulator.jobs() == []  # both attempts of resnet, in us-central1 and us-east1, and eval: deleted
    assert emulator.calls["DeleteCustomJob"] == 3


def _gate(plan_stdout: str, tmp_path) -> subprocess.CompletedProcess:
    (tmp_path / "plan.json").write_text(plan_stdout)
    return subprocess.run(
        [sys.executable, "-m", "operations.resubmit_gate", str(tmp_path / "plan.json")], cwd=ROOT, capture_output=True, text=True
    )


def test_the_gate_on_real_previews_lets_nothing_through_but_resubmissions(engine_project, tmp_path):
    """The cases of tests/previews/ (empty, new_job, bucket_change), each captured from the real CLI
    (the bucket's diff is the stand-in gcp plugin's: the real pulumi-gcp is not here)."""
    import yaml

    project = engine_project
    stack = project.stack()
    assert stack.up(color="never").summary.result == "succeeded"

    nothing = _gate(stack.preview(refresh=True, json=True, color="never").stdout, tmp_path)
    assert nothing.returncode == 0 and nothing.stdout == "" and "nothing to resubmit" in nothing.stderr

    config = yaml.safe_load(project.stack_file.read_text())
    team = config["config"]["spot-training:teams"]["vision"]
    team["jobs"]["extra"] = {"workerPoolSpecs": [{"machineSpec": {"machineType": "n1-standard-4"}, "containerSpec": {"imageUri": "${images.trainer}"}}]}
    project.stack_file.write_text(yaml.safe_dump(config, sort_keys=False))
    new_job = _gate(stack.preview(refresh=True, json=True, color="never").stdout, tmp_path)
    assert new_job.returncode == 1 and new_job.stdout == "" and "vision-extra" in new_job.stderr, new_job.stderr

    del team["jobs"]["extra"]
    team["bucket"] = {"packageRetentionDays": 14}
    project.stack_file.write_text(yaml.safe_dump(config, sort_keys=False))
    bucket = _gate(stack.preview(refresh=True, json=True, color="never").stdout, tmp_path)
    assert bucket.returncode == 1 and bucket.stdout == "" and "gcp:storage/bucket:Bucket::vision-staging" in bucket.stderr, bucket.stderr
