"""The edges where a job could bill with no state pointing to it, silently not
run, or fail with a traceback instead of what to do: each through the SDK's
dynamic provider host, as `pulumi up` drives it, against the emulator."""

from __future__ import annotations

import copy
import socket

import grpc
import pytest
from pulumi.runtime.proto import provider_pb2

from components.spot_job.model import submission_labels
from tests.program import one_job_inputs
from tests.provider_host import JOB_TYPE, ProviderHost, deserialize
from tests.shared_host import emulator, host  # noqa: F401 (fixtures: one host per module)

URN = f"urn:pulumi:dev::spot-training::{JOB_TYPE}::vision-resnet"


@pytest.fixture(scope="module")
def program_inputs():
    return one_job_inputs()


def checked(host, inputs, **changes) -> dict:
    news = copy.deepcopy(inputs)
    news.update(changes)
    return deserialize(host.check(URN, {}, news).inputs)


def with_machine(inputs: dict, machine: str) -> dict:
    news = copy.deepcopy(inputs)
    news["jobSpec"]["workerPoolSpecs"][0]["machineSpec"]["machineType"] = machine
    return news


def states(emulator) -> dict[str, str]:
    return {job.name: job.state.name for job in emulator.jobs()}


# --- 4. no job left running with no state pointing to it --------------------------------


def test_a_job_left_by_an_interrupted_create_of_an_earlier_spec_is_cancelled_by_the_next(host, emulator, program_inputs):
    # `up` submits spec A and dies before the engine records it: no state points to A.
    lost = host.create(URN, checked(host, program_inputs)).id
    # The spec is edited, and the next `up` creates the resource afresh.
    emulator.reset_calls()
    created = host.create(URN, checked(host, with_machine(program_inputs, "n1-highmem-8")))
    assert states(emulator) == {lost: "JOB_STATE_CANCELLING", created.id: "JOB_STATE_QUEUED"}
    # One look before the create, one after it (submission.py), one create.
    assert emulator.calls["ListCustomJobs"] == 2 and emulator.calls["CreateCustomJob"] == 1
    assert f"cancelling {lost} (JOB_STATE_QUEUED), an earlier submission of this resource that no state points to" in host.log


def test_with_on_delete_keep_nothing_of_the_resource_is_cancelled(host, emulator, program_inputs):
    lost = host.create(URN, checked(host, program_inputs, onDelete="keep")).id
    created = host.create(URN, checked(host, with_machine(program_inputs, "n1-highmem-8"), onDelete="keep"))
    assert states(emulator) == {lost: "JOB_STATE_QUEUED", created.id: "JOB_STATE_QUEUED"}
    assert "cancelling" not in host.log


def test_another_resources_jobs_are_never_cancelled(host, emulator, program_inputs):
    other = host.create(URN, checked(host, program_inputs, submissionScope="spot-training/dev/vision-other")).id
    host.create(URN, checked(host, with_machine(program_inputs, "n1-highmem-8")))
    assert states(emulator)[other] == "JOB_STATE_QUEUED"


# --- 5. a job this stack cancelled is never adopted back ----------------------------------


def test_destroy_with_on_delete_cancel_then_up_runs_the_job_again(host, emulator, program_inputs):
    inputs = checked(host, program_inputs, onDelete="cancel")
    first = host.create(URN, inputs)
    host.delete(URN, first.id, deserialize(first.properties))
    assert states(emulator) == {first.id: "JOB_STATE_CANCELLED"}  # the record stays, as asked

    again = host.create(URN, inputs)
    assert again.id != first.id and states(emulator)[again.id] == "JOB_STATE_QUEUED"
    assert emulator.calls["CreateCustomJob"] == 2


def test_a_spec_changed_a_to_b_and_back_to_a_runs_a_again(host, emulator, program_inputs):
    a = checked(host, program_inputs, onDelete="cancel")
    b = checked(host, with_machine(program_inputs, "n1-highmem-8"), onDelete="cancel")
    first = host.create(URN, a)
    host.delete(URN, first.id, deserialize(first.properties))  # replaced: cancelled first
    second = host.create(URN, b)
    host.delete(URN, second.id, deserialize(second.properties))
    third = host.create(URN, a)
    assert third.id not in (first.id, second.id)
    assert states(emulator)[third.id] == "JOB_STATE_QUEUED" and emulator.calls["CreateCustomJob"] == 3


