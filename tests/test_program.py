"""The program under Pulumi's mocks: stacks render, bad config stops it early."""

import pytest

from components.config import ConfigError
from tests.fixtures import docs_request_body
from tests.program import STACKS, Recorder, render, stack_config

STACK_NAMES = sorted(p.name.split(".")[1] for p in STACKS.glob("Pulumi.*.yaml"))


def base_config(**jobs) -> dict:
    return {"gcp:project": "acme-ml-dev", "gcp:region": "us-central1", "spot-training:jobs": jobs}


@pytest.mark.parametrize("env", STACK_NAMES)
def test_every_stack_renders_one_job_per_entry(env):
    config = stack_config(env)
    recorder = render(config, stack=env)
    jobs = recorder.of_type("SpotTrainingJob")
    assert sorted(job.name for job in jobs) == sorted(config["spot-training:jobs"])
    for job in jobs:
        assert job.typ == "pulumi-python:dynamic/spot-training:SpotTrainingJob"
        assert job.inputs["project"] == config["gcp:project"]
        assert job.inputs["location"] == config["gcp:region"]
        assert job.inputs["__provider"]  # the pickled provider the engine will hand the host
        assert job.inputs["submissionScope"] == f"spot-training/{env}/{job.name}"


def test_a_job_is_the_docs_request_body_and_defaults_its_display_name():
    body = docs_request_body()
    del body["displayName"]
    [job] = render(base_config(resnet=body)).of_type("SpotTrainingJob")
    assert job.inputs["displayName"] == "resnet"
    assert job.inputs["jobSpec"] == body["jobSpec"]


def test_a_bad_job_stops_the_program_naming_the_config_path_before_anything_is_registered():
    good = docs_request_body()
    bad = docs_request_body()
    bad["jobSpec"]["workerPoolSpecs"][0]["replicaCount"] = 3
    bad["jobSpec"]["scheduling"]["strategy"] = "CHEAP"
    recorder = Recorder()
    with pytest.raises(ConfigError) as raised:
        render(base_config(a_good_one=good, resnet=bad), recorder=recorder)
    message = str(raised.value)
    assert "spot-training:jobs.resnet.jobSpec.workerPoolSpecs[0].replicaCount" in message
    assert "spot-training:jobs.resnet.jobSpec.scheduling.strategy" in message
    assert [r for r in recorder.resources if r.typ != "pulumi:pulumi:Stack"] == []


def test_unknown_keys_in_a_job_entry_are_errors():
    body = {**docs_request_body(), "jobspec": {}}
    with pytest.raises(ConfigError, match=r"spot-training:jobs\.resnet\.jobspec: unknown field"):
        render(base_config(resnet=body))


def test_a_missing_region_is_named_as_config():
    with pytest.raises(ConfigError, match=r"spot-training:jobs\.resnet\.location: is required.*gcp:region"):
        render({"gcp:project": "acme-ml-dev", "spot-training:jobs": {"resnet": docs_request_body()}})
