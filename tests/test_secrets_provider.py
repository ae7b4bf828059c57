"""Secret values through the dynamic provider host, as the engine drives it.

The host answers Configure with acceptSecrets false, so the engine sends it
plain values: the provider knows which ones were secret only from the
`secretPaths` input the program registers. Whatever the host writes (the
preview's change lines, retry warnings, errors) must not carry them.
"""

from __future__ import annotations

import copy

import grpc
import pytest
from pulumi.runtime.proto import provider_pb2

from offline.program import engine_view
from tests.program import render
from tests.provider_host import JOB_TYPE, deserialize
from tests.shared_host import emulator, host  # noqa: F401 (fixtures: one host per module)
from tests.test_secrets import CIPHERTEXT, TOKEN, with_env, write_stack_file

URN = f"urn:pulumi:dev::spot-training::{JOB_TYPE}::vision-resnet"
NEW_TOKEN = "hf_" + "Zk9" * 12
SECRET_PATH = "jobSpec.workerPoolSpecs[0].containerSpec.env[0].value"


@pytest.fixture
def program_inputs(tmp_path, monkeypatch):
    """The job as the program registers it with a secret env value, as the engine hands it to the host."""
    stacks = tmp_path / "stacks"
    stacks.mkdir()
    monkeypatch.setenv("SPOT_TRAINING_STACKS_DIR", str(stacks))
    write_stack_file(stacks, with_env({"secure": CIPHERTEXT}))
    [job] = render(with_env(TOKEN), secret_keys=("spot-training:teams",)).of_type("SpotTrainingJob")
    inputs = engine_view(job.inputs)  # secrets stripped: the host does not accept them
    assert inputs["secretPaths"] == [SECRET_PATH]
    return inputs


def env_of(inputs: dict) -> list:
    return inputs["jobSpec"]["workerPoolSpecs"][0]["containerSpec"]["env"]


def test_a_preview_says_a_secret_changed_without_showing_it(host, program_inputs):
    inputs = deserialize(host.check(URN, {}, program_inputs).inputs)
    state = deserialize(host.create(URN, inputs).properties)
    news = copy.deepcopy(inputs)
    env_of(news)[0]["value"] = NEW_TOKEN
    env_of(news)[1]["value"] = "debug"
    diff = host.diff(URN, state["jobName"], state, news)
    assert list(diff.replaces) == ["jobSpec"]
    log = host.log
    assert f"{SECRET_PATH}: [secret] (changed)" in log
    assert "jobSpec.workerPoolSpecs[0].containerSpec.env[1].value: info -> debug" in log  # the rest stays readable
    assert TOKEN not in log and NEW_TOKEN not in log


def test_which_values_are_secret_is_a_knob_changed_in_place_without_an_api_call(host, emulator, program_inputs):
    inputs = deserialize(host.check(URN, {}, program_inputs).inputs)
    state = deserialize(host.create(URN, inputs).properties)
    news = {**inputs, "secretPaths": [SECRET_PATH, "jobSpec.workerPoolSpecs[0].containerSpec.env[1].value"]}
    assert list(host.check(URN, state, news).failures) == []
    diff = host.diff(URN, state["jobName"], state, news)
    assert diff.changes == provider_pb2.DiffResponse.DIFF_SOME and list(diff.replaces) == []
    emulator.reset_calls()
    updated = deserialize(host.update(URN, state["jobName"], state, news).properties)
    assert updated["secretPaths"] == news["secretPaths"] and updated["jobId"] == state["jobId"]
    assert sum(emulator.calls.values()) == 0


def test_an_api_error_echoing_a_secret_reaches_neither_the_log_nor_the_error(host, emulator, program_inputs):
    inputs = deserialize(host.check(URN, {}, program_inputs).inputs)
    emulator.inject("CreateCustomJob", grpc.StatusCode.UNAVAILABLE, times=1, message=f"backend hiccup reading env HF_TOKEN={TOKEN}")
    host.create(URN, inputs)  # retried once, then submitted
    log = host.log
    assert "Vertex AI call failed, retrying" in log and "HF_TOKEN=[secret]" in log and TOKEN not in log

    emulator.inject("CreateCustomJob", grpc.StatusCode.INVALID_ARGUMENT, times=1, message=f"env value {TOKEN} is not allowed")
    with pytest.raises(grpc.RpcError) as raised:
        host.create(URN, {**inputs, "submissionScope": "another/stack/job"})
    details = raised.value.details()
    assert "is not allowed" in details and "[secret]" in details and TOKEN not in details
