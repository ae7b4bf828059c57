"""What the provider does when Vertex AI misbehaves: the emulator's faults, through the real client.

Transient errors are retried with backoff under a bounded deadline; a
submission whose answer was lost is looked up and adopted, never sent twice;
permanent errors fail at once and say what to do.
"""

import grpc
import pytest

from components.spot_job.client import job_service
from components.spot_job.model import spec
from components.spot_job.protocol import submission
from components.spot_job.provider import SpotTrainingJobProvider
from tests.fixtures import job_inputs

provider = SpotTrainingJobProvider()
pytestmark = pytest.mark.usefixtures("fast_pace")

TRANSIENT = [
    grpc.StatusCode.UNAVAILABLE,
    grpc.StatusCode.RESOURCE_EXHAUSTED,
    grpc.StatusCode.INTERNAL,
    grpc.StatusCode.DEADLINE_EXCEEDED,
]


def inputs(scope="spot-training/dev/resnet", **overrides) -> dict:
    return job_inputs(submissionScope=scope, **overrides)


@pytest.mark.parametrize("code", TRANSIENT, ids=lambda c: c.name)
def test_a_transient_error_before_the_submission_landed_is_retried(emulator, code):
    emulator.inject("CreateCustomJob", code, calls=[1])
    created = provider.create(inputs())
    assert [job.name for job in emulator.jobs()] == [created.id]
    assert emulator.calls["CreateCustomJob"] == 2
    assert emulator.failures[("CreateCustomJob", code.name)] == 1


@pytest.mark.parametrize("code", [grpc.StatusCode.UNAVAILABLE, grpc.StatusCode.DEADLINE_EXCEEDED], ids=lambda c: c.name)
def test_a_submission_whose_answer_was_lost_is_adopted_not_sent_twice(emulator, code):
    emulator.inject("CreateCustomJob", code, calls=[1], after_apply=True)
    created = provider.create(inputs())
    [job] = emulator.jobs()
    assert created.id == job.name
    assert emulator.calls["CreateCustomJob"] == 1  # the look-up before the retry found it
    assert created.outs["submissionKey"] == job.labels[spec.SUBMISSION_LABEL]


def test_a_failing_label_look_up_is_retried_before_anything_is_submitted(emulator):
    emulator.inject("ListCustomJobs", grpc.StatusCode.UNAVAILABLE, times=2)
    provider.create(inputs())
    # Two failed looks and the one that answered before the create, then the look after it.
    assert len(emulator.jobs()) == 1 and emulator.calls["ListCustomJobs"] == 4


def test_the_submission_quota_is_waited_out_and_every_job_lands_once(emulator):
    # The safety net under the pacing (client/quota_pacing.py): a quota lower than the one paced to (shared with
    # other clients, or set too high in spot-training:quotas) is met with RESOURCE_EXHAUSTED and retried.
    emulator.submission_quota(per_minute=2, time_scale=120)  # a minute lasts half a second
    scopes = [f"spot-training/dev/job-{i}" for i in range(5)]
    for scope in scopes:
        provider.create(inputs(scope))
    keys = sorted(job.labels[spec.SUBMISSION_LABEL] for job in emulator.jobs())
    assert keys == sorted(spec.submission_key(inputs(scope)) for scope in scopes)  # all, none twice
    assert emulator.failures[("CreateCustomJob", "RESOURCE_EXHAUSTED")] >= 1


@pytest.mark.parametrize("code", TRANSIENT, ids=lambda c: c.name)
def test_a_read_rides_out_transient_errors(emulator, code):
    created = provider.create(inputs())
    emulator.inject("GetCustomJob", code, times=2)
    assert provider.read(created.id, created.outs).outs["state"] == "JOB_STATE_QUEUED"
    assert emulator.failures[("GetCustomJob", code.name)] == 2


def test_a_transient_error_that_does_not_end_fails_after_the_deadline(emulator, monkeypatch):
    created = provider.create(inputs())
    monkeypatch.setattr(job_service, "READ_DEADLINE", 0.3)
    emulator.inject("GetCustomJob", grpc.StatusCode.UNAVAILABLE, times=10_000)
    with pytest.raises(job_service.VertexError, match=f"did not answer the request to read the job at {emulator.address}"):
        provider.read(created.id, created.outs)
    assert emulator.calls["GetCustomJob"] > 1


def test_a_delete_rides_out_transient_errors(emulator):
    created = provider.create(inputs())
    emulator.set_state(created.id, "JOB_STATE_RUNNING")
    for rpc in ("CancelCustomJob", "DeleteCustomJob"):
        emulator.inject(rpc, grpc.StatusCode.UNAVAILABLE, calls=[1])
    provider.delete(created.id, created.outs)
    assert emulator.jobs() == []


def test_permission_denied_fails_at_once_and_names_the_missing_grant(emulator):
    emulator.inject(
        "CreateCustomJob",
        grpc.StatusCode.PERMISSION_DENIED,
        times=1,
        message="Permission 'iam.serviceAccounts.actAs' denied on service account vision-train-dev@acme-ml-dev.iam.gserviceaccount.com",
    )
    with pytest.raises(job_service.VertexError, match=r"roles/iam\.serviceAccountUser \(actAs\)"):
        provider.create(inputs())
    assert emulator.calls["CreateCustomJob"] == 1 and emulator.jobs() == []


def test_invalid_argument_fails_at_once_with_vertexs_message(emulator):
    emulator.inject("CreateCustomJob", grpc.StatusCode.INVALID_ARGUMENT, times=1, message="Machine type n1-standard-4 is not supported with SPOT in us-central1-f.")
    with pytest.raises(job_service.VertexError, match="not supported with SPOT"):
        provider.create(inputs())
    assert emulator.calls["CreateCustomJob"] == 1


def test_a_missing_parent_fails_at_once_and_says_to_enable_the_api(emulator):
    emulator.inject("CreateCustomJob", grpc.StatusCode.NOT_FOUND, times=1, message="Project acme-ml-dev not found or API disabled.")
    with pytest.raises(job_service.VertexError, match="gcloud services enable aiplatform.googleapis.com"):
        provider.create(inputs())
    assert emulator.calls["CreateCustomJob"] == 1


def test_a_missing_parent_on_the_label_look_up_gets_the_same_advice(emulator):
    emulator.inject("ListCustomJobs", grpc.StatusCode.NOT_FOUND, times=1, message="Project acme-ml-dev not found or API disabled.")
    with pytest.raises(job_service.VertexError, match="gcloud services enable"):
        provider.create(inputs())
    assert emulator.calls["CreateCustomJob"] == 0


def test_a_submission_that_never_gets_through_is_one_clean_error_and_no_duplicate(emulator, monkeypatch):
    monkeypatch.setattr(job_service, "SUBMIT_DEADLINE", 1.5)
    monkeypatch.setenv(submission.SETTLE_ENV, "0.2")  # each lost answer looked for this long before the next create
    emulator.inject("CreateCustomJob", grpc.StatusCode.UNAVAILABLE, times=10_000)
    with pytest.raises(job_service.VertexError, match=f"did not accept the job at {emulator.address}"):
        provider.create(inputs())
    assert emulator.jobs() == [] and emulator.calls["CreateCustomJob"] > 1
