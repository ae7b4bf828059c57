"""Delete's wait for a cancelled job takes a slot of the shared bound, or is skipped and said."""

import logging
import threading
import time

import pytest

from components.spot_job.protocol import blocking
from components.spot_job.provider import SpotTrainingJobProvider
from tests.fixtures import job_inputs

provider = SpotTrainingJobProvider()
pytestmark = pytest.mark.usefixtures("fast_pace")


def inputs(scope: str = "resnet", **overrides) -> dict:
    return job_inputs(submissionScope=f"spot-training/dev/{scope}", **overrides)


def running(emulator, scope: str = "resnet", **overrides) -> tuple[str, dict]:
    created = provider.create(inputs(scope, **overrides))
    emulator.set_state(created.id, "JOB_STATE_RUNNING")
    emulator.reset_calls()
    return created.id, created.outs


def warnings(caplog) -> list[str]:
    return [r.getMessage() for r in caplog.records if r.name == "spot-training" and r.levelno == logging.WARNING]


class SlotsTaken:
    """Every slot held, as by other jobs' waits and deletes in flight on the host."""

    def __enter__(self):
        assert all(blocking._slots.acquire(blocking=False) for _ in range(blocking.MAX_BLOCKING_CALLS))

    def __exit__(self, *_):
        for _ in range(blocking.MAX_BLOCKING_CALLS):
            blocking._slots.release()


def test_without_a_slot_delete_cancels_and_returns_saying_how_to_delete_the_record(emulator, caplog):
    job_id, outs = running(emulator)
    with SlotsTaken():
        provider.delete(job_id, outs)
    assert emulator.calls["CancelCustomJob"] == 1 and emulator.calls["DeleteCustomJob"] == 0
    assert emulator.job(job_id).state.name == "JOB_STATE_CANCELLING"
    [said] = warnings(caplog)
    assert f"cancelled {job_id}; it is stopping" in said
    assert f"gcloud ai custom-jobs delete {job_id.rsplit('/', 1)[-1]} --region=us-central1 --project=acme-ml-dev" in said
    # The command that deletes it once stopped, with the other records a destroy leaves (the sweep's --delete-ended).
    assert "spot-training sweep " in said and " --delete-ended` deletes it" in said


def test_without_a_slot_the_records_of_earlier_attempts_still_go(emulator):
    job_id, outs = running(emulator)
    emulator.preempt(job_id)
    refreshed = provider.read(job_id, outs).outs
    updated = provider.update(job_id, refreshed, inputs()).outs  # attempt 2; attempt 1 ended FAILED
    emulator.set_state(updated["jobName"], "JOB_STATE_RUNNING")
    with SlotsTaken():
        provider.delete(job_id, updated)
    assert [job.name for job in emulator.jobs()] == [updated["jobName"]]  # attempt 1's record went; 2 is stopping


def test_on_delete_cancel_without_a_slot_says_the_record_stays(emulator, caplog):
    job_id, outs = running(emulator, onDelete="cancel")
    with SlotsTaken():
        provider.delete(job_id, outs)
    [said] = warnings(caplog)
    assert "onDelete: cancel" in said and "gcloud" not in said
    assert emulator.job(job_id).state.name == "JOB_STATE_CANCELLING"


def test_a_job_left_stopping_by_an_earlier_delete_is_waited_on_and_deleted_by_the_next(emulator):
    job_id, outs = running(emulator)
    with SlotsTaken():
        provider.delete(job_id, outs)
    provider.delete(job_id, outs)  # e.g. an earlier destroy that failed elsewhere, run again
    assert emulator.jobs() == []
    assert emulator.calls["CancelCustomJob"] == 1  # a CANCELLING job is not cancelled twice


def test_a_delete_waiting_for_its_job_and_a_create_waiting_for_its_job_share_the_bound(emulator, caplog):
    stopping = [running(emulator, f"job-{i}") for i in range(blocking.MAX_BLOCKING_CALLS)]
    emulator.hold_cancelling = True
    held = [threading.Thread(target=provider.delete, args=job) for job in stopping]
    for thread in held:
        thread.start()
    try:
        # Once both deletes hold their slots (the semaphore's free count is 0), a create finds none.
        deadline = time.monotonic() + 60  # a guard against hanging, not an assertion
        while blocking._slots._value and time.monotonic() < deadline:
            time.sleep(0.01)
        assert blocking._slots._value == 0
        created = provider.create(inputs("other", waitFor="running"))
    finally:
        emulator.hold_cancelling = False
        for thread in held:
            thread.join()
    assert created.outs["state"] == "JOB_STATE_QUEUED"
    assert any("not waiting for running" in m for m in warnings(caplog))
    assert [job.name for job in emulator.jobs()] == [created.id]
