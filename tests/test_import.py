"""Adopting a CustomJob started outside the stack (gcloud, the SDK) without a second submission: a
job entry's `import:` (the `adopt` input) makes the provider's create, through the dynamic provider
host, check the job against the spec and adopt it, or fail naming each differing path."""

from __future__ import annotations

import copy

import grpc
import pytest

from components.spot_job.client import job_service
from components.spot_job.model import spec
from components.spot_job.model.job_name import parent_of
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
    return job_service.JobService(inputs["location"]).create(parent_of(inputs["project"], inputs["location"]), body)["name"]


def test_a_job_that_matches_its_spec_is_adopted_without_a_submission(host, emulator, program_inputs):
    name = started_with_gcloud(program_inputs)
    emulator.reset_calls()
    created = host.create(URN, {**copy.deepcopy(program_inputs), "adopt": name})
    assert created.id == name
    state = deserialize(created.properties)
    assert state["jobName"] == name and state["state"] == "JOB_STATE_QUEUED" and state["attempt"] == 1
    assert state["submissionKey"] == spec.submission_key(program_inputs, 1)
    assert emulator.calls["CreateCustomJob"] == 0 and len(emulator.jobs()) == 1
    # Then it is the resource's job like any other: the next diff plans nothing.
    # and dropping `import:` afterwards only updates the knob in place.
    assert host.diff(URN, name, state, {**program_inputs, "adopt": name}).changes == 1  # DIFF_NONE
    dropped = host.diff(URN, name, state, program_inputs)
    assert dropped.changes == 2 and list(dropped.replaces) == []  # DIFF_SOME, no replacement
    assert f"adopted {name}" in host.log


def test_a_job_that_differs_from_its_spec_is_refused_naming_each_path(host, emulator, program_inputs):
    inputs = copy.deepcopy(program_inputs)
    name = started_with_gcloud(inputs)
    inputs["jobSpec"]["workerPoolSpecs"][0]["machineSpec"]["machineType"] = "n1-highmem-8"
    inputs["displayName"] = "another-name"
    with pytest.raises(grpc.RpcError) as refused:
        host.create(URN, {**inputs, "adopt": name})
    said = refused.value.details()
    assert f"cannot adopt {name}: it is not the job its spec declares" in said
    assert "jobSpec.workerPoolSpecs[0].machineSpec.machineType: 'n1-standard-4' in Vertex, 'n1-highmem-8' in the config" in said
    assert "displayName:" in said and "Traceback" not in said
    assert emulator.calls["CreateCustomJob"] == 1  # gcloud's only


def test_a_secret_value_that_differs_is_named_never_shown(host, emulator, program_inputs):
    inputs = copy.deepcopy(program_inputs)
    container = inputs["jobSpec"]["workerPoolSpecs"][0]["containerSpec"]
    container["env"] = [{"name": "HF_TOKEN", "value": "hf_the-one-set-by-hand-0000"}]
    name = started_with_gcloud(inputs)
    container["env"][0]["value"] = "hf_the-one-in-the-config-1111"
    inputs["secretPaths"] = ["jobSpec.workerPoolSpecs[0].containerSpec.env[0].value"]
    with pytest.raises(grpc.RpcError) as refused:
        host.create(URN, {**inputs, "adopt": name})
    said = refused.value.details()
    assert "jobSpec.workerPoolSpecs[0].containerSpec.env[0].value: [secret] differs" in said
    assert "hf_the-one" not in said and "hf_the-one" not in host.log


def test_a_job_that_does_not_exist_is_refused(host, emulator, program_inputs):
    name = f"{parent_of(program_inputs['project'], program_inputs['location'])}/customJobs/123"
    with pytest.raises(grpc.RpcError) as refused:
        host.create(URN, {**copy.deepcopy(program_inputs), "adopt": name})
    assert "no such job in Vertex AI" in refused.value.details()
    assert emulator.calls["CreateCustomJob"] == 0


def test_the_import_option_in_code_is_the_adopt_input_not_the_engines_import():
    """`SpotTrainingJob(..., opts=ResourceOptions(import_=name))` registers `adopt` and no import id: the
    engine's import would read the job with its id alone, which the SDK's dynamic provider host cannot serve."""
    import pulumi

    from components.spot_job.resource import SpotTrainingJob, SpotTrainingJobArgs
    from tests.program import render_components

    name = "projects/acme-ml-dev/locations/us-central1/customJobs/8123456789012345678"

    body = spec.request_body(one_job_inputs())  # renders the program itself: before this render

    def build() -> None:
        SpotTrainingJob("by-hand", SpotTrainingJobArgs.from_custom_job(body), opts=pulumi.ResourceOptions(import_=name))

    recorder = render_components(build)
    [registered] = recorder.of_type("SpotTrainingJob")
    assert registered.inputs["adopt"] == name
    assert recorder.import_ids["by-hand"] == ""
