"""A refresh through the dynamic provider host: the reads of one stack that arrive together are
served from one ListCustomJobs by the stack's label, page by page (client/read_coalescer.py), and
each job the list does not show is read with its own GetCustomJob. Counted at the emulator.

The reads are sent as the engine sends a refresh's: many at once (the CLI's default `--parallel`
is 4 per CPU, 8 on this machine), each a Read of the state the job's last `up` left.
"""

from __future__ import annotations

import itertools
import math
import sys
import time
import uuid
from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import grpc
import pytest

from components.spot_job.model import request
from components.spot_job.model.job_inputs import JobInputs
from tests.program import one_job_inputs
from tests.provider_host import JOB_TYPE, deserialize
from tests.shared_host import emulator, host  # noqa: F401 (fixtures: one host per module)

ENGINE_PARALLEL = 8  # `pulumi up --help` on this 2-core machine: --parallel (default 8)
_stacks = itertools.count()


@pytest.fixture(autouse=True)
def stack(monkeypatch) -> None:
    """A stack of its own per test: the module shares one host, whose listings serve reads of their
    stack for SERVE_SECONDS (a real host serves one `up`)."""
    monkeypatch.setattr(sys.modules[__name__], "STACK", f"spot-training/test-{next(_stacks)}-{uuid.uuid4().hex[:8]}")


STACK = "spot-training/dev"


def urn(i: int) -> str:
    return f"urn:pulumi:dev::spot-training::{JOB_TYPE}::job-{i}"


def jobs_in_state(emulator, n: int, *, first: int = 0, labels: dict[str, str] | None = None) -> list[tuple[int, str, dict]]:
    """n jobs the stack submitted, in the emulator and in state: (index, id, props as the last `up` left them)."""
    inputs = one_job_inputs()
    found = []
    for i in range(first, first + n):
        props = {**inputs, "submissionScope": f"{STACK}/job-{i}"}
        parent, _, body = request.create_request(JobInputs.of(props))
        name = f"{parent}/customJobs/{10**18 + i}"
        if labels is not None:
            body["labels"] = labels
        emulator.restore({**body, "name": name, "state": "JOB_STATE_RUNNING", "createTime": "2026-01-01T00:00:00Z"})
        found.append((i, name, {**props, "jobName": name}))
    return found


def refresh(host, jobs: list[tuple[int, str, dict]]) -> dict[str, dict[str, Any]]:
    """Every job read at once, as the engine's refresh sends them: id -> the read's outputs."""
    with ThreadPoolExecutor(ENGINE_PARALLEL) as pool:
        answers = pool.map(lambda job: (job[1], deserialize(host.read(urn(job[0]), job[1], job[2]).properties)), jobs)
        return dict(answers)


def read_alone(host, job: tuple[int, str, dict]) -> dict[str, Any]:
    return deserialize(host.read(urn(job[0]), job[1], job[2]).properties)


def calls(emulator) -> Counter:
    return Counter({k: v for k, v in emulator.calls.items() if v})


def test_a_refresh_of_250_jobs_costs_a_list_per_100_not_a_get_each(host, emulator):
    jobs = jobs_in_state(emulator, 250)
    emulator.reset_calls()
    read = refresh(host, jobs)
    got = calls(emulator)
    assert sum(got.values()) <= math.ceil(250 / 100) + 5, got
    assert got["ListCustomJobs"] >= math.ceil(250 / 100)  # every page of the stack's jobs
    assert {outs["state"] for outs in read.values()} == {"JOB_STATE_RUNNING"}
    assert not any(outs.get("gone") for outs in read.values())


def test_a_read_from_the_list_returns_what_a_get_would(host, emulator):
    jobs = jobs_in_state(emulator, 30)
    emulator.set_state(jobs[3][1], "JOB_STATE_FAILED", (8, "STOCKOUT"))
    emulator.set_state(jobs[7][1], "JOB_STATE_SUCCEEDED")
    listed = refresh(host, jobs)
    for job in (jobs[0], jobs[3], jobs[7]):
        emulator.reset_calls()
        alone = read_alone(host, job)  # a read alone is its own GetCustomJob
        assert calls(emulator) == Counter({"GetCustomJob": 1})
        assert listed[job[1]] == alone


