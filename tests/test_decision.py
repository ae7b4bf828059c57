"""One decision for the preview and the action (components/spot_job/decision/verdict.py).

For every outcome, through the dynamic provider host: what `diff` tells the
engine and prints in the preview, then what the engine does with it (the step
it plans: nothing, an update, a replacement in the order diff asked), and what
that does in Vertex (the emulator). The preview's words and the action agree.
"""

from __future__ import annotations

import copy

import pytest
from pulumi.runtime import rpc
from pulumi.runtime.proto import provider_pb2

from components.spot_job.decision.verdict import Kind, decide
from components.spot_job.model import states
from components.spot_job.model.job_inputs import JobInputs
from components.spot_job.model.job_state import JobState
from tests.program import one_job_inputs
from tests.provider_host import JOB_TYPE, deserialize
from tests.shared_host import emulator, host  # noqa: F401 (fixtures: one host per module)

URN = f"urn:pulumi:dev::spot-training::{JOB_TYPE}::vision-resnet"
STOCKOUT = (9, "The job failed: STOCKOUT: no Spot capacity")
CODE_ERROR = (3, "The replica workerpool0-0 exited with a non-zero status of 1.")


@pytest.fixture(scope="module")
def program_inputs():
    return one_job_inputs()


def checked(host, inputs) -> dict:
    return deserialize(host.check(URN, {}, copy.deepcopy(inputs)).inputs)


def created(host, emulator, inputs) -> tuple[str, dict]:
    made = host.create(URN, checked(host, inputs))
    return made.id, deserialize(made.properties)


def refreshed(host, id_, state) -> dict:
    return deserialize(host.read(URN, id_, state).properties)


def with_machine(inputs: dict, machine: str) -> dict:
    news = copy.deepcopy(inputs)
    news["jobSpec"]["workerPoolSpecs"][0]["machineSpec"]["machineType"] = machine
    return news


def engine_step(host, emulator, id_: str, state: dict, news: dict) -> dict:
    """What `pulumi up` does after this diff: nothing, an update, or a replacement in the asked order.
    Returns what was seen: the diff, the preview's text, the calls made, the jobs active between steps."""
    host.clear_log()
    diff = host.diff(URN, id_, state, news)
    preview = host.log
    emulator.reset_calls()
    seen = {"diff": diff, "preview": preview, "step": "none", "between": None, "result": None}
    if diff.changes != provider_pb2.DiffResponse.DIFF_SOME:
        return seen
    if not diff.replaces:
        seen["step"] = "update"
        seen["result"] = deserialize(host.update(URN, id_, state, checked(host, news)).properties)
    elif diff.deleteBeforeReplace:
        seen["step"] = "replace, delete first"
        host.delete(URN, id_, state)
        seen["result"] = deserialize(host.create(URN, checked(host, news)).properties)
    else:
        seen["step"] = "replace, create first"
        seen["result"] = deserialize(host.create(URN, checked(host, news)).properties)
        seen["between"] = {job.name: job.state.name for job in emulator.jobs()}
        host.delete(URN, id_, state)
    seen["calls"] = dict(emulator.calls)
    seen["action"] = host.log
    return seen


def active(emulator) -> set[str]:
    return {job.name for job in emulator.jobs() if states.is_active(job.state.name)}


def scenario_unchanged(host, emulator, inputs):
    id_, state = created(host, emulator, inputs)
    return id_, state, checked(host, inputs)


def scenario_knobs(host, emulator, inputs):
    id_, state = created(host, emulator, inputs)
    return id_, state, checked(host, {**inputs, "waitTimeout": "120s"})


def scenario_replace_cancel_first(host, emulator, inputs):
    id_, state = created(host, emulator, inputs)
    return id_, state, checked(host, with_machine(inputs, "n1-highmem-8"))


def scenario_replace_submit_first(host, emulator, inputs):
    first = {**inputs, "replaceOrder": "submitFirst"}
    id_, state = created(host, emulator, first)
    emulator.advance(id_), emulator.advance(id_)  # running
    return id_, refreshed(host, id_, state), checked(host, with_machine(first, "n1-highmem-8"))


def scenario_resubmit(host, emulator, inputs):
    id_, state = created(host, emulator, inputs)
    emulator.set_state(id_, "JOB_STATE_FAILED", error=STOCKOUT)
    return id_, refreshed(host, id_, state), checked(host, inputs)


def scenario_held_back(host, emulator, inputs):
    id_, state = created(host, emulator, inputs)
    emulator.set_state(id_, "JOB_STATE_FAILED", error=CODE_ERROR)
    return id_, refreshed(host, id_, state), checked(host, inputs)


def scenario_gone_after_a_stockout(host, emulator, inputs):
    id_, state = created(host, emulator, inputs)
    emulator.set_state(id_, "JOB_STATE_FAILED", error=STOCKOUT)
    state = refreshed(host, id_, state)
    emulator.remove(id_)  # its record deleted from the console
    return id_, refreshed(host, id_, state), checked(host, inputs)


