"""What a user sees when Google's side fails or changes out of band, under the real CLI.

The stand-in `gcp` plugin fails on cue as terraform-provider-google does under
Pulumi's bridge (sandbox/gcp/provider.py, with tests/engine/gcp_faults.py): a 409 on create, a binding
refused while a new service account propagates, a bucket not empty on delete,
and a Read that finds the resource gone (404) or changed (drift).
"""

from __future__ import annotations

import pytest
import yaml
from pulumi.automation import errors as auto_errors

from tests.engine.stack import PROJECT

pytestmark = pytest.mark.engine

LIVE = ("JOB_STATE_QUEUED", "JOB_STATE_PENDING", "JOB_STATE_RUNNING")
EMAIL = f"vision-train-test@{PROJECT}.iam.gserviceaccount.com"
GRANT = "vision-staging-storage-objectcreator-trainer"  # the trainer's write access to its bucket


def _up(project):
    lines: list[str] = []
    result = project.stack().up(color="never", on_output=lines.append, on_error=lines.append)
    return result, "\n".join(lines)


def _failing_up(project) -> str:
    lines: list[str] = []
    with pytest.raises(auto_errors.CommandError) as failed:
        project.stack().up(color="never", on_output=lines.append, on_error=lines.append)
    return "\n".join(lines) + "\n" + str(failed.value)


def _names(project) -> set[str]:
    return {r["urn"].rsplit("::", 1)[1] for r in project.export()["deployment"].get("resources", [])}


def test_a_service_account_that_exists_already_fails_the_up_by_name_and_submits_no_job(engine_project):
    project, emulator = engine_project, engine_project.emulator
    project.stack()
    project.gcp_fault("Create", "vision-trainer", "exists")

    printed = _failing_up(project)

    assert "gcp:serviceaccount:Account (vision-trainer)" in printed, printed
    assert f"Error 409: Service account vision-train-test already exists within project projects/{PROJECT}" in printed
    # Every job runs as that account: none was submitted under an identity the stack does not hold.
    assert emulator.calls["CreateCustomJob"] == 0 and emulator.jobs() == []
    assert "vision-trainer" not in {r["urn"].rsplit("::", 1)[1] for r in project.export()["deployment"].get("resources", [])
                                    if r["type"] == "gcp:serviceaccount/account:Account"}


def test_a_grant_refused_while_the_new_account_propagates_fails_the_up_and_the_next_up_completes_it(engine_project):
    project, emulator = engine_project, engine_project.emulator
    project.stack()
    project.gcp_fault("Create", GRANT, "sa-propagating")  # once: IAM sees the account a moment later

    printed = _failing_up(project)

    assert f"gcp:storage:BucketIAMMember ({GRANT})" in printed, printed
    assert f"Error 400: Service account {EMAIL} does not exist" in printed
    # A job whose identity cannot yet write to its bucket is not submitted.
    assert emulator.calls["CreateCustomJob"] == 0
    assert "vision-trainer" in _names(project) and GRANT not in _names(project)

    result, output = _up(project)  # what the user runs next

    assert result.summary.result == "succeeded", output
    assert GRANT in _names(project)
    assert emulator.calls["CreateCustomJob"] == 2 and len([j for j in emulator.jobs() if j.state.name in LIVE]) == 2
    made = [c["urn"].rsplit("::", 1)[1] for c in project.gcp_calls("Create") if not c["preview"] and "fault" not in c]
    assert made.count("vision-trainer") == 1 and made.count(GRANT) == 1  # nothing made twice


def test_a_bucket_holding_objects_fails_the_destroy_by_name_after_the_jobs_are_cancelled(engine_project):
    project, emulator = engine_project, engine_project.emulator
    config = yaml.safe_load(project.stack_file.read_text())
    config["config"]["spot-training:teams"]["vision"]["bucket"] = {"forceDestroy": False}  # prod's default
    project.stack_file.write_text(yaml.safe_dump(config, sort_keys=False))
    _up(project)
    project.gcp_fault("Delete", "vision-staging", "not-empty", times=None)  # checkpoints and outputs in it

    lines: list[str] = []
    with pytest.raises(auto_errors.CommandError) as failed:
        project.stack().destroy(color="never", on_output=lines.append, on_error=lines.append)
    printed = "\n".join(lines) + "\n" + str(failed.value)

    assert "gcp:storage:Bucket (vision-staging)" in printed, printed
    assert "Error trying to delete bucket acme-ml-test-vision-staging containing objects without `force_destroy` set to true" in printed
    # The jobs were stopped first (they write into the bucket) and left the state; the bucket stays in it.
    assert [j for j in emulator.jobs() if j.state.name in LIVE] == []
    assert project.job_resources() == []
    assert "vision-staging" in _names(project)

    project.clear_gcp_faults()  # the user empties the bucket (or sets bucket.forceDestroy)
    assert project.stack().destroy(color="never").summary.result == "succeeded"
    assert project.export()["deployment"].get("resources") in (None, [])


def test_a_grant_deleted_out_of_band_is_made_again_by_the_next_up_and_no_job_is_resubmitted(engine_project):
    project, emulator = engine_project, engine_project.emulator
    _up(project)
    emulator.reset_calls()
    project.gcp_fault("Read", GRANT, "gone")  # the refresh finds it 404

    result, output = _up(project)

    assert result.summary.result == "succeeded", output
    assert result.summary.resource_changes.get("create") == 1, result.summary.resource_changes
    assert [c["urn"].rsplit("::", 1)[1] for c in project.gcp_calls("Create") if not c["preview"]].count(GRANT) == 2
    assert emulator.calls["CreateCustomJob"] == 0 and emulator.calls["CancelCustomJob"] == 0


def test_a_bucket_changed_out_of_band_is_put_back_by_the_next_up_and_no_job_is_resubmitted(engine_project):
    project, emulator = engine_project, engine_project.emulator
    _up(project)
    emulator.reset_calls()
    drifted = {"labels": {"team": "vision", "environment": "test", "owner": "someone-by-hand"}}
    project.gcp_fault("Read", "vision-staging", "drift", outputs=drifted)

    result, output = _up(project)

    assert result.summary.result == "succeeded", output
    assert result.summary.resource_changes.get("update") == 1, result.summary.resource_changes
    updates = [c for c in project.gcp_calls("Update") if c["urn"].endswith("::vision-staging")]
    assert len(updates) == 1 and updates[0]["inputs"]["labels"] == {"team": "vision", "environment": "test"}
    assert emulator.calls["CreateCustomJob"] == 0 and emulator.calls["CancelCustomJob"] == 0
