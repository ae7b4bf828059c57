"""A mass destroy or replacement of running jobs leaves the dynamic provider host
threads for the rest of the stack: driven through the SDK's host, as the engine
drives it, against the emulator holding every cancelled job CANCELLING.

Ordering, not timing: the diff and read are asserted to answer while deletes
are still held (their cancelled jobs cannot stop until the test lets them).
"""

import contextlib
import time
from concurrent.futures import ThreadPoolExecutor

import pytest
from pulumi.runtime.proto import provider_pb2

from components.spot_job.model import states as job_states
from components.spot_job.protocol import blocking
from tests.program import one_job_inputs
from tests.provider_host import JOB_TYPE, deserialize

HOST_THREADS = 4  # the SDK's dynamic provider host: ThreadPoolExecutor(max_workers=4)
JOBS = HOST_THREADS + 2  # more deletes than the host has threads, all in flight at once
GUARD = 60.0  # only so a broken build fails instead of hanging; no assertion is about time


def urn(i: int) -> str:
    return f"urn:pulumi:dev::spot-training::{JOB_TYPE}::job-{i}"


@pytest.fixture
def program_inputs():
    return one_job_inputs()


def running_jobs(host, emulator, program_inputs, **knobs) -> list[tuple[str, dict, dict]]:
    """JOBS jobs created through the host and running: (id, state, inputs) each."""
    jobs = []
    for i in range(JOBS):
        props = {**program_inputs, "submissionScope": f"spot-training/dev/job-{i}", **knobs}
        inputs = deserialize(host.check(urn(i), {}, props).inputs)
        created = host.create(urn(i), inputs)
        emulator.set_state(created.id, "JOB_STATE_RUNNING")
        jobs.append((created.id, deserialize(created.properties), inputs))
    return jobs


@contextlib.contextmanager
def engine(emulator):
    """The engine's parallel steps (it sends every delete at once: --parallel 16). Whatever happens,
    cancelled jobs are let stop before the steps are joined, so a failing test cannot hang on them."""
    pool = ThreadPoolExecutor(JOBS)
    try:
        yield pool
    finally:
        emulator.hold_cancelling = False
        pool.shutdown(wait=True)


def until(condition) -> bool:
    deadline = time.monotonic() + GUARD
    while not condition() and time.monotonic() < deadline:
        time.sleep(0.02)
    return condition()


def other_calls_answer_while_deletes_are_held(host, emulator, jobs, deletes) -> None:
    """Every job got its cancel, all but the bounded few deletes returned, and a diff and a read
    of another job answer while those few still wait for their cancelled jobs."""
    assert until(lambda: sum(d.done() for d in deletes) == JOBS - blocking.MAX_BLOCKING_CALLS), (
        f"{sum(d.done() for d in deletes)} of {JOBS} deletes returned while cancelled jobs were held stopping"
    )
    assert emulator.calls["CancelCustomJob"] == JOBS  # each job cancelled, waited on or not
    held = [d for d in deletes if not d.done()]
    id_, state, inputs = jobs[0]
    diff = host.diff(urn(0), id_, state, inputs)
    read = host.read(urn(0), id_, state)
    assert diff.changes == provider_pb2.DiffResponse.DIFF_NONE and read.id == id_
    assert not any(d.done() for d in held)  # they answered while the held deletes still held their threads


def destroy_while_cancels_are_held(host, emulator, jobs) -> None:
    """The engine deletes every job at once while Vertex keeps the cancelled ones stopping; other
    calls must still answer meanwhile. Returns once every delete has, the jobs let stop."""
    with engine(emulator) as steps:
        deletes = [steps.submit(host.delete, urn(i), id_, state) for i, (id_, state, _) in enumerate(jobs)]
        other_calls_answer_while_deletes_are_held(host, emulator, jobs, deletes)
        emulator.hold_cancelling = False
        for delete in deletes:
            delete.result(timeout=GUARD)


def test_a_mass_destroy_of_running_jobs_leaves_threads_for_diffs_and_reads(host, emulator, program_inputs):
    jobs = running_jobs(host, emulator, program_inputs)
    emulator.hold_cancelling = True
    emulator.reset_calls()
    destroy_while_cancels_are_held(host, emulator, jobs)

    left = {job.name: job.state.name for job in emulator.jobs()}
    assert not any(state in job_states.ACTIVE for state in left.values())  # nothing left billing
    # The waited-on ones went entirely; the others are cancelled and stopping, their records left.
    assert len(left) == JOBS - blocking.MAX_BLOCKING_CALLS
    assert emulator.calls["DeleteCustomJob"] == blocking.MAX_BLOCKING_CALLS
    said = host.log
    for name in left:
        job_id = name.rsplit("/", 1)[-1]
        assert f"cancelled {name}" in said
        assert f"gcloud ai custom-jobs delete {job_id} --region=us-central1 --project=acme-ml-dev" in said


def test_a_mass_replacement_of_running_jobs_cancels_every_old_job_and_submits_every_new_one(
    host, emulator, program_inputs
):
    jobs = running_jobs(host, emulator, program_inputs)
    emulator.hold_cancelling = True
    emulator.reset_calls()

    def replace(i: int, id_: str, state: dict, inputs: dict) -> str:
        # deleteBeforeReplace (replaceOrder: cancelFirst): the engine deletes the old job, then creates.
        news = {**inputs, "rerun": "2"}
        assert host.diff(urn(i), id_, state, news).deleteBeforeReplace
        host.delete(urn(i), id_, state)
        return host.create(urn(i), news).id

    with engine(emulator) as steps:
        replacements = [steps.submit(replace, i, *job) for i, job in enumerate(jobs)]
        # A replacement is done when its new job is submitted: all but the few still waiting.
        other_calls_answer_while_deletes_are_held(host, emulator, jobs, replacements)
        emulator.hold_cancelling = False
        new_ids = [r.result(timeout=GUARD) for r in replacements]

    assert emulator.calls["CreateCustomJob"] == JOBS and len(set(new_ids)) == JOBS
    old = {id_ for id_, _, _ in jobs}
    states = {job.name: job.state.name for job in emulator.jobs()}
    assert not any(states[name] in job_states.ACTIVE for name in old & states.keys())
    assert all(states[name] == "JOB_STATE_QUEUED" for name in new_ids)
    assert "is stopping" in host.log


def test_on_delete_cancel_says_the_record_stays_when_it_cannot_wait(host, emulator, program_inputs):
    jobs = running_jobs(host, emulator, program_inputs, onDelete="cancel")
    emulator.hold_cancelling = True
    destroy_while_cancels_are_held(host, emulator, jobs)
    assert len(emulator.jobs()) == JOBS and emulator.calls["DeleteCustomJob"] == 0
    assert host.log.count("onDelete: cancel") == JOBS - blocking.MAX_BLOCKING_CALLS
