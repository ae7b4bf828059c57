"""The JobService emulator, driven through the real aiplatform_v1 client over gRPC."""

import re
import threading
import time
from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from datetime import datetime, timedelta, timezone

import grpc
import pytest
from google.api_core import exceptions
from google.cloud import aiplatform_v1
from google.cloud.aiplatform_v1.services.job_service.transports import JobServiceGrpcTransport

from sandbox.jobservice.quota import SubmissionQuota
from tests.emulator import STOCKOUT_ERROR, JobServiceEmulator

PARENT = "projects/acme/locations/us-central1"
S = aiplatform_v1.JobState


@pytest.fixture
def emu():
    with JobServiceEmulator() as emu:
        yield emu


@pytest.fixture
def client(emu):
    channel = grpc.insecure_channel(emu.address)
    yield aiplatform_v1.JobServiceClient(transport=JobServiceGrpcTransport(channel=channel))
    channel.close()


TASKS = {
    "container": {"container_spec": {"image_uri": "us-docker.pkg.dev/acme/train/resnet:1", "args": ["--epochs", "3"]}},
    "python": {"python_package_spec": {"executor_image_uri": "us-docker.pkg.dev/acme/exec:1", "python_module": "trainer.task"}},
    None: {},
}


def pool(machine_type="n1-standard-8", task="container") -> dict:
    machine = {"machine_type": machine_type, "accelerator_type": "NVIDIA_TESLA_T4", "accelerator_count": 1}
    return {"machine_spec": machine, "replica_count": 1, **TASKS[task]}


def job(display_name="resnet", labels=None, pools=None) -> aiplatform_v1.CustomJob:
    return aiplatform_v1.CustomJob(
        display_name=display_name,
        labels={"team": "vision"} if labels is None else labels,
        job_spec={"worker_pool_specs": [pool()] if pools is None else pools, "scheduling": {"strategy": "SPOT"}},
        encryption_spec={"kms_key_name": "projects/acme/locations/us-central1/keyRings/r/cryptoKeys/k"},
    )


def create(client, **kwargs) -> aiplatform_v1.CustomJob:
    return client.create_custom_job(parent=PARENT, custom_job=job(**kwargs))


def test_create_then_get_round_trips_the_spec_and_server_fields(client):
    sent = job()
    created = client.create_custom_job(parent=PARENT, custom_job=sent)
    assert re.fullmatch(rf"{PARENT}/customJobs/\d{{19}}", created.name)
    assert created.state == S.JOB_STATE_QUEUED
    assert created.create_time and created.update_time and not created.start_time
    got = client.get_custom_job(name=created.name)
    assert got == created
    assert (got.job_spec, got.labels, got.display_name, got.encryption_spec) == (
        sent.job_spec, sent.labels, sent.display_name, sent.encryption_spec
    )


@pytest.mark.parametrize(
    ("kwargs", "field"),
    [
        ({"parent": "projects/acme"}, "parent"),
        ({"display_name": ""}, "display_name is required"),
        ({"pools": []}, "job_spec.worker_pool_specs is required"),
        ({"pools": [{}]}, "job_spec.worker_pool_specs[0].machine_spec.machine_type is required"),
        ({"pools": [pool(machine_type="")]}, "job_spec.worker_pool_specs[0].machine_spec.machine_type is required"),
        ({"pools": [pool(), pool(task=None)]}, "job_spec.worker_pool_specs[1] must set exactly one of container_spec or python_package_spec"),
        ({"labels": {"Team": "vision"}}, "labels: invalid key 'Team'"),
        ({"labels": {"k" * 64: "v"}}, "labels: invalid key"),
        ({"labels": {"team": "Vision"}}, "labels: invalid value 'Vision'"),
        ({"labels": {"team": "v" * 64}}, "labels: invalid value"),
        ({"labels": {f"k{i}": "" for i in range(65)}}, "labels: at most 64"),
    ],
)
def test_create_rejects_an_invalid_job_naming_the_field(emu, client, kwargs, field):
    parent = kwargs.pop("parent", PARENT)
    with pytest.raises(exceptions.InvalidArgument) as raised:
        client.create_custom_job(parent=parent, custom_job=job(**kwargs))
    assert field in raised.value.message
    assert emu.jobs() == []