# --- 13. the list filter is a search; labels decide --------------------------------------


def test_a_job_of_another_stack_with_the_same_display_name_is_not_adopted(host, emulator, program_inputs):
    theirs = host.create(URN, checked(host, program_inputs, submissionScope="spot-training/staging/vision-resnet")).id
    ours = host.create(URN, checked(host, program_inputs))
    assert ours.id != theirs and emulator.calls["CreateCustomJob"] == 2
    assert states(emulator)[theirs] == "JOB_STATE_QUEUED"  # not ours to cancel either


def test_a_filter_vertex_reads_differently_cannot_make_a_wrong_adoption(host, emulator, program_inputs):
    emulator.ignore_filter = True  # every list answers with every job of the region
    theirs = host.create(URN, checked(host, program_inputs, submissionScope="spot-training/staging/vision-resnet")).id
    ours = host.create(URN, checked(host, program_inputs))
    assert ours.id != theirs and states(emulator)[theirs] == "JOB_STATE_QUEUED"


def test_own_label_keys_need_no_escaping_in_a_list_filter():
    # AIP-160 (https://google.aip.dev/160): a field path of letters, digits and '_' needs no quoting.
    for key in (submission_labels.SUBMISSION_LABEL, submission_labels.RESOURCE_LABEL, submission_labels.STACK_LABEL, submission_labels.RELEASE_LABEL):
        assert key.replace("_", "").isalnum() and key.islower()


def test_every_label_a_submission_carries_is_one_vertex_accepts(host, emulator, program_inputs):
    created = host.create(URN, checked(host, program_inputs, onDelete="keep"))
    job = emulator.job(created.id)
    scope = program_inputs["submissionScope"]
    assert job.labels[submission_labels.RESOURCE_LABEL] == submission_labels.resource_value(scope)
    assert job.labels[submission_labels.STACK_LABEL] == submission_labels.stack_value("spot-training/dev")
    assert job.labels[submission_labels.RELEASE_LABEL] == "keep"


# --- 8. NOT_FOUND of the job, or of its project: gone, or an error ------------------------


@pytest.mark.parametrize("code", [grpc.StatusCode.NOT_FOUND, grpc.StatusCode.PERMISSION_DENIED])
def test_a_deleted_or_mistyped_project_fails_refresh_and_destroy_instead_of_dropping_jobs(host, emulator, program_inputs, code):
    created = host.create(URN, checked(host, program_inputs))
    emulator.set_state(created.id, "JOB_STATE_RUNNING")
    emulator.deny_project("acme-ml-dev", code)
    state = deserialize(created.properties)

    with pytest.raises(grpc.RpcError) as refresh:
        host.read(URN, created.id, state)
    with pytest.raises(grpc.RpcError) as destroy:
        host.delete(URN, created.id, state)
    for failed in (refresh.value, destroy.value):
        message = failed.details()
        assert "Traceback" not in message and "projects/acme-ml-dev" in message
        assert "roles/aiplatform.viewer" in message or "does not exist" in message
    assert states(emulator) == {created.id: "JOB_STATE_RUNNING"}  # still running, still in state


def test_permission_denied_is_one_paragraph_naming_the_role_and_the_job(host, emulator, program_inputs):
    created = host.create(URN, checked(host, program_inputs))
    emulator.inject("GetCustomJob", grpc.StatusCode.PERMISSION_DENIED, times=1)
    with pytest.raises(grpc.RpcError) as failed:
        host.read(URN, created.id, deserialize(created.properties))
    message = failed.value.details()
    assert "Traceback" not in message and "grpc" not in message.lower()
    assert f"permission to read the job ({created.id})" in message and "roles/aiplatform.viewer" in message
    assert message.count("\n") <= 1


