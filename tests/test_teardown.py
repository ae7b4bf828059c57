"""What destroy does with a job, for each `onDelete`: the pure plan (verdict.plan_delete)."""

from __future__ import annotations

import pytest

from components.spot_job.decision import verdict
from components.spot_job.model import spec
from components.spot_job.model.defaults import OnDelete
from components.spot_job.model.job_inputs import JobInputs
from components.spot_job.model.job_name import JobName
from components.spot_job.model.job_state import JobState
from tests.fixtures import job_inputs

PARENT = "projects/acme-ml-dev/locations"
CURRENT = f"{PARENT}/us-central1/customJobs/300"


def stored(on_delete: str | None, past_elsewhere: bool = False) -> dict:
    """A job's stored props: inputs and outputs; with `past_elsewhere`, attempt 3, whose earlier
    attempts ran in another region of its ladder."""
    props = job_inputs(submissionScope="spot-training/dev/resnet", deleteTimeout="60s")
    if on_delete is not None:
        props["onDelete"] = on_delete
    props.update(jobName=CURRENT, state="JOB_STATE_RUNNING", attempt=1)
    if past_elsewhere:
        props["resubmission"] = {"fallback": [{"strategy": "SPOT", "location": "europe-west4"}]}
        props["attempt"] = 3
        props["history"] = [
            {"jobId": "100", "jobName": f"{PARENT}/us-central1/customJobs/100", "state": "JOB_STATE_FAILED"},
            {"jobId": "200", "jobName": f"{PARENT}/europe-west4/customJobs/200", "state": "JOB_STATE_FAILED"},
        ]
    props["submissionKey"] = spec.submission_key(props, props["attempt"])
    return props


@pytest.mark.parametrize("past_elsewhere", [False, True], ids=["one attempt", "past attempts elsewhere"])
@pytest.mark.parametrize(
    ("on_delete", "cancels", "deletes"),
    [(None, True, True), ("delete", True, True), ("cancel", True, False), ("keep", False, False)],
    ids=["default", "delete", "cancel", "keep"],
)
def test_the_plan_for_each_on_delete(on_delete, cancels, deletes, past_elsewhere):
    props = stored(on_delete, past_elsewhere)
    planned = verdict.plan_delete(JobState.of(props, CURRENT), JobInputs.of(props))
    assert planned.on_delete is OnDelete(on_delete or "delete")
    assert planned.job == JobName.parse(CURRENT)
    assert (planned.cancel, planned.delete_record) == (cancels, deletes)
    assert planned.timeout == (60.0 if cancels else 0.0)
    # Copies of every attempt's key are stopped whatever onDelete says, sparing the job in state: under
    # keep, the job kept runs on, and a duplicate of its key converges to cancelled (submission.py).
    attempts = range(1, props["attempt"] + 1)
    assert planned.copies.keys == tuple(dict.fromkeys([props["submissionKey"], *(spec.submission_key(props, n) for n in attempts)]))
    assert planned.copies.spare == CURRENT
    if past_elsewhere:
        assert planned.copies.regions == ("us-central1", "europe-west4")
        past = (JobName.parse(f"{PARENT}/us-central1/customJobs/100"), JobName.parse(f"{PARENT}/europe-west4/customJobs/200"))
        assert planned.past_records == (past if deletes else ())
        assert planned.past_records == () or planned.past_records[1].location == "europe-west4"
    else:
        assert planned.copies.regions == ("us-central1",)
        assert planned.past_records == ()


def test_a_past_attempt_in_a_region_the_ladder_no_longer_names_is_still_looked_in():
    props = stored("delete", past_elsewhere=True)
    props["resubmission"] = {}  # the ladder changed since; attempt 2 ran in europe-west4 all the same
    planned = verdict.plan_delete(JobState.of(props, CURRENT), JobInputs.of(props))
    assert "europe-west4" in planned.copies.regions
    assert [str(job) for job in planned.past_records][1].startswith(f"{PARENT}/europe-west4/")
