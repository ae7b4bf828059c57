"""Issue 13 (2): the provider paces its calls to Vertex AI's per-region quotas.

Through the dynamic provider host, as `pulumi up` drives it: the engine sends
creates on the host's 4 threads at once, against the emulator enforcing the
quotas on a clock S times faster than real time; the host's limiter runs on the
same scale (SPOT_TRAINING_EMULATOR_TIME_SCALE, read only with the emulator).
No assertion is about time: what is checked is what the emulator admitted.
"""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from datetime import datetime

import pytest

from components.spot_job.client import quota_pacing
from components.spot_job.model import spec
from tests.emulator import JobServiceEmulator
from tests.program import render
from tests.provider_host import JOB_TYPE, ProviderHost, deserialize
from tests.test_stack_config import config, failures_of

HOST_THREADS = 4  # the SDK's dynamic provider host serves this many calls at once


def urn(i: int) -> str:
    return f"urn:pulumi:dev::spot-training::{JOB_TYPE}::job-{i}"


def job_inputs(quotas: dict | None = None) -> dict:
    """What the program registers for one job, with `spot-training:quotas` set to `quotas`."""
    cfg = config(**({"spot-training:quotas": quotas} if quotas else {}))
    [job] = render(cfg).of_type("SpotTrainingJob")
    return dict(job.inputs)


def create_all(host: ProviderHost, inputs: dict, n: int) -> None:
    """n jobs (each its own resource), created through the host on as many threads as it serves."""

    def create(i: int) -> None:
        props = {**inputs, "submissionScope": f"spot-training/dev/job-{i}"}
        host.create(urn(i), deserialize(host.check(urn(i), {}, props).inputs))

    with ThreadPoolExecutor(HOST_THREADS) as pool:
        list(pool.map(create, range(n)))


def most_in_a_window(times: list[datetime], window: float) -> int:
    """The most submissions any span of `window` real seconds holds."""
    seconds = sorted(t.timestamp() for t in times)
    return max(sum(1 for u in seconds[i:] if u - t < window) for i, t in enumerate(seconds))


def exhausted(emu: JobServiceEmulator) -> int:
    return sum(n for (rpc, code), n in emu.failures.items() if code == "RESOURCE_EXHAUSTED")


@pytest.fixture
def paced(request):
    """An emulator and a host whose quota minute lasts 60/S real seconds (S the test's param)."""
    scale = request.param
    with JobServiceEmulator() as emu, ProviderHost(
        {"AIPLATFORM_EMULATOR_HOST": emu.address, quota_pacing.TIME_SCALE_ENV: str(scale)}
    ) as host:
        yield emu, host, scale


@pytest.mark.parametrize("paced", [30], indirect=True)  # a quota minute is 2 real seconds
def test_concurrent_creates_from_the_hosts_threads_never_exceed_the_quota_in_any_minute(paced):
    emu, host, scale = paced
    submissions, calls = 10, 20  # per minute; small, so a few windows pass in seconds
    emu.submission_quota(submissions, time_scale=scale)
    emu.crud_quota(calls, time_scale=scale)
    jobs = 25  # 3 windows of submissions, and each create also lists the resource's jobs
    create_all(host, job_inputs({"submissionsPerMinute": submissions, "callsPerMinute": calls}), jobs)

    assert len(emu.jobs()) == jobs
    assert exhausted(emu) == 0, emu.failures
    assert emu.calls["CreateCustomJob"] == jobs  # none rejected and tried again
    assert most_in_a_window([j.create_time for j in emu.jobs()], 60 / scale) <= submissions


@pytest.mark.parametrize("paced", [2], indirect=True)  # a quota minute is 30 real seconds: the burst fits in one
def test_a_raised_quota_in_the_stack_config_is_honoured(paced):
    emu, host, scale = paced
    raised = 70  # above Vertex's default of 60 submissions a minute
    emu.submission_quota(raised, time_scale=scale)
    emu.crud_quota(quota_pacing.CALLS_PER_MINUTE, time_scale=scale)
    create_all(host, job_inputs({"submissionsPerMinute": raised}), raised)

    assert exhausted(emu) == 0, emu.failures
    # More than the default lets through in a minute: the host paced to the raised value.
    assert quota_pacing.SUBMISSIONS_PER_MINUTE < most_in_a_window([j.create_time for j in emu.jobs()], 60 / scale) <= raised


