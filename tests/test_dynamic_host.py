"""End to end as the engine does it: the program's own `__provider` blob, the
SDK's dynamic provider host as a subprocess, and the emulator behind it."""

import copy

import pytest
from pulumi.runtime.proto import provider_pb2

from tests.program import one_job_inputs
from tests.provider_host import JOB_TYPE, ProviderHost, deserialize
from tests.shared_host import emulator, host  # noqa: F401 (fixtures: one host per module)

URN = f"urn:pulumi:dev::spot-training::{JOB_TYPE}::resnet"


@pytest.fixture
def program_inputs():
    return one_job_inputs()


def test_the_provider_blob_is_small_and_names_the_provider_by_reference(program_inputs):
    import base64

    blob = program_inputs["__provider"]
    assert len(blob) < 512
    assert b"components.spot_job.provider" in base64.b64decode(blob)


def test_check_create_read_diff_delete_through_the_host(host, emulator, program_inputs):
    checked = host.check(URN, {}, program_inputs)
    assert list(checked.failures) == []
    inputs = deserialize(checked.inputs)

    created = host.create(URN, inputs)
    [job] = emulator.jobs()
    assert created.id == job.name
    state = deserialize(created.properties)
    assert state["state"] == "JOB_STATE_QUEUED"
    assert state["__provider"] == program_inputs["__provider"]

    emulator.set_state(job.name, "JOB_STATE_RUNNING")
    read = host.read(URN, created.id, state)
    assert read.id == created.id
    state = deserialize(read.properties)
    assert state["state"] == "JOB_STATE_RUNNING"

    unchanged = host.diff(URN, created.id, state, inputs)
    assert unchanged.changes == provider_pb2.DiffResponse.DIFF_NONE

    changed_inputs = copy.deepcopy(inputs)
    changed_inputs["jobSpec"]["workerPoolSpecs"][0]["machineSpec"]["machineType"] = "n1-highmem-8"
    changed = host.diff(URN, created.id, state, changed_inputs)
    assert changed.changes == provider_pb2.DiffResponse.DIFF_SOME
    assert list(changed.replaces) == ["jobSpec"] and changed.deleteBeforeReplace

    emulator.reset_calls()
    host.delete(URN, created.id, state)
    assert emulator.jobs() == []
    assert emulator.calls["CancelCustomJob"] == 1 and emulator.calls["DeleteCustomJob"] == 1


def test_check_through_the_host_names_the_bad_field(host, emulator, program_inputs):
    bad = copy.deepcopy(program_inputs)
    bad["jobSpec"]["workerPoolSpecs"][0]["replicaCount"] = 4
    checked = host.check(URN, {}, bad)
    assert [f.property for f in checked.failures] == ["jobSpec.workerPoolSpecs[0].replicaCount"]
    assert sum(emulator.calls.values()) == 0


def test_a_knob_change_updates_in_place_through_the_host(host, emulator, program_inputs):
    inputs = deserialize(host.check(URN, {}, program_inputs).inputs)
    created = host.create(URN, inputs)
    state = deserialize(created.properties)
    news = {**inputs, "deleteTimeout": "120s"}
    diff = host.diff(URN, created.id, state, news)
    assert diff.changes == provider_pb2.DiffResponse.DIFF_SOME and list(diff.replaces) == []
    updated = deserialize(host.update(URN, created.id, state, news).properties)
    assert updated["deleteTimeout"] == "120s" and updated["jobId"] == state["jobId"]
    assert len(emulator.jobs()) == 1


def test_a_job_record_deleted_out_of_band_is_not_run_again_and_the_preview_says_so(host, emulator, program_inputs):
    inputs = deserialize(host.check(URN, {}, program_inputs).inputs)
    created = host.create(URN, inputs)
    emulator.set_state(created.id, "JOB_STATE_SUCCEEDED")
    emulator.remove(created.id)  # from the console, after it ended

    read = host.read(URN, created.id, deserialize(created.properties))
    assert read.id == created.id  # still in state: the training is not run again
    state = deserialize(read.properties)
    assert state["gone"] is True
    diff = host.diff(URN, created.id, state, inputs)
    assert diff.changes == provider_pb2.DiffResponse.DIFF_NONE
    assert f"job {state['jobId']} was deleted outside Pulumi after it ended" in host.log
    assert "set or change `rerun`" in host.log
    assert len(emulator.jobs()) == 0 and emulator.calls["CreateCustomJob"] == 1

    rerun = {**inputs, "rerun": "again"}  # what the hint says to do
    assert list(host.diff(URN, created.id, state, rerun).replaces) == ["rerun"]
    host.delete(URN, created.id, state)
    host.create(URN, rerun)
    assert len(emulator.jobs()) == 1 and emulator.calls["CreateCustomJob"] == 2