# CustomJob.labels: "International characters are allowed"
# https://cloud.google.com/java/docs/reference/google-cloud-aiplatform/3.45.0/com.google.cloud.aiplatform.v1.CustomJobOrBuilder
def test_a_label_value_in_lowercase_letters_of_any_script_is_accepted(client):
    created = create(client, labels={"team": "équipe-视觉_1"})
    assert created.labels["team"] == "équipe-视觉_1"


def test_an_empty_pool_after_the_first_is_a_skipped_position(client):
    created = create(client, pools=[pool(), {}, pool(task="python")])
    assert len(created.job_spec.worker_pool_specs) == 3
    assert created.job_spec.worker_pool_specs[2].python_package_spec.python_module == "trainer.task"


def test_list_with_a_labels_filter_returns_exactly_the_matching_jobs_of_that_parent(client):
    run_a = create(client, labels={"team": "vision", "run": "a"}).name
    vision = {run_a, create(client, labels={"team": "vision"}).name}
    create(client, labels={"team": "nlp"})
    create(client, labels={})
    client.create_custom_job(parent="projects/acme/locations/europe-west4", custom_job=job())

    def names(filter):
        return {j.name for j in client.list_custom_jobs(request={"parent": PARENT, "filter": filter})}

    assert names('labels.team="vision"') == vision
    assert names("labels.team=vision") == vision
    assert names('labels.team="vision" AND labels.run=a AND state="JOB_STATE_QUEUED"') == {run_a}
    assert names('display_name="resnet" AND state=JOB_STATE_RUNNING') == set()
    assert len(names("")) == 4


@pytest.mark.parametrize("bad", ['labels.team:"vision"', 'NOT labels.team="a"', "state=JOB_STATE_BOGUS", "create_time>1"])
def test_list_rejects_an_unsupported_filter(client, bad):
    with pytest.raises(exceptions.InvalidArgument, match="unsupported filter"):
        list(client.list_custom_jobs(request={"parent": PARENT, "filter": bad}))


def test_list_pages_newest_first_across_page_tokens(emu, client):
    created = [create(client, display_name=f"run-{i}").name for i in range(5)]
    emu.reset_calls()
    pager = client.list_custom_jobs(request={"parent": PARENT, "page_size": 2})
    pages = [[j.name for j in page.custom_jobs] for page in pager.pages]
    assert pages == [created[4:2:-1], created[2:0:-1], created[:1]]
    assert emu.calls["ListCustomJobs"] == 3


def test_cancel_of_a_running_job_is_cancelling_then_cancelled_after_the_polls(emu, client):
    name = create(client).name
    emu.set_state(name, "JOB_STATE_RUNNING")
    emu.cancel_polls = 2
    client.cancel_custom_job(name=name)
    assert [client.get_custom_job(name=name).state for _ in range(3)] == [S.JOB_STATE_CANCELLING] * 2 + [S.JOB_STATE_CANCELLED]
    done = client.get_custom_job(name=name)
    assert (done.error.code, done.error.message) == (1, "CANCELLED")
    assert done.end_time and done.start_time


def test_hold_cancelling_keeps_a_job_cancelling_until_set_state(emu, client):
    name = create(client).name
    emu.hold_cancelling = True
    client.cancel_custom_job(name=name)
    assert {client.get_custom_job(name=name).state for _ in range(5)} == {S.JOB_STATE_CANCELLING}
    emu.set_state(name, "JOB_STATE_CANCELLED")
    assert client.get_custom_job(name=name).state == S.JOB_STATE_CANCELLED


@pytest.mark.parametrize("terminal", ["JOB_STATE_SUCCEEDED", "JOB_STATE_FAILED", "JOB_STATE_CANCELLED", "JOB_STATE_EXPIRED"])
def test_cancel_of_a_terminal_job_is_a_failed_precondition(emu, client, terminal):
    name = create(client).name
    emu.set_state(name, terminal)
    with pytest.raises(exceptions.FailedPrecondition):
        client.cancel_custom_job(name=name)
    assert emu.job(name).state == S[terminal]