def scenario_cancelled_outside(host, emulator, inputs):
    id_, state = created(host, emulator, inputs)
    emulator.set_state(id_, "JOB_STATE_CANCELLED")
    return id_, refreshed(host, id_, state), checked(host, inputs)


SCENARIOS = {
    Kind.UNCHANGED: scenario_unchanged,
    Kind.KNOBS: scenario_knobs,
    Kind.REPLACE: scenario_replace_cancel_first,
    "submitFirst": scenario_replace_submit_first,
    Kind.RESUBMIT: scenario_resubmit,
    Kind.HELD_BACK: scenario_held_back,
    Kind.GONE: scenario_gone_after_a_stockout,
    Kind.CANCELLED_OUTSIDE: scenario_cancelled_outside,
}


@pytest.mark.parametrize("outcome", SCENARIOS, ids=lambda k: getattr(k, "name", k))
def test_the_preview_line_and_the_action_agree(host, emulator, program_inputs, outcome):
    id_, state, news = SCENARIOS[outcome](host, emulator, program_inputs)
    decided = decide(JobState.of(state, id_), JobInputs.of(state), JobInputs.of(news))
    assert decided.kind == (Kind.REPLACE if outcome == "submitFirst" else outcome)
    before = {job.name for job in emulator.jobs()}
    seen = engine_step(host, emulator, id_, state, news)
    if decided.reason:
        assert decided.reason.splitlines()[0] in seen["preview"]
    else:
        assert seen["preview"] == ""
    creates = seen.get("calls", {}).get("CreateCustomJob", 0)
    if decided.kind in (Kind.UNCHANGED, Kind.HELD_BACK, Kind.GONE, Kind.CANCELLED_OUTSIDE):
        assert seen["step"] == "none" and creates == 0
    elif decided.kind == Kind.KNOBS:
        assert seen["step"] == "update" and seen["calls"] == {}
    elif decided.kind == Kind.RESUBMIT:
        # "will be submitted again as attempt 2": exactly that, in the update
        assert "will be submitted again as attempt 2" in seen["preview"]
        assert seen["step"] == "update" and creates == 1 and seen["result"]["attempt"] == 2
        assert seen["result"]["jobName"] not in before
    elif outcome == Kind.REPLACE:
        assert "the old one cancelled first" in seen["preview"]
        assert seen["step"] == "replace, delete first" and creates == 1
        assert active(emulator) == {seen["result"]["jobName"]}
    else:  # submitFirst: "the old one cancelled after": both run until the old one's delete
        assert "the old one cancelled after" in seen["preview"]
        assert seen["step"] == "replace, create first" and creates == 1
        assert seen["between"][id_] == "JOB_STATE_RUNNING"
        assert states.is_active(seen["between"][seen["result"]["jobName"]])
        assert active(emulator) == {seen["result"]["jobName"]}
        assert "no state points to" not in seen["action"]


@pytest.mark.parametrize("on_delete", ["cancel", "keep"])
def test_a_spec_that_comes_back_is_trained_again_as_the_preview_says(host, emulator, program_inputs, on_delete):
    """A -> B -> A: the record of A's run is not adopted; a new A runs."""
    spec_a = {**program_inputs, "onDelete": on_delete}
    id_a, state_a = created(host, emulator, spec_a)
    emulator.set_state(id_a, "JOB_STATE_SUCCEEDED")
    state_a = refreshed(host, id_a, state_a)
    to_b = engine_step(host, emulator, id_a, state_a, checked(host, with_machine(spec_a, "n1-highmem-8")))
    state_b = to_b["result"]
    back = engine_step(host, emulator, state_b["jobName"], state_b, checked(host, spec_a))
    assert "will be submitted again as a new job" in back["preview"]
    assert back["calls"].get("CreateCustomJob") == 1
    assert back["result"]["jobName"] not in (id_a, state_b["jobName"])
    assert back["result"]["state"] == "JOB_STATE_QUEUED"


def test_a_rerun_set_back_is_trained_again(host, emulator, program_inputs):
    first = {**program_inputs, "onDelete": "cancel", "rerun": "1"}
    id_, state = created(host, emulator, first)
    emulator.set_state(id_, "JOB_STATE_SUCCEEDED")
    state = refreshed(host, id_, state)
    second = engine_step(host, emulator, id_, state, checked(host, {**first, "rerun": "2"}))["result"]
    emulator.set_state(second["jobName"], "JOB_STATE_SUCCEEDED")
    second = refreshed(host, second["jobName"], second)
    back = engine_step(host, emulator, second["jobName"], second, checked(host, first))
    assert back["calls"].get("CreateCustomJob") == 1 and back["result"]["jobName"] not in (id_, second["jobName"])


def test_a_preview_of_a_failed_job_whose_policy_is_unknown_says_so_without_error(host, emulator, program_inputs):
    id_, state, news = scenario_resubmit(host, emulator, program_inputs)
    news = {**news, "resubmission": rpc.UNKNOWN}
    host.clear_log()
    diff = host.diff(URN, id_, state, news)
    assert diff.changes == provider_pb2.DiffResponse.DIFF_SOME and list(diff.replaces) == []
    assert "whether it is submitted again depends on `resubmission`, known once deployed" in host.log
