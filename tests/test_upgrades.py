"""Users' state is a format: what each released version left in it keeps working with HEAD.

tests/upgrades/v*.json were recorded by `python -m tests.upgrades.record vN`
with that version checked out (a job running, a job preempted and
resubmitted): the resource's inputs with the pickled provider, its id and
outputs as the engine stores them, and the CustomJobs as Vertex AI holds them.
Here HEAD's dynamic provider host refreshes, diffs, updates and destroys those
states, and adopts a job that an older version submitted but never recorded.
"""

from __future__ import annotations

import base64
import copy
import json
import pickletools
from pathlib import Path

import pytest
from pulumi.runtime.proto import provider_pb2

from components.spot_job.model import spec
from tests.provider_host import deserialize
from tests.shared_host import emulator, host  # noqa: F401 (fixtures: one host per module)

FIXTURES = sorted((Path(__file__).parent / "upgrades").glob("v*.json"))
RECORDED = {path.stem: json.loads(path.read_text()) for path in FIXTURES}
SCENARIOS = [(version, name) for version, record in RECORDED.items() for name in record["scenarios"]]
# The provider class every stack's `__provider` blob names. Moving it breaks
# refresh and destroy of every existing stack unless this path keeps working.
PROVIDER_REFERENCE = ("components.spot_job.provider", "SpotTrainingJobProvider")


def _scenario(version: str, name: str) -> dict:
    return copy.deepcopy(RECORDED[version]["scenarios"][name])


def _referenced_globals(blob: str) -> list[str]:
    """The module and class names a pickle refers to, read without unpickling it."""
    return [arg for op, arg, _ in pickletools.genops(base64.b64decode(blob)) if op.name in ("SHORT_BINUNICODE", "BINUNICODE")]


def test_there_is_a_recorded_state_of_every_released_version():
    assert "v1" in RECORDED


@pytest.mark.parametrize("version,name", SCENARIOS)
def test_the_pickled_provider_names_the_same_module_and_class(version, name):
    recorded = _scenario(version, name)
    assert _referenced_globals(recorded["inputs"]["__provider"]) == list(PROVIDER_REFERENCE)
    from components.spot_job.provider import SpotTrainingJobProvider

    assert (SpotTrainingJobProvider.__module__, SpotTrainingJobProvider.__qualname__) == PROVIDER_REFERENCE


@pytest.mark.parametrize("version,name", SCENARIOS)
def test_the_submission_key_derivation_is_unchanged(version, name):
    """The label of each job an older version submitted is the key HEAD derives for it:
    otherwise a retried create would submit the same job twice."""
    recorded = _scenario(version, name)
    for attempt, job in enumerate(recorded["jobs"], start=1):
        assert spec.submission_key(recorded["inputs"], attempt) in job["labels"].values()


@pytest.mark.parametrize("version,name", SCENARIOS)
def test_a_recorded_state_refreshes_diffs_updates_and_destroys_with_head(host, emulator, version, name):
    recorded = _scenario(version, name)
    for job in recorded["jobs"]:
        emulator.restore(job)
    urn, id_, inputs = RECORDED[version]["urn"], recorded["id"], recorded["inputs"]

    read = host.read(urn, id_, recorded["outputs"])
    assert read.id == id_
    state = deserialize(read.properties)
    assert state["jobName"] == recorded["outputs"]["jobName"] and state["attempt"] == recorded["outputs"]["attempt"]

    emulator.reset_calls()
    checked = deserialize(host.check(urn, state, inputs).inputs)
    diff = host.diff(urn, id_, state, checked)
    assert diff.changes == provider_pb2.DiffResponse.DIFF_NONE
    assert sum(emulator.calls.values()) == 0  # an unchanged stack costs no call and resubmits nothing

    news = {**checked, "deleteTimeout": "120s"}
    assert list(host.diff(urn, id_, state, news).replaces) == []
    updated = deserialize(host.update(urn, id_, state, news).properties)
    assert updated["jobName"] == state["jobName"] and sum(emulator.calls.values()) == 0

    host.delete(urn, id_, updated)
    assert emulator.jobs() == []  # every attempt's record, deleted


@pytest.mark.parametrize("version", sorted(RECORDED))
def test_a_job_an_older_version_submitted_but_never_recorded_is_adopted(host, emulator, version):
    """`pulumi up` with version N died after Vertex accepted the job; the next `up` runs HEAD."""
    recorded = _scenario(version, "running")
    [job] = recorded["jobs"]
    emulator.restore(job)
    created = host.create(RECORDED[version]["urn"], recorded["inputs"])
    assert created.id == job["name"]
    assert emulator.calls["CreateCustomJob"] == 0