def test_delete_of_a_running_job_is_a_failed_precondition_and_keeps_it(emu, client):
    name = create(client).name
    emu.set_state(name, "JOB_STATE_RUNNING")
    with pytest.raises(exceptions.FailedPrecondition, match="cannot be deleted while it is in state JOB_STATE_RUNNING"):
        client.delete_custom_job(name=name)
    assert [j.name for j in emu.jobs()] == [name]


def test_delete_of_a_terminal_job_completes_its_operation_and_the_job_is_gone(emu, client):
    name = create(client).name
    emu.set_state(name, "JOB_STATE_SUCCEEDED")
    operation = client.delete_custom_job(name=name)
    assert operation.operation.name.startswith(f"{name}/operations/")
    assert isinstance(operation.metadata, aiplatform_v1.DeleteOperationMetadata)
    operation.result(timeout=10)
    assert operation.done()
    with pytest.raises(exceptions.NotFound):
        client.get_custom_job(name=name)
    assert emu.jobs() == []


def test_unknown_names_are_not_found(client):
    missing = f"{PARENT}/customJobs/1234567890123456789"
    for call in (client.get_custom_job, client.cancel_custom_job, client.delete_custom_job):
        with pytest.raises(exceptions.NotFound, match="1234567890123456789"):
            call(name=missing)
    with pytest.raises(exceptions.NotFound):
        client.get_operation(request={"name": f"{missing}/operations/1"})


def test_remove_deletes_out_of_band(emu, client):
    name = create(client).name
    emu.remove(name)
    with pytest.raises(exceptions.NotFound):
        client.get_custom_job(name=name)
    with pytest.raises(KeyError):
        emu.job(name)


def test_advance_walks_to_succeeded_stamping_times(emu, client):
    name = create(client).name
    states = []
    for _ in range(3):
        emu.advance(name)
        states.append(client.get_custom_job(name=name).state)
    assert states == [S.JOB_STATE_PENDING, S.JOB_STATE_RUNNING, S.JOB_STATE_SUCCEEDED]
    done = emu.job(name)
    assert done.start_time and done.end_time >= done.start_time and done.update_time >= done.create_time
    with pytest.raises(ValueError):
        emu.advance(name)


def test_set_state_with_an_error_is_what_the_client_reads(emu, client):
    name = create(client).name
    emu.set_state(name, "JOB_STATE_FAILED", error=(8, "The job was preempted: STOCKOUT"))
    failed = client.get_custom_job(name=name)
    assert (failed.state, failed.error.code, failed.error.message) == (S.JOB_STATE_FAILED, 8, "The job was preempted: STOCKOUT")
    assert failed.end_time


def test_calls_count_exactly_the_rpcs_made(emu, client):
    name = create(client).name
    client.get_custom_job(name=name)
    list(client.list_custom_jobs(parent=PARENT))
    with pytest.raises(exceptions.InvalidArgument):
        create(client, display_name="")
    client.cancel_custom_job(name=name)
    client.get_custom_job(name=name)
    client.get_custom_job(name=name)
    client.delete_custom_job(name=name).result(timeout=10)
    assert emu.calls == Counter(
        CreateCustomJob=2, GetCustomJob=3, ListCustomJobs=1, CancelCustomJob=1, DeleteCustomJob=1, GetOperation=1
    )
    emu.reset_calls()
    assert sum(emu.calls.values()) == 0


def test_concurrent_creates_each_get_their_own_job(emu, client):
    with ThreadPoolExecutor(max_workers=8) as pool_:
        names = list(pool_.map(lambda i: create(client, display_name=f"run-{i}").name, range(40)))
    assert len(set(names)) == 40 and {j.name for j in emu.jobs()} == set(names)
    assert emu.calls["CreateCustomJob"] == 40


def test_start_returns_the_address_and_stop_is_idempotent():
    emu = JobServiceEmulator()
    assert emu.address is None
    first = emu.start()
    assert re.fullmatch(r"127\.0\.0\.1:\d+", first) and emu.address == first
    emu.stop()
    emu.stop()  # idempotent, so fixtures can stop unconditionally
    with emu:
        assert emu.address


# --- faults -------------------------------------------------------------------------------


