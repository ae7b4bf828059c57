"""The resubmission gate: what the scheduled workflow lets `pulumi up` apply.

The fixtures under tests/previews/ are `pulumi preview --json` documents
(Pulumi's display.PreviewDigest: `steps` of `op`, `urn`, `provider`,
`oldState`/`newState` with `type`, `inputs`, `outputs`, and `diffReasons`,
`replaceReasons`, `detailedDiff`), shaped as the engine writes them for this
project's resources. A resubmission is what components/spot_job/provider.py's
diff returns for a failed job its policy resubmits: DIFF_SOME with no
replaces and no changed keys (the dynamic provider host sends no `diffs`), so
the step is an `update` with no diffReasons and inputs that did not change.
"""

import copy
import json
import subprocess
import sys

import pytest

from operations import resubmit_gate
from tests.program import ROOT

PREVIEWS = ROOT / "tests" / "previews"
JOB = (
    "urn:pulumi:dev::spot-training::spot-training:team:TeamTrainingEnvironment"
    "$pulumi-python:dynamic/spot-training:SpotTrainingJob::vision-resnet"
)
BUCKET = (
    "urn:pulumi:dev::spot-training::spot-training:team:TeamTrainingEnvironment"
    "$spot-training:storage:StagingBucket$gcp:storage/bucket:Bucket::vision-staging"
)
NEW_JOB = JOB.replace("::vision-resnet", "::vision-eval")


def gate(path, *, cwd=ROOT) -> subprocess.CompletedProcess:
    """The gate as the workflow runs it: `python -m operations.resubmit_gate plan.json`."""
    return subprocess.run(
        [sys.executable, "-m", "operations.resubmit_gate", str(path)], cwd=cwd, capture_output=True, text=True
    )


def preview(name: str) -> dict:
    return json.loads((PREVIEWS / f"{name}.json").read_text())


def written(tmp_path, document: dict):
    path = tmp_path / "plan.json"
    path.write_text(json.dumps(document))
    return path


def job_step(document: dict) -> dict:
    [step] = [s for s in document["steps"] if s["urn"] == JOB]
    return step


# The four plans of the issue, through the command line.


def test_a_pure_resubmission_passes_and_prints_the_job_urn_to_target():
    result = gate(PREVIEWS / "resubmission.json")
    assert result.returncode == 0, result.stderr
    assert result.stdout.splitlines() == [JOB]
    assert "vision-resnet" in result.stderr and "STOCKOUT" in result.stderr


def test_a_plan_with_a_bucket_change_is_refused_naming_the_bucket_and_targets_nothing():
    result = gate(PREVIEWS / "bucket_change.json")
    assert result.returncode == 1
    assert result.stdout == ""  # nothing for the workflow to target
    assert BUCKET in result.stderr and "update" in result.stderr and "versioning" in result.stderr


def test_a_plan_creating_a_new_job_is_refused():
    result = gate(PREVIEWS / "new_job.json")
    assert result.returncode == 1 and result.stdout == ""
    assert NEW_JOB in result.stderr and "create" in result.stderr


def test_an_empty_plan_passes_with_nothing_to_target():
    result = gate(PREVIEWS / "empty.json")
    assert result.returncode == 0, result.stderr
    assert result.stdout == ""
    assert "nothing to resubmit" in result.stderr


def test_an_unreadable_plan_is_an_error_not_an_empty_plan(tmp_path):
    path = tmp_path / "plan.json"
    path.write_text("error: could not load plugin\n")
    result = gate(path)
    assert result.returncode == 2 and result.stdout == ""
    assert "plan.json" in result.stderr
    assert gate(tmp_path / "missing.json").returncode == 2


# What else a job step can be, and why each is not a resubmission.


