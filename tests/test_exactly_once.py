"""Exactly once against a distributed JobService, through the dynamic provider host.

Google's front end can answer DEADLINE_EXCEEDED or UNAVAILABLE for a create
that lands seconds later, and ListCustomJobs can show a job seconds after it
landed. The emulator does both on cue (create_lands_late, list_lag). The
invariant of components/spot_job/protocol/submission.py: once a call returns, exactly
one active job carries the attempt's submission key; after `destroy`, none.
"""

from __future__ import annotations

import copy
import time

import grpc
import pytest

from components.spot_job.model import ordering, states, submission_labels
from components.spot_job.protocol import submission
from tests.program import one_job_inputs
from tests.provider_host import JOB_TYPE, ProviderHost, deserialize

URN = f"urn:pulumi:dev::spot-training::{JOB_TYPE}::vision-resnet"
# Covers a late landing or a list lag of up to 10 s (and both, up to 12 s together): the bound.
SETTLE = 12


@pytest.fixture(scope="module")
def _emulator_and_host():
    from tests.emulator import JobServiceEmulator

    with JobServiceEmulator() as emu, ProviderHost(
        {"AIPLATFORM_EMULATOR_HOST": emu.address, submission.SETTLE_ENV: str(SETTLE)}
    ) as host:
        yield emu, host


@pytest.fixture
def emulator(_emulator_and_host):
    emu, _ = _emulator_and_host
    emu.reset()
    return emu


@pytest.fixture
def host(_emulator_and_host, emulator):
    return _emulator_and_host[1]


@pytest.fixture(scope="module")
def inputs():
    return one_job_inputs()


def checked(host, inputs) -> dict:
    return deserialize(host.check(URN, {}, copy.deepcopy(inputs)).inputs)


def active_with(emulator, key: str) -> list[str]:
    return [
        job.name
        for job in emulator.jobs()
        if job.labels.get(submission_labels.SUBMISSION_LABEL) == key and states.is_active(job.state.name)
    ]


def active(emulator) -> list[str]:
    return [job.name for job in emulator.jobs() if states.is_active(job.state.name)]


LATE = {
    "create lands 1.5 s after a DEADLINE_EXCEEDED": lambda emu: emu.create_lands_late(1.5, calls=[1]),
    "create lands 10 s after an UNAVAILABLE": lambda emu: emu.create_lands_late(
        10, code=grpc.StatusCode.UNAVAILABLE, calls=[1]
    ),
    "answer lost, list lags 3 s": lambda emu: (
        emu.list_lag(3),
        emu.inject("CreateCustomJob", grpc.StatusCode.UNAVAILABLE, calls=[1], after_apply=True),
    ),
    "answer lost, list lags 10 s": lambda emu: (
        emu.list_lag(10),
        emu.inject("CreateCustomJob", grpc.StatusCode.DEADLINE_EXCEEDED, calls=[1], after_apply=True),
    ),
    "create lands 4 s late, list lags 5 s": lambda emu: (emu.list_lag(5), emu.create_lands_late(4, calls=[1])),
    "INTERNAL before effect": lambda emu: emu.inject("CreateCustomJob", grpc.StatusCode.INTERNAL, calls=[1]),
    "answer lost twice, list lags 2 s": lambda emu: (
        emu.list_lag(2),
        emu.inject("CreateCustomJob", grpc.StatusCode.UNAVAILABLE, calls=[1], after_apply=True),
        emu.inject("ListCustomJobs", grpc.StatusCode.UNAVAILABLE, calls=[2]),
    ),
}


@pytest.mark.parametrize("fault", LATE.values(), ids=LATE.keys())
def test_one_active_job_per_key_once_the_create_returns_and_none_after_destroy(host, emulator, inputs, fault):
    fault(emulator)
    created = host.create(URN, checked(host, inputs))
    outs = deserialize(created.properties)
    key = outs["submissionKey"]
    assert active_with(emulator, key) == [created.id]
    assert emulator.calls["CreateCustomJob"] == (2 if emulator.failures[("CreateCustomJob", "INTERNAL")] else 1)
    host.delete(URN, created.id, {**outs, "onDelete": "delete"})
    assert active(emulator) == []


