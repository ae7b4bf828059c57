"""The JobService emulator, driven through the real aiplatform_v1 client over gRPC."""

import re
from collections import Counter
from concurrent.futures import ThreadPoolExecutor

import grpc
import pytest
from google.api_core import exceptions
from google.cloud import aiplatform_v1
from google.cloud.aiplatform_v1.services.job_service.transports import JobServiceGrpcTransport

from tests.emulator import JobServiceEmulator

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


@pytest.mark.parametrize("bad", ['labels.team:"vision"', 'labels.team="a" OR labels.team="b"', "state=JOB_STATE_BOGUS", "create_time>1"])
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