def test_a_job_replaced_by_a_spec_change_or_a_rerun_is_refused(tmp_path):
    document = preview("resubmission")
    step = job_step(document)
    step.update(op="replace", replaceReasons=["rerun"], diffReasons=["rerun"])
    step["newState"]["inputs"]["rerun"] = "2026-12-03"
    result = gate(written(tmp_path, document))
    assert result.returncode == 1 and result.stdout == ""
    assert JOB in result.stderr and "replace" in result.stderr and "rerun" in result.stderr


def test_a_job_update_that_changes_an_input_is_refused_naming_the_input(tmp_path):
    # A knob (onDelete, waitFor, resubmission, ...) changes in place: the same op,
    # but it applies a merged change, so the gate refuses it.
    document = preview("resubmission")
    job_step(document)["newState"]["inputs"]["onDelete"] = "keep"
    result = gate(written(tmp_path, document))
    assert result.returncode == 1 and result.stdout == ""
    assert JOB in result.stderr and "onDelete" in result.stderr


def test_a_job_update_with_diff_reasons_is_refused(tmp_path):
    document = preview("resubmission")
    job_step(document)["diffReasons"] = ["waitFor"]
    result = gate(written(tmp_path, document))
    assert result.returncode == 1 and "waitFor" in result.stderr


def test_an_update_of_a_job_that_did_not_fail_is_refused(tmp_path):
    document = preview("resubmission")
    job_step(document)["oldState"]["outputs"]["state"] = "JOB_STATE_RUNNING"
    result = gate(written(tmp_path, document))
    assert result.returncode == 1 and "JOB_STATE_RUNNING" in result.stderr


@pytest.mark.parametrize(
    "change, kind",
    [
        ({"gone": True}, "gone"),  # its record deleted out of band: the provider does not run it again
        ({"error": {"code": 3, "message": "exited with a non-zero status of 1"}}, "held back"),
        ({"attempt": 4}, "held back"),  # maxResubmissions (3) reached
    ],
)
def test_a_failed_job_the_provider_would_not_resubmit_is_refused(tmp_path, change, kind):
    """The gate asks the provider's own decision, so it approves only what `up` would resubmit."""
    document = preview("resubmission")
    job_step(document)["oldState"]["outputs"].update(change)
    result = gate(written(tmp_path, document))
    assert result.returncode == 1 and f"does not resubmit ({kind})" in result.stderr


def test_deleting_a_job_is_refused(tmp_path):
    document = preview("resubmission")
    step = job_step(document)
    step["op"] = "delete"
    del step["newState"]
    result = gate(written(tmp_path, document))
    assert result.returncode == 1 and "delete" in result.stderr and JOB in result.stderr


def test_every_offending_step_is_named_not_only_the_first(tmp_path):
    document = preview("bucket_change")
    document["steps"] += preview("new_job")["steps"][1:]
    result = gate(written(tmp_path, document))
    assert result.returncode == 1
    assert BUCKET in result.stderr and NEW_JOB in result.stderr


def test_steps_that_change_nothing_pass(tmp_path):
    document = preview("resubmission")
    same = copy.deepcopy(job_step(document))
    same.update(op="same", urn=BUCKET)
    document["steps"].append(same)
    document["steps"].append({"op": "refresh", "urn": BUCKET})
    result = gate(written(tmp_path, document))
    assert result.returncode == 0 and result.stdout.splitlines() == [JOB]


@pytest.mark.parametrize("name", ["resubmission", "bucket_change", "new_job", "empty"])
def test_the_fixtures_are_preview_digests(name):
    # The fields Pulumi's PreviewDigest and PreviewStep write, and the project's job type.
    document = preview(name)
    assert set(document) <= {"config", "steps", "diagnostics", "duration", "changeSummary", "maybeCorrupt"}
    for step in document["steps"]:
        assert set(step) <= {
            "op", "urn", "provider", "oldState", "newState", "diffReasons", "replaceReasons", "detailedDiff"
        }
    assert resubmit_gate.JOB_TYPE == "pulumi-python:dynamic/spot-training:SpotTrainingJob"