def test_a_job_deleted_out_of_band_is_gone_not_dropped(host, emulator):
    jobs = jobs_in_state(emulator, 120)
    deleted = jobs[42][1]
    emulator.set_state(deleted, "JOB_STATE_SUCCEEDED")
    emulator.remove(deleted)
    emulator.reset_calls()
    read = refresh(host, jobs)
    assert set(read) == {name for _, name, _ in jobs}  # every job answered, none dropped
    assert read[deleted]["gone"] is True
    assert [name for name, outs in read.items() if outs.get("gone")] == [deleted]
    got = calls(emulator)
    # Its own GetCustomJob (NOT_FOUND), and one ListCustomJobs of its parent (the job, not its project, is missing).
    assert got["GetCustomJob"] == 1 and got["ListCustomJobs"] <= math.ceil(119 / 100) + 1 + 2, got


def test_a_list_that_fails_degrades_to_a_get_each_and_the_refresh_succeeds(host, emulator):
    jobs = jobs_in_state(emulator, 40)
    emulator.reset_calls()
    emulator.inject("ListCustomJobs", grpc.StatusCode.PERMISSION_DENIED, times=1)
    read = refresh(host, jobs)
    assert set(read) == {name for _, name, _ in jobs}
    assert {outs["state"] for outs in read.values()} == {"JOB_STATE_RUNNING"}
    got = calls(emulator)
    assert got["GetCustomJob"] == 40 and got["ListCustomJobs"] == 1, got
    assert "reading each job not listed with its own GetCustomJob" in host.log


def test_a_job_the_list_does_not_show_yet_is_read_with_its_own_get(host, emulator):
    jobs = jobs_in_state(emulator, 60)
    time.sleep(0.6)
    emulator.list_lag(0.5)  # a list shows a job only half a second after it landed
    late = jobs_in_state(emulator, 1, first=60)  # created a moment ago
    emulator.reset_calls()
    read = refresh(host, jobs + late)
    assert read[late[0][1]]["state"] == "JOB_STATE_RUNNING" and not read[late[0][1]].get("gone")
    got = calls(emulator)
    assert got["GetCustomJob"] == 1 and got["ListCustomJobs"] == 1, got


def test_a_job_whose_labels_were_edited_is_read_with_its_own_get(host, emulator):
    jobs = jobs_in_state(emulator, 60)
    relabelled = jobs_in_state(emulator, 2, first=60, labels={"team": "vision"})  # the stack's label removed
    emulator.reset_calls()
    read = refresh(host, jobs + relabelled)
    for _, name, _ in relabelled:
        assert read[name]["state"] == "JOB_STATE_RUNNING" and not read[name].get("gone")
    got = calls(emulator)
    assert got["GetCustomJob"] == 2 and got["ListCustomJobs"] == 1, got


def test_a_read_alone_is_one_get(host, emulator):
    """An import, or a refresh targeting one job: listing the whole stack would cost more than its Get."""
    jobs = jobs_in_state(emulator, 150)
    emulator.reset_calls()
    read_alone(host, jobs[0])
    assert calls(emulator) == Counter({"GetCustomJob": 1})



def test_a_page_that_fails_once_is_retried_by_the_pager_and_the_listing_stands(host, emulator):
    jobs = jobs_in_state(emulator, 250)
    emulator.reset_calls()
    emulator.inject("ListCustomJobs", grpc.StatusCode.UNAVAILABLE, calls=[2])  # the second page, once
    read = refresh(host, jobs)
    assert {outs["state"] for outs in read.values()} == {"JOB_STATE_RUNNING"}
    got = calls(emulator)
    assert got == Counter({"ListCustomJobs": 4}), got  # three pages, the second asked twice; no Get


def test_a_listing_that_fails_on_a_later_page_keeps_the_pages_it_read_and_gets_the_rest(host, emulator):
    """A job on the pages not read is one the list does not show: read with its own Get, never `gone`."""
    jobs = jobs_in_state(emulator, 150)
    emulator.reset_calls()
    emulator.inject("ListCustomJobs", grpc.StatusCode.PERMISSION_DENIED, calls=[2])
    read = refresh(host, jobs)
    assert {outs["state"] for outs in read.values()} == {"JOB_STATE_RUNNING"} and len(read) == 150
    got = calls(emulator)
    assert got == Counter({"ListCustomJobs": 2, "GetCustomJob": 50}), got
    assert not any(outs.get("gone") for outs in read.values())