def test_a_copy_that_lands_after_the_settle_time_is_cancelled_by_destroy(emulator, inputs):
    """A lag longer than the settle time costs a second copy until the next look: destroy finds it by label."""
    with ProviderHost({"AIPLATFORM_EMULATOR_HOST": emulator.address, submission.SETTLE_ENV: "0.5"}) as short:
        emulator.create_lands_late(3, calls=[1])
        created = short.create(URN, checked(short, inputs))
        outs = deserialize(created.properties)
        time.sleep(3.5)  # the first create lands now, after a second one went out
        copies = active_with(emulator, outs["submissionKey"])
        assert len(copies) == 2 and created.id in copies
        short.delete(URN, created.id, {**outs, "onDelete": "delete"})
        assert active(emulator) == []
        assert "`uv run spot-training sweep dev --delete-ended` deletes them" in short.log


def test_a_copy_found_later_is_cancelled_by_the_next_submission_of_the_key_keeping_the_oldest(host, emulator, inputs):
    """Two active copies of one key (an earlier `up` raced a late landing): the next create keeps the
    older and cancels the other, whichever of them it would have adopted."""
    first = host.create(URN, checked(host, inputs))
    outs = deserialize(first.properties)
    from google.protobuf import json_format

    twin = json_format.MessageToDict(type(emulator.job(first.id)).pb(emulator.job(first.id)))
    twin["name"] = first.id[:-3] + "999"
    twin["createTime"] = "2999-01-01T00:00:00Z"  # a second copy with the same labels, created later
    emulator.restore(twin)
    again = host.create(URN, checked(host, inputs))
    assert again.id == first.id
    assert active_with(emulator, outs["submissionKey"]) == [first.id]


def test_creation_times_compare_as_times_not_strings():
    jobs = [
        {"name": "b", "createTime": "2026-12-04T10:00:05Z"},
        {"name": "a", "createTime": "2026-12-04T10:00:05.500Z"},
        {"name": "c", "createTime": "2026-12-04T10:00:04.999999999Z"},
    ]
    assert [j["name"] for j in ordering.oldest_first(jobs)] == ["c", "b", "a"]


def _twin_of(emulator, name: str) -> str:
    """A second active copy of the job `name` (same labels, created later): one no list showed
    while its `up` ran (a create that landed past the settle time)."""
    from google.protobuf import json_format

    twin = json_format.MessageToDict(type(emulator.job(name)).pb(emulator.job(name)))
    twin["name"] = name[:-3] + "999"
    twin["createTime"] = "2999-01-01T00:00:00Z"
    emulator.restore(twin)
    return twin["name"]


# What docs/lifecycle.md ("Deleting") says destroy leaves, per onDelete: the job's state, or None once its
# record is gone. A duplicate of its key is cancelled with every onDelete, keep included (decision/verdict.py).
AFTER_DESTROY = {
    "delete": None,
    "cancel": "JOB_STATE_CANCELLED",
    "keep": "JOB_STATE_RUNNING",
}


@pytest.mark.parametrize("on_delete", AFTER_DESTROY)
def test_destroy_does_what_on_delete_says_and_cancels_a_duplicate_of_the_key(host, emulator, inputs, on_delete):
    created = host.create(URN, checked(host, {**inputs, "onDelete": on_delete}))
    outs = deserialize(created.properties)
    emulator.set_state(created.id, "JOB_STATE_RUNNING")
    twin = _twin_of(emulator, created.id)
    assert sorted(active_with(emulator, outs["submissionKey"])) == sorted([created.id, twin])

    host.delete(URN, created.id, outs)

    left = {job.name: job.state.name for job in emulator.jobs()}
    assert left.get(created.id) == AFTER_DESTROY[on_delete]
    assert left[twin] in states.CANCELLED_OR_CANCELLING  # its record stays until the sweep (still stopping)
    assert active_with(emulator, outs["submissionKey"]) == ([created.id] if on_delete == "keep" else [])
    assert emulator.calls["DeleteCustomJob"] == (1 if on_delete == "delete" else 0)
