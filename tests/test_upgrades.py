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


def _edited(inputs: dict) -> dict:
    """The spec edited after the interrupted `up`, as a pull request would: a new submission key."""
    edited = copy.deepcopy(inputs)
    edited["jobSpec"]["workerPoolSpecs"][0]["containerSpec"]["args"] = ["--epochs=4"]
    return edited


def _v1_job_of_another_stack(job: dict) -> dict:
    """The same team's job of the same display name, submitted by version N for another stack of the
    same project (environment `prod`): nothing of this resource's."""
    other = copy.deepcopy(job)
    other["name"] = job["name"][:-3] + "777"
    other["labels"] = {**job["labels"], "environment": "prod"}
    return other


@pytest.mark.parametrize("version", sorted(RECORDED))
def test_a_job_an_older_version_submitted_under_an_earlier_spec_is_cancelled_when_head_submits_the_new_one(host, emulator, version):
    """`pulumi up` with version N died after Vertex accepted the job (it is in no state); the spec is then
    edited, and the next `up` runs HEAD: it submits the new spec and cancels the job version N left, as it
    cancels its own jobs left under an earlier key. Another stack's job of the same name runs on."""
    recorded = _scenario(version, "running")
    [job] = recorded["jobs"]
    emulator.restore(job)
    other = _v1_job_of_another_stack(job)
    emulator.restore(other)
    host.clear_log()

    created = host.create(RECORDED[version]["urn"], _edited(recorded["inputs"]))

    assert created.id not in (job["name"], other["name"]) and emulator.calls["CreateCustomJob"] == 1
    states_now = {j.name: j.state.name for j in emulator.jobs()}
    assert states_now[job["name"]] in ("JOB_STATE_CANCELLING", "JOB_STATE_CANCELLED")
    assert states_now[other["name"]] == "JOB_STATE_RUNNING"
    assert f"cancelling {job['name']} (JOB_STATE_RUNNING), an earlier submission of this resource that no state points to" in host.log


@pytest.mark.parametrize("keeps", [{"onDelete": "keep"}, {"replaceOrder": "submitFirst"}], ids=["onDelete keep", "submitFirst"])
def test_a_job_an_older_version_left_under_an_earlier_spec_is_spared_where_heads_own_would_be(host, emulator, keeps):
    recorded = _scenario("v1", "running")
    [job] = recorded["jobs"]
    emulator.restore(job)

    host.create(RECORDED["v1"]["urn"], {**_edited(recorded["inputs"]), **keeps})

    assert emulator.job(job["name"]).state.name == "JOB_STATE_RUNNING"