def test_unauthenticated_says_to_sign_in_again(host, emulator, program_inputs):
    emulator.inject("ListCustomJobs", grpc.StatusCode.UNAUTHENTICATED, times=1)
    with pytest.raises(grpc.RpcError) as failed:
        host.create(URN, checked(host, program_inputs))
    assert "gcloud auth application-default login" in failed.value.details()
    assert "Traceback" not in failed.value.details()
    assert emulator.calls["CreateCustomJob"] == 0


def test_a_bug_still_reports_its_traceback(host, emulator, program_inputs):
    """Only the provider's own errors lose the traceback; anything else keeps it for the bug report."""
    state = deserialize(host.create(URN, checked(host, program_inputs)).properties)
    state["history"] = "not a list"  # a state no version writes
    emulator.inject("GetCustomJob", grpc.StatusCode.PERMISSION_DENIED, times=1)
    with pytest.raises(grpc.RpcError):  # a clean error first ...
        host.read(URN, state["jobName"], state)
    with pytest.raises(grpc.RpcError) as bug:  # ... leaves the next bug its traceback
        host.delete(URN, state["jobName"], {**state, "onDelete": "delete", "history": [{"jobName": "projects/x"}]})
    assert "Traceback (most recent call last)" in bug.value.details()


# --- 9. an unreachable endpoint fails within a bound, naming it ----------------------------


def test_an_unreachable_endpoint_fails_after_the_connect_bound_naming_it(program_inputs):
    with socket.socket() as probe:  # a port nothing listens on
        probe.bind(("127.0.0.1", 0))
        address = f"127.0.0.1:{probe.getsockname()[1]}"
    env = {"AIPLATFORM_EMULATOR_HOST": address, "SPOT_TRAINING_CONNECT_TIMEOUT": "0.5"}
    with ProviderHost(env) as host:
        inputs = checked(host, program_inputs)
        with pytest.raises(grpc.RpcError) as failed:
            host.create(URN, inputs)
    message = failed.value.details()
    assert f"no connection to {address} within 0s" in message or f"no connection to {address} within 1s" in message
    assert "SPOT_TRAINING_CONNECT_TIMEOUT" in message and "Traceback" not in message


# --- 10. one coercion of numbers; bare ids -------------------------------------------------


def test_numbers_written_as_strings_steer_the_resubmission_policy(host, emulator, program_inputs):
    inputs = checked(
        host, program_inputs,
        resubmission={"maxResubmissions": "1", "fallback": [{"afterStockouts": "1", "strategy": "STANDARD"}]},
    )
    created = host.create(URN, inputs)
    emulator.preempt(created.id)
    failed = deserialize(host.read(URN, created.id, deserialize(created.properties)).properties)
    second = deserialize(host.update(URN, created.id, failed, inputs).properties)
    assert second["attempt"] == 2 and second["strategy"] == "STANDARD"  # afterStockouts "1" applied

    emulator.preempt(second["jobName"])
    failed = deserialize(host.read(URN, created.id, second).properties)
    assert host.diff(URN, created.id, failed, inputs).changes == provider_pb2.DiffResponse.DIFF_NONE
    assert "maxResubmissions reached after 2 attempts" in host.log  # "1" resubmission, not the default 3


def test_a_state_whose_id_is_a_bare_job_id_refreshes_and_destroys(host, emulator, program_inputs):
    created = host.create(URN, checked(host, program_inputs))
    state = deserialize(created.properties)
    bare = state.pop("jobName").rsplit("/", 1)[-1]
    read = host.read(URN, bare, state)
    assert read.id == bare and deserialize(read.properties)["jobName"] == created.id
    host.delete(URN, bare, state)
    assert emulator.jobs() == []


def test_a_clean_error_in_this_process_leaves_the_pulumi_sdk_its_stack_traces(emulator, program_inputs):
    """Only the host process trades tracebacks for clean messages: the SDK reads stacks
    to register resources, and a program in the same process must still run."""
    from components.spot_job.client.job_service import VertexError
    from components.spot_job.provider import SpotTrainingJobProvider
    from tests.program import one_job_inputs

    emulator.deny_project("acme-ml-dev")
    with pytest.raises(VertexError):
        SpotTrainingJobProvider().read("projects/acme-ml-dev/locations/us-central1/customJobs/1", {})
    assert one_job_inputs()["displayName"] == program_inputs["displayName"]