def test_an_unavailable_injected_on_call_1_is_seen_by_the_client_and_call_2_succeeds(emu, client):
    name = create(client).name
    emu.inject("GetCustomJob", grpc.StatusCode.UNAVAILABLE, calls=[1])
    with pytest.raises(exceptions.ServiceUnavailable) as raised:
        client.get_custom_job(name=name, retry=None)
    assert raised.value.message == "The service is currently unavailable."
    assert client.get_custom_job(name=name, retry=None).name == name
    assert emu.calls["GetCustomJob"] == 2
    assert emu.failures == Counter({("GetCustomJob", "UNAVAILABLE"): 1})


def outcomes(call, n) -> list:
    results = []
    for _ in range(n):
        try:
            call()
            results.append("ok")
        except exceptions.GoogleAPICallError as e:
            results.append(type(e).__name__)
    return results


def test_calls_fail_only_those_call_numbers_and_times_the_next_n(emu, client):
    name = create(client).name
    emu.inject("GetCustomJob", grpc.StatusCode.INTERNAL, calls=[2, 4])
    assert outcomes(lambda: client.get_custom_job(name=name), 5) == ["ok", "InternalServerError", "ok", "InternalServerError", "ok"]
    emu.inject("ListCustomJobs", grpc.StatusCode.DEADLINE_EXCEEDED, times=2, message="slow down")
    with pytest.raises(exceptions.DeadlineExceeded, match="slow down"):
        list(client.list_custom_jobs(parent=PARENT))
    assert outcomes(lambda: list(client.list_custom_jobs(parent=PARENT)), 2) == ["DeadlineExceeded", "ok"]


def test_after_apply_creates_the_job_but_the_client_sees_the_error(emu, client):
    emu.inject("CreateCustomJob", grpc.StatusCode.UNAVAILABLE, times=1, after_apply=True)
    with pytest.raises(exceptions.ServiceUnavailable):
        create(client)
    assert [j.display_name for j in emu.jobs()] == ["resnet"]
    assert emu.failures == Counter({("CreateCustomJob", "UNAVAILABLE"): 1})


def test_a_fault_before_apply_leaves_nothing_behind(emu, client):
    emu.inject("CreateCustomJob", grpc.StatusCode.UNAVAILABLE, times=1)
    with pytest.raises(exceptions.ServiceUnavailable):
        create(client)
    assert emu.jobs() == []


def test_failures_count_the_stores_own_errors_too(emu, client):
    with pytest.raises(exceptions.NotFound):
        client.get_custom_job(name=f"{PARENT}/customJobs/1234567890123456789")
    with pytest.raises(exceptions.InvalidArgument):
        create(client, display_name="")
    assert emu.failures == Counter({("GetCustomJob", "NOT_FOUND"): 1, ("CreateCustomJob", "INVALID_ARGUMENT"): 1})
    emu.reset_calls()
    assert emu.failures == Counter()


@pytest.mark.parametrize(
    "kwargs",
    [
        {"rpc": "GetJob", "times": 1},
        {"rpc": "GetCustomJob"},
        {"rpc": "GetCustomJob", "times": 1, "calls": [1]},
        {"rpc": "GetCustomJob", "times": 0},
        {"rpc": "GetCustomJob", "calls": [0]},
        {"rpc": "GetCustomJob", "calls": []},
    ],
)
def test_inject_rejects_an_unknown_rpc_or_an_unclear_choice_of_calls(emu, kwargs):
    with pytest.raises(ValueError):
        emu.inject(code=grpc.StatusCode.UNAVAILABLE, **kwargs)


def test_clear_faults_drops_faults_and_delays(emu, client):
    name = create(client).name
    emu.inject("GetCustomJob", grpc.StatusCode.UNAVAILABLE, times=5)
    emu.delay("GetCustomJob", 30)
    emu.clear_faults()
    assert client.get_custom_job(name=name, timeout=10).name == name


# --- latency ------------------------------------------------------------------------------


def test_a_delayed_call_answers_no_sooner_than_the_delay(emu, client):
    name = create(client).name
    emu.delay("GetCustomJob", 0.3, calls=[1])
    started = time.monotonic()
    assert client.get_custom_job(name=name).name == name
    assert time.monotonic() - started >= 0.3


def test_a_client_that_gives_up_during_an_after_apply_delay_leaves_the_job_created(emu, client):
    emu.delay("CreateCustomJob", 30)  # after_apply by default; the fixture's stop() ends the wait
    with pytest.raises(exceptions.DeadlineExceeded):
        client.create_custom_job(parent=PARENT, custom_job=job(), timeout=1)
    assert [j.display_name for j in emu.jobs()] == ["resnet"]


