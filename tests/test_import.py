"""Adopting a CustomJob started outside the stack (gcloud, the SDK) without a second submission:
the engine's import reads it through the dynamic provider host, which checks it against the spec."""

from __future__ import annotations

import copy

import grpc
import pytest

from components.spot_job import spec, vertex
from tests.program import one_job_inputs
from tests.provider_host import JOB_TYPE, deserialize
from tests.shared_host import emulator, host  # noqa: F401 (fixtures: one host per module)

URN = f"urn:pulumi:dev::spot-training::{JOB_TYPE}::vision-resnet"


@pytest.fixture(scope="module")
def program_inputs():
    return one_job_inputs()


def started_with_gcloud(inputs: dict, **changes) -> str:
    """A job submitted as `gcloud ai custom-jobs create --config` would: the spec, none of the stack's labels."""
    body = spec.request_body(inputs)
    body["labels"] = {"owner": "someone"}
    body["jobSpec"].update(changes)
    return vertex.JobService(inputs["location"]).create(spec.parent(inputs), body)["name"]


def test_a_job_that_matches_its_spec_is_adopted_without_a_submission(host, emulator, program_inputs):
    name = started_with_gcloud(program_inputs)
    emulator.reset_calls()
    state = deserialize(host.read(URN, name, copy.deepcopy(program_inputs)).properties)
    assert state["jobName"] == name and state["state"] == "JOB_STATE_QUEUED" and state["attempt"] == 1
    assert state["submissionKey"] == spec.submission_key(program_inputs, 1)
    assert emulator.calls["CreateCustomJob"] == 0 and len(emulator.jobs()) == 1
    # Then it is the resource's job like any other: the next diff plans nothing.
    assert host.diff(URN, name, state, program_inputs).changes == 1  # DIFF_NONE
    assert f"imported {name}" in host.log


def test_a_job_that_differs_from_its_spec_is_refused_naming_each_path(host, emulator, program_inputs):
    inputs = copy.deepcopy(program_inputs)
    name = started_with_gcloud(inputs)
    inputs["jobSpec"]["workerPoolSpecs"][0]["machineSpec"]["machineType"] = "n1-highmem-8"
    inputs["displayName"] = "another-name"
    with pytest.raises(grpc.RpcError) as refused:
        host.read(URN, name, inputs)
    said = refused.value.details()
    assert f"cannot import {name}: it is not the job its spec declares" in said
    assert "jobSpec.workerPoolSpecs[0].machineSpec.machineType: 'n1-standard-4' in Vertex, 'n1-highmem-8' in the config" in said
    assert "displayName:" in said and "Traceback" not in said
    assert emulator.calls["CreateCustomJob"] == 1  # gcloud's only


def test_a_job_that_does_not_exist_is_refused(host, emulator, program_inputs):
    name = f"{spec.parent(program_inputs)}/customJobs/123"
    with pytest.raises(grpc.RpcError) as refused:
        host.read(URN, name, copy.deepcopy(program_inputs))
    assert "no such job in Vertex AI" in refused.value.details()
