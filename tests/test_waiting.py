"""`waitFor`: create (and a resubmission) follows the job, bounded, logging each state with its console URL."""

import logging
import threading

import pytest

from components.spot_job.protocol import blocking
from components.spot_job.provider import SpotTrainingJobProvider
from tests.fixtures import job_inputs

provider = SpotTrainingJobProvider()
pytestmark = pytest.mark.usefixtures("fast_pace")


def inputs(**overrides) -> dict:
    return job_inputs(submissionScope="spot-training/dev/resnet", **overrides)


def progress(caplog) -> list[str]:
    return [r.getMessage() for r in caplog.records if r.name == "spot-training"]


def test_by_default_create_returns_as_soon_as_vertex_accepted_the_job(emulator):
    emulator.script("JOB_STATE_PENDING", "JOB_STATE_RUNNING")
    created = provider.create(inputs())
    assert created.outs["state"] == "JOB_STATE_QUEUED"
    assert emulator.calls["GetCustomJob"] == 0


def test_wait_for_running_follows_the_job_and_logs_each_state_with_its_console_url(emulator, caplog):
    caplog.set_level(logging.INFO, logger="spot-training")
    emulator.script("JOB_STATE_PENDING", "JOB_STATE_PENDING", "JOB_STATE_RUNNING", "JOB_STATE_SUCCEEDED")
    created = provider.create(inputs(waitFor="running"))
    assert created.outs["state"] == "JOB_STATE_RUNNING"
    url = created.outs["consoleUrl"]
    assert progress(caplog) == [f"JOB_NAME: JOB_STATE_PENDING {url}", f"JOB_NAME: JOB_STATE_RUNNING {url}"]


def test_wait_for_succeeded_reports_a_failure_without_losing_the_job(emulator, caplog):
    """The Python dynamic provider host cannot report a partial create: raising
    here would drop a job that exists. It is returned, FAILED, and logged."""
    emulator.script("JOB_STATE_RUNNING", "STOCKOUT")
    created = provider.create(inputs(waitFor="succeeded"))
    assert created.outs["state"] == "JOB_STATE_FAILED" and "STOCKOUT" in created.outs["error"]["message"]
    [error] = [r for r in caplog.records if r.levelno == logging.ERROR]
    assert "STOCKOUT" in error.getMessage() and created.outs["consoleUrl"] in error.getMessage()


def test_a_wait_that_outlasts_wait_timeout_stops_and_the_job_goes_on(emulator, caplog):
    created = provider.create(inputs(waitFor="running", waitTimeout="0.3s"))  # no script: it stays queued
    assert created.outs["state"] == "JOB_STATE_QUEUED"
    assert emulator.calls["GetCustomJob"] > 1
    assert any("waitTimeout" in m and "goes on" in m for m in progress(caplog))


def test_at_most_two_jobs_are_waited_on_at_once_so_the_host_keeps_threads_free(emulator, caplog):
    taken = [blocking._slots.acquire(blocking=False) for _ in range(blocking.MAX_BLOCKING_CALLS)]
    try:
        assert all(taken)
        emulator.script("JOB_STATE_RUNNING")
        created = provider.create(inputs(waitFor="running"))
    finally:
        for _ in taken:
            blocking._slots.release()
    assert created.outs["state"] == "JOB_STATE_QUEUED" and emulator.calls["GetCustomJob"] == 0
    assert any("not waiting" in m for m in progress(caplog))


def test_concurrent_creates_beyond_the_limit_do_not_wait(emulator, caplog):
    results: list[dict] = []

    def create(i: int) -> None:
        props = job_inputs(submissionScope=f"spot-training/dev/job-{i}", waitFor="running", waitTimeout="3s")
        results.append(provider.create(props).outs)

    threads = [threading.Thread(target=create, args=(i,)) for i in range(4)]  # the host's 4 threads
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    # Nothing runs, so the two waiters time out; the other two returned at once.
    assert len(results) == 4 and {r["state"] for r in results} == {"JOB_STATE_QUEUED"}
    assert sum("other calls are already waiting on jobs" in m for m in progress(caplog)) == 2
    assert sum("waitTimeout" in m for m in progress(caplog)) == 2


def test_a_resubmission_waits_too(emulator):
    news = inputs(waitFor="running")
    emulator.script("JOB_STATE_RUNNING", "STOCKOUT")
    created = provider.create(news)
    assert created.outs["state"] == "JOB_STATE_RUNNING"
    refreshed = provider.read(created.id, created.outs).outs
    assert refreshed["state"] == "JOB_STATE_FAILED"
    emulator.script("JOB_STATE_PENDING", "JOB_STATE_RUNNING")
    updated = provider.update(created.id, refreshed, news).outs
    assert (updated["attempt"], updated["state"]) == (2, "JOB_STATE_RUNNING")


def test_check_enforces_the_wait_limit_by_field(emulator):
    failures = provider.check({}, inputs(waitFor="succeeded", waitTimeout="7200s")).failures
    assert [f.property for f in failures] == ["waitTimeout"]
    assert "1800s" in failures[0].reason
