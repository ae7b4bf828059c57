"""The JobService calls each operation makes through the dynamic provider host, pinned at the
floor exactly-once allows against a distributed API (components/spot_job/protocol/submission.py): a
create is one ListCustomJobs by label before the CreateCustomJob and one after it (a copy that
landed late is found and cancelled), a read alone one GetCustomJob (reads sent together share a
ListCustomJobs per 100 jobs: tests/test_refresh_reads.py), a delete one look by label beside
the job's own calls (a copy no state names is cancelled). A regression fails here; what each
costs in time is bench/operations.py's."""

from collections import Counter

import pytest

from tests.program import one_job_inputs
from tests.provider_host import JOB_TYPE, deserialize
from tests.shared_host import emulator, host  # noqa: F401 (fixtures: one host per module)

URN = f"urn:pulumi:dev::spot-training::{JOB_TYPE}::resnet"


@pytest.fixture
def inputs(host):
    return deserialize(host.check(URN, {}, one_job_inputs()).inputs)


def calls(emulator) -> Counter:
    return Counter({k: v for k, v in emulator.calls.items() if v})


def created(host, emulator, inputs, scope: str = "spot-training/dev/resnet"):
    response = host.create(URN, {**inputs, "submissionScope": scope})
    return response.id, deserialize(response.properties)


def test_check_and_diff_make_no_call(host, emulator, inputs):
    id_, state = created(host, emulator, inputs)
    emulator.reset_calls()
    host.check(URN, state, inputs)
    host.diff(URN, id_, state, inputs)
    assert calls(emulator) == Counter()


def test_a_create_is_one_create_between_two_lists_by_label(host, emulator, inputs):
    for i in range(3):  # the first, and warm ones: no call is added once the host's client is up
        emulator.reset_calls()
        created(host, emulator, inputs, f"spot-training/dev/job-{i}")
        assert calls(emulator) == Counter({"ListCustomJobs": 2, "CreateCustomJob": 1})


def test_a_create_that_adopts_an_earlier_submission_is_two_lists(host, emulator, inputs):
    id_, _ = created(host, emulator, inputs)
    emulator.reset_calls()
    again, _ = created(host, emulator, inputs)  # the same resource and spec: its key is on a job already
    assert again == id_
    assert calls(emulator) == Counter({"ListCustomJobs": 2})


def test_a_read_is_one_get(host, emulator, inputs):
    id_, state = created(host, emulator, inputs)
    for _ in range(2):
        emulator.reset_calls()
        host.read(URN, id_, state)
        assert calls(emulator) == Counter({"GetCustomJob": 1})


def test_a_delete_of_a_finished_job_looks_once_then_deletes(host, emulator, inputs):
    id_, state = created(host, emulator, inputs)
    emulator.set_state(id_, "JOB_STATE_SUCCEEDED")
    emulator.reset_calls()
    host.delete(URN, id_, {**state, "onDelete": "delete"})
    got = calls(emulator)
    assert got["GetCustomJob"] == 1 and got["DeleteCustomJob"] == 1 and got["ListCustomJobs"] == 1
    assert set(got) <= {"GetCustomJob", "ListCustomJobs", "DeleteCustomJob", "GetOperation"}
    assert emulator.jobs() == []


def test_a_delete_of_a_job_gone_out_of_band_is_one_get_the_look_at_its_parent_and_one_by_label(host, emulator, inputs):
    """NOT_FOUND names the job or its project: one ListCustomJobs of the parent tells them apart;
    the look by label for copies follows."""
    id_, state = created(host, emulator, inputs)
    emulator.set_state(id_, "JOB_STATE_SUCCEEDED")
    host.delete(URN, id_, {**state, "onDelete": "delete"})
    emulator.reset_calls()
    host.delete(URN, id_, {**state, "onDelete": "delete"})
    assert calls(emulator) == Counter({"GetCustomJob": 1, "ListCustomJobs": 2})