def test_a_job_cancelled_by_someone_else_gets_a_preview_warning_with_its_console_url(host, emulator, program_inputs):
    inputs = deserialize(host.check(URN, {}, program_inputs).inputs)
    created = host.create(URN, inputs)
    emulator.set_state(created.id, "JOB_STATE_CANCELLED")  # from the console
    state = deserialize(host.read(URN, created.id, deserialize(created.properties)).properties)
    assert host.diff(URN, created.id, state, inputs).changes == provider_pb2.DiffResponse.DIFF_NONE
    assert f"job {state['jobId']} was cancelled outside this stack" in host.log
    assert state["consoleUrl"] in host.log and "`rerun`" in host.log


def test_the_provider_module_imports_without_the_google_client_or_resources():
    """The host re-imports the provider for every job: it must stay light and side-effect free."""
    from tests.program import modules_imported_by

    heavy = ("google.cloud.aiplatform_v1", "pulumi_gcp", "components.spot_job.resource")
    assert modules_imported_by("import components.spot_job.provider", heavy) == []


def test_a_host_killed_before_the_answer_arrived_leaves_one_job_which_the_rerun_adopts(emulator, program_inputs):
    """`pulumi up` dies after Vertex accepted the job and before the engine heard of it."""
    import threading
    import time

    emulator.delay("CreateCustomJob", 60, after_apply=True)  # the job lands; the answer hangs
    with ProviderHost({"AIPLATFORM_EMULATOR_HOST": emulator.address}) as doomed:
        inputs = deserialize(doomed.check(URN, {}, program_inputs).inputs)
        threading.Thread(target=lambda: _swallow(lambda: doomed.create(URN, inputs)), daemon=True).start()
        deadline = time.monotonic() + 30
        while not emulator.jobs() and time.monotonic() < deadline:
            time.sleep(0.05)
        assert len(emulator.jobs()) == 1
        doomed.process.kill()
    emulator.clear_faults()

    with ProviderHost({"AIPLATFORM_EMULATOR_HOST": emulator.address}) as rerun:
        created = rerun.create(URN, inputs)
    [job] = emulator.jobs()
    assert created.id == job.name
    assert emulator.calls["CreateCustomJob"] == 1  # the rerun looked the label up and adopted


def _swallow(call):
    try:
        call()
    except Exception:  # the host was killed under it: that is the point
        pass


def test_a_preempted_job_is_resubmitted_through_the_host_as_the_engine_drives_an_up(host, emulator, program_inputs):
    inputs = deserialize(host.check(URN, {}, program_inputs).inputs)
    created = host.create(URN, inputs)
    emulator.preempt(created.id)

    refreshed = deserialize(host.read(URN, created.id, deserialize(created.properties)).properties)
    assert refreshed["state"] == "JOB_STATE_FAILED"
    diff = host.diff(URN, created.id, refreshed, inputs)
    assert diff.changes == provider_pb2.DiffResponse.DIFF_SOME and list(diff.replaces) == []

    updated = deserialize(host.update(URN, created.id, refreshed, inputs).properties)
    assert updated["attempt"] == 2 and updated["jobName"] != created.id
    assert [h["jobId"] for h in updated["history"]] == [refreshed["jobId"]]
    assert len(emulator.jobs()) == 2

    # The next up refreshes the new attempt (attempt now a double off the wire) and leaves it be.
    again = deserialize(host.read(URN, created.id, updated).properties)
    assert again["jobName"] == updated["jobName"] and again["state"] == "JOB_STATE_QUEUED"
    assert host.diff(URN, created.id, again, inputs).changes == provider_pb2.DiffResponse.DIFF_NONE
