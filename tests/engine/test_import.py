"""A job started outside the stack (gcloud, the SDK) adopted by a job entry's `import:` under the real CLI:
no second submission when it matches its spec; a failed `up` naming every differing path when it does not.
And why it is not the engine's own import: the code API's `import_` option, as the engine carries it out,
fails in the SDK's dynamic provider host, so the resource turns it into `adopt`."""

from __future__ import annotations

import copy

import pytest
import yaml
from google.protobuf import json_format
from pulumi import automation as auto

from components.spot_job.client import job_service
from components.spot_job.model import submission_labels
from tests.engine.stack import CONFIG

pytestmark = pytest.mark.engine


def started_by_hand(emulator, like: str) -> str:
    """A copy of the job `like` as `gcloud ai custom-jobs create --config` would submit it: its spec and
    display name, none of the stack's labels."""
    job = emulator.job(like)
    body = json_format.MessageToDict(type(job).pb(job))
    body = {k: body[k] for k in ("displayName", "jobSpec")}
    body["labels"] = {"owner": "someone"}
    return job_service.JobService(like.split("/")[3]).create(like.rsplit("/customJobs/", 1)[0], body)["name"]


def with_import(project, job: str, name: str | None, **spec_changes) -> None:
    config = copy.deepcopy(CONFIG)
    entry = config["spot-training:teams"]["vision"]["jobs"][job]
    if name:
        entry["import"] = name
    entry.update(spec_changes)
    project.stack_file.write_text(yaml.safe_dump({"config": config}, sort_keys=False))


def test_a_job_started_by_hand_is_adopted_without_a_second_submission(engine_project):
    project, emulator = engine_project, engine_project.emulator
    stack = project.stack()
    stack.up(color="never")
    # The entry's job as the team first ran it by hand: the stack forgets its own and a hand-made twin exists.
    eval_job = next(r for r in project.job_resources() if r["urn"].endswith("::vision-eval"))
    own = eval_job["outputs"]["jobName"]
    project.cli("state", "delete", eval_job["urn"], "--yes")
    by_hand = started_by_hand(emulator, own)
    with_import(project, "eval", by_hand)
    emulator.reset_calls()

    lines: list[str] = []
    result = stack.up(color="never", on_output=lines.append)
    assert result.summary.result == "succeeded"
    assert emulator.calls["CreateCustomJob"] == 0
    adopted = next(r for r in project.job_resources() if r["urn"].endswith("::vision-eval"))
    assert adopted["id"] == by_hand and adopted["outputs"]["jobName"] == by_hand
    assert adopted["outputs"]["attempt"] == 1
    assert submission_labels.SUBMISSION_LABEL not in emulator.job(by_hand).labels  # its own labels, until its next submission
    assert "started outside the stack, without submitting it" in "\n".join(lines)

    # A second up changes nothing; destroy deletes the adopted job like any other.
    emulator.reset_calls()
    again = stack.up(color="never")
    assert emulator.calls["CreateCustomJob"] == 0 and set(again.summary.resource_changes) <= {"same"}
    stack.destroy(color="never")
    assert by_hand not in [j.name for j in emulator.jobs()]


def test_a_job_that_is_not_the_one_its_entry_declares_fails_the_up_naming_each_path(engine_project):
    project, emulator = engine_project, engine_project.emulator
    stack = project.stack()
    stack.up(color="never")
    eval_job = next(r for r in project.job_resources() if r["urn"].endswith("::vision-eval"))
    project.cli("state", "delete", eval_job["urn"], "--yes")
    by_hand = started_by_hand(emulator, eval_job["outputs"]["jobName"])
    spec = copy.deepcopy(CONFIG["spot-training:teams"]["vision"]["jobs"]["eval"])
    spec["workerPoolSpecs"][0]["machineSpec"]["machineType"] = "n1-highmem-8"
    with_import(project, "eval", by_hand, workerPoolSpecs=spec["workerPoolSpecs"])
    emulator.reset_calls()

    lines: list[str] = []
    with pytest.raises(auto.CommandError):
        stack.up(color="never", on_output=lines.append, on_error=lines.append)
    said = "\n".join(lines)
    assert f"cannot adopt {by_hand}: it is not the job its spec declares" in said, said
    assert "jobSpec.workerPoolSpecs[0].machineSpec.machineType: 'n1-standard-4' in Vertex, 'n1-highmem-8' in the config" in said
    assert "Traceback" not in said
    assert emulator.calls["CreateCustomJob"] == 0  # nothing submitted, nothing replaced
    assert not any(r["urn"].endswith("::vision-eval") for r in project.job_resources())