def emulator_threads() -> list[threading.Thread]:
    return [t for t in threading.enumerate() if t.name.startswith("job-service-emulator")]


def test_stop_ends_a_pending_delay_at_once_without_carrying_out_the_call(emu, client):
    emu.delay("CreateCustomJob", 60, after_apply=False)
    with ThreadPoolExecutor(max_workers=1) as caller:
        pending = caller.submit(client.create_custom_job, parent=PARENT, custom_job=job(), timeout=30)
        while emu.calls["CreateCustomJob"] == 0:
            time.sleep(0.01)
        serving = emulator_threads()
        emu.stop()
        assert isinstance(pending.exception(timeout=10), exceptions.GoogleAPICallError)
    for thread in serving:
        thread.join(timeout=10)
    assert not any(t.is_alive() for t in serving)
    assert emu.jobs() == []


# --- preemption and scripts ----------------------------------------------------------------


def test_preempt_fails_the_job_with_the_stockout_error(emu, client):
    running, queued = create(client).name, create(client).name
    emu.set_state(running, "JOB_STATE_RUNNING")
    emu.preempt(running)
    emu.preempt(queued)
    for name in (running, queued):
        got = client.get_custom_job(name=name)
        assert (got.state, got.error.code) == (S.JOB_STATE_FAILED, 8)
        assert "STOCKOUT" in got.error.message and (got.error.code, got.error.message) == STOCKOUT_ERROR
        assert got.start_time and got.end_time >= got.start_time
    with pytest.raises(ValueError):
        emu.preempt(running)


def test_a_script_walks_queued_running_stockout_over_successive_gets(emu, client):
    emu.script("JOB_STATE_QUEUED", "JOB_STATE_RUNNING", "STOCKOUT")
    name = create(client).name
    assert client.get_custom_job(name=name).state == S.JOB_STATE_QUEUED
    for _ in range(2):  # lists do not advance a script
        assert [j.state for j in client.list_custom_jobs(parent=PARENT)] == [S.JOB_STATE_QUEUED]
    running = client.get_custom_job(name=name)
    assert running.state == S.JOB_STATE_RUNNING and running.start_time
    states = [client.get_custom_job(name=name) for _ in range(2)]
    assert [j.state for j in states] == [S.JOB_STATE_FAILED] * 2  # exhausted: it stays where it is
    assert (states[-1].error.code, states[-1].error.message) == STOCKOUT_ERROR
    assert states[-1].end_time >= states[-1].start_time


def test_scripts_go_to_the_next_jobs_created_in_order(emu, client):
    emu.script("JOB_STATE_RUNNING")
    emu.script(("JOB_STATE_FAILED", (13, "The replica workerpool0-0 exited with a non-zero status of 1.")))
    with pytest.raises(exceptions.InvalidArgument):
        create(client, display_name="")  # never created, so it takes no script
    first, second, plain = (create(client).name for _ in range(3))
    assert client.get_custom_job(name=first).state == S.JOB_STATE_RUNNING
    failed = client.get_custom_job(name=second)
    assert (failed.state, failed.error.code) == (S.JOB_STATE_FAILED, 13)
    assert client.get_custom_job(name=plain).state == S.JOB_STATE_QUEUED


def test_cancel_drops_the_rest_of_a_script(emu, client):
    emu.script("JOB_STATE_RUNNING", "JOB_STATE_SUCCEEDED")
    name = create(client).name
    assert client.get_custom_job(name=name).state == S.JOB_STATE_RUNNING
    client.cancel_custom_job(name=name)
    assert [client.get_custom_job(name=name).state for _ in range(2)] == [S.JOB_STATE_CANCELLING, S.JOB_STATE_CANCELLED]


@pytest.mark.parametrize("steps", [(), ("JOB_STATE_BOGUS",), (("RUNNING", None),)])
def test_script_rejects_an_empty_script_or_unknown_state(emu, steps):
    with pytest.raises(ValueError):
        emu.script(*steps)


# --- submission quota ------------------------------------------------------------------------