def test_the_quotas_reach_every_job_as_a_knob_outside_its_submission_key():
    default, raised = job_inputs(), job_inputs({"submissionsPerMinute": 120, "callsPerMinute": 1200})
    assert default.get("quotas") is None
    assert raised["quotas"] == {"submissionsPerMinute": 120, "callsPerMinute": 1200}
    assert "quotas" in spec.KNOB_FIELDS and "quotas" not in spec.JOB_FIELDS
    assert spec.submission_key(raised) == spec.submission_key(default)
    assert spec.job_definition(raised) == spec.job_definition(default)


@pytest.mark.parametrize(
    "quotas, expected",
    [
        ({"submissionsPerMinute": 0}, "spot-training:quotas.submissionsPerMinute: must be a whole number"),
        ({"callsPerMinute": "lots"}, "spot-training:quotas.callsPerMinute: must be a whole number"),
        ({"callsPerMinute": 1.5}, "spot-training:quotas.callsPerMinute: must be a whole number"),
        ({"submissionsPerMinut": 60}, "spot-training:quotas.submissionsPerMinut: unknown key"),
        ([60, 600], "spot-training:quotas: must be a map"),
    ],
)
def test_an_invalid_quota_config_is_an_error_naming_its_key(quotas, expected):
    assert expected in failures_of(config(**{"spot-training:quotas": quotas}))


def test_a_quota_below_one_in_a_jobs_inputs_fails_check_naming_the_field():
    failures = spec.validate({**job_inputs(), "quotas": {"callsPerMinute": 0}})
    assert [f.path for f in failures] == ["quotas.callsPerMinute"]


def test_submissions_and_deletes_share_the_submission_quota_and_every_other_call_the_crud_one():
    # https://cloud.google.com/vertex-ai/docs/quotas: creating or deleting a custom job is a job submission.
    assert {m: quota_pacing.kind(m) for m in ("create_custom_job", "delete_custom_job")} == dict.fromkeys(
        ("create_custom_job", "delete_custom_job"), quota_pacing.SUBMISSIONS
    )
    for method in ("get_custom_job", "list_custom_jobs", "cancel_custom_job"):
        assert quota_pacing.kind(method) == quota_pacing.CALLS


def test_the_time_scale_is_read_only_against_the_emulator(monkeypatch):
    monkeypatch.setenv(quota_pacing.TIME_SCALE_ENV, "60")
    monkeypatch.delenv("AIPLATFORM_EMULATOR_HOST", raising=False)
    assert quota_pacing.time_scale() == 1.0  # a real stack's minute is a minute
    monkeypatch.setenv("AIPLATFORM_EMULATOR_HOST", "127.0.0.1:1")
    assert quota_pacing.time_scale() == 60.0


def test_every_page_of_a_list_is_a_call_of_its_own_paced_and_retried(emulator, fast_pace, monkeypatch):
    import grpc

    from components.spot_job.client import job_service

    parent = "projects/acme-ml-dev/locations/us-central1"
    for i in range(150):  # two pages of 100
        emulator.restore({"name": f"{parent}/customJobs/{10**18 + i}", "displayName": "resnet", "labels": {"k": "v"},
                          "state": "JOB_STATE_SUCCEEDED", "jobSpec": {"workerPoolSpecs": []}})
    emulator.inject("ListCustomJobs", grpc.StatusCode.UNAVAILABLE, calls=[2])  # the second page's first try
    waited = []
    monkeypatch.setattr(quota_pacing.Pacer, "wait", lambda self, method: waited.append(method))
    service = job_service.JobService("us-central1")
    assert len(service.labelled(parent, "k", "v")) == 150
    assert emulator.calls["ListCustomJobs"] == 3
    assert waited == ["list_custom_jobs"] * 3  # the retry waited for its slot too