def test_the_quota_is_a_sliding_window_per_region_that_rejections_do_not_use():
    now = [0.0]
    quota = SubmissionQuota(3, clock=lambda: now[0])
    admitted = []
    for t in (0, 10, 20, 59.9, 60, 65, 70):
        now[0] = t
        admitted.append(quota.admit("us-central1"))
    assert admitted == [True, True, True, False, True, False, True]
    assert quota.admit("europe-west4")


def test_the_quota_rejects_the_submission_past_the_limit_until_the_window_passes(emu, client):
    emu.submission_quota(3, time_scale=120)  # one emulated minute is half a real second
    for _ in range(3):
        create(client)
    with pytest.raises(exceptions.ResourceExhausted) as raised:
        create(client)
    assert raised.value.message.startswith("Quota exceeded for quota metric 'Custom job creation requests'")
    assert "for consumer 'project_number:acme'" in raised.value.message
    client.create_custom_job(parent="projects/acme/locations/europe-west4", custom_job=job())  # another region's quota
    assert emu.failures == Counter({("CreateCustomJob", "RESOURCE_EXHAUSTED"): 1})
    time.sleep(0.6)
    create(client)
    assert len(emu.jobs()) == 5
    emu.submission_quota(None)
    for _ in range(5):
        create(client)


def test_the_crud_quota_caps_every_other_call_per_region_until_the_window_passes(emu, client):
    # https://cloud.google.com/vertex-ai/docs/quotas: resource management (CRUD) requests, 600 a minute.
    emu.crud_quota(3, time_scale=120)  # one emulated minute is half a real second
    name = create(client).name  # a submission: not a CRUD call
    client.get_custom_job(name=name)
    client.list_custom_jobs(parent=PARENT)
    client.cancel_custom_job(name=name)
    with pytest.raises(exceptions.ResourceExhausted) as raised:
        client.get_custom_job(name=name)
    assert raised.value.message.startswith("Quota exceeded for quota metric 'Resource management (CRUD) requests'")
    client.list_custom_jobs(parent="projects/acme/locations/europe-west4")  # another region's quota
    assert emu.failures == Counter({("GetCustomJob", "RESOURCE_EXHAUSTED"): 1})
    time.sleep(0.6)
    client.get_custom_job(name=name)
    emu.crud_quota(None)
    for _ in range(5):
        client.get_custom_job(name=name)


def test_a_delete_is_a_submission_as_google_counts_it(emu, client):
    # Google's quota page lists deleting a custom job among job and LRO submission requests.
    emu.crud_quota(1)
    name = create(client).name
    client.cancel_custom_job(name=name)  # the one CRUD call of the window
    emu.set_state(name, "JOB_STATE_CANCELLED")
    emu.submission_quota(1)  # a new, empty window
    client.delete_custom_job(name=name)
    with pytest.raises(exceptions.ResourceExhausted):
        create(client)


def test_a_create_failed_before_apply_uses_no_quota(emu, client):
    emu.submission_quota(1)
    emu.inject("CreateCustomJob", grpc.StatusCode.UNAVAILABLE, times=1)
    assert outcomes(lambda: create(client), 3) == ["ServiceUnavailable", "ok", "ResourceExhausted"]


# --- a distributed API: creates that land late, a list that lags -------------------------------


def eventually(look, timeout: float = 10.0):
    """What `look` returns once it is truthy; the wait is bounded so a defect fails instead of hanging."""
    deadline = time.monotonic() + timeout
    while not (seen := look()):
        assert time.monotonic() < deadline, "never happened"
        time.sleep(0.02)
    return seen


def listed(client, parent=PARENT) -> list[str]:
    return [j.name for j in client.list_custom_jobs(parent=parent)]


def test_a_create_that_lands_late_answers_at_once_and_shows_nothing_until_it_lands(emu, client):
    emu.create_lands_late(60, times=1)
    with pytest.raises(exceptions.DeadlineExceeded, match="Deadline Exceeded"):
        create(client)
    assert emu.jobs() == [] and listed(client) == []
    assert emu.failures == Counter({("CreateCustomJob", "DEADLINE_EXCEEDED"): 1})


def test_the_job_that_lands_late_is_the_one_asked_for_created_at_its_landing(emu, client):
    emu.create_lands_late(0.3, times=1)
    sent = job(labels={"team": "vision", "submission": "k-1"})
    asked_at = datetime.now(timezone.utc)
    with pytest.raises(exceptions.DeadlineExceeded):
        client.create_custom_job(parent=PARENT, custom_job=sent)
    [landed] = eventually(emu.jobs)
    assert (landed.display_name, landed.labels, landed.job_spec, landed.encryption_spec) == (
        sent.display_name, sent.labels, sent.job_spec, sent.encryption_spec
    )
    assert landed.state == S.JOB_STATE_QUEUED and landed.name.startswith(f"{PARENT}/customJobs/")
    assert landed.create_time >= asked_at + timedelta(seconds=0.3)
    assert listed(client) == [landed.name] and client.get_custom_job(name=landed.name) == landed
    assert create(client).create_time >= landed.create_time  # the next create is newer, and listed first
    assert listed(client)[1] == landed.name


def test_a_landing_zero_seconds_late_is_there_when_the_error_is_answered(emu, client):
    emu.create_lands_late(0, code=grpc.StatusCode.UNAVAILABLE, calls=[2])
    first = create(client, display_name="first").name
    with pytest.raises(exceptions.ServiceUnavailable):
        create(client, display_name="second")
    assert [j.display_name for j in client.list_custom_jobs(parent=PARENT)] == ["second", "first"]
    create(client, display_name="third")
    assert {j.display_name for j in emu.jobs()} == {"first", "second", "third"} and emu.job(first)


def test_concurrent_late_creates_each_land_their_own_job(emu, client):
    emu.create_lands_late(0.3, times=8)

    def attempt(i):
        with pytest.raises(exceptions.DeadlineExceeded):
            create(client, display_name=f"run-{i}", labels={"run": str(i)})

    with ThreadPoolExecutor(max_workers=8) as callers:
        list(callers.map(attempt, range(8)))
    landed = eventually(lambda: len(emu.jobs()) == 8 and emu.jobs())
    assert sorted((j.display_name, j.labels["run"]) for j in landed) == sorted((f"run-{i}", str(i)) for i in range(8))
    assert len({j.name for j in landed}) == 8 and create(client).name not in {j.name for j in landed}


def test_a_late_create_of_an_invalid_job_is_rejected_and_never_lands(emu, client):
    emu.create_lands_late(0, times=1)
    with pytest.raises(exceptions.InvalidArgument, match="display_name is required"):
        create(client, display_name="")
    assert emu.jobs() == []


def test_reset_cancels_a_pending_landing(emu, client):
    emu.create_lands_late(0.3, times=1)
    with pytest.raises(exceptions.DeadlineExceeded):
        create(client)
    emu.reset()
    time.sleep(0.5)
    assert emu.jobs() == [] and listed(client) == []
    assert create(client).name  # the knob went with the reset: creates answer again
    assert len(emu.jobs()) == 1


def test_a_lagging_list_shows_a_job_only_after_the_lag_while_get_cancel_and_delete_see_it_at_once(emu, client):
    emu.list_lag(60)
    name = create(client).name
    assert listed(client) == [] and [j.name for j in emu.jobs()] == [name]
    assert client.get_custom_job(name=name).name == name
    client.cancel_custom_job(name=name)
    emu.set_state(name, "JOB_STATE_CANCELLED")
    client.delete_custom_job(name=name).result(timeout=10)
    assert emu.jobs() == []


def test_a_lagging_list_shows_the_job_once_the_lag_passed_and_its_later_states_at_once(emu, client):
    emu.list_lag(0.3)
    name = create(client).name
    assert eventually(lambda: listed(client)) == [name]
    emu.set_state(name, "JOB_STATE_RUNNING")
    assert [j.state for j in client.list_custom_jobs(parent=PARENT)] == [S.JOB_STATE_RUNNING]


def test_list_lag_zero_and_reset_turn_it_off(emu, client):
    emu.list_lag(60)
    name = create(client).name
    emu.list_lag(0)
    assert listed(client) == [name]
    emu.list_lag(60)
    emu.reset()
    assert listed(client) == []
    fresh = create(client).name
    assert listed(client) == [fresh]
    with pytest.raises(ValueError):
        emu.list_lag(-1)
    with pytest.raises(ValueError):
        emu.create_lands_late(-1)
