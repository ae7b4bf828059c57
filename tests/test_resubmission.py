"""Policy-driven resubmission of failed jobs, as successive `pulumi up`s drive it.

Each `up` refreshes first (`options.refresh: always`): read, then diff against
the program's inputs, then update when the diff says so. The helper `up` below
is that sequence, against the emulator through the real client.
"""

import pytest

from components.spot_job.decision import resubmission_policy
from components.spot_job.model import spec
from components.spot_job.model.job_inputs import JobInputs
from components.spot_job.model.job_state import JobState
from components.spot_job.provider import SpotTrainingJobProvider
from tests.emulator import STOCKOUT_ERROR
from tests.fixtures import job_inputs

provider = SpotTrainingJobProvider()
pytestmark = pytest.mark.usefixtures("fast_pace")

OUTPUT = "gs://acme-ml-dev-vision-staging/jobs/resnet"
CODE_ERROR = (3, "The replica workerpool0-0 exited with a non-zero status of 1.")


def inputs(**overrides) -> dict:
    body = job_inputs(submissionScope="spot-training/dev/resnet", **overrides)
    body["jobSpec"]["baseOutputDirectory"] = {"outputUriPrefix": OUTPUT}
    return body


def gpu_inputs(**overrides) -> dict:
    body = inputs(**overrides)
    body["jobSpec"]["workerPoolSpecs"][0]["machineSpec"] = {
        "machineType": "g2-standard-8",
        "acceleratorType": "NVIDIA_L4",
        "acceleratorCount": 1,
    }
    return body


def up(id_: str, state: dict, news: dict) -> tuple[dict, bool]:
    """One `pulumi up` of an unchanged program: refresh, diff, update if due."""
    state = provider.read(id_, state).outs
    diff = provider.diff(id_, state, news)
    assert diff.replaces == []  # a resubmission never replaces the resource
    if not diff.changes:
        return state, False
    return provider.update(id_, state, news).outs, True


def test_a_preempted_job_is_resubmitted_by_the_next_up_keeping_its_output_directory(emulator):
    news = inputs()
    created = provider.create(news)
    emulator.preempt(created.id)
    state, changed = up(created.id, created.outs, news)
    assert changed
    assert len(emulator.jobs()) == 2
    second = emulator.job(state["jobName"])
    assert state["jobName"] != created.id and state["attempt"] == 2 and state["state"] == "JOB_STATE_QUEUED"
    assert second.job_spec.base_output_directory.output_uri_prefix == OUTPUT  # AIP_CHECKPOINT_DIR survives
    assert second.job_spec.scheduling.strategy.name == "SPOT"
    assert second.labels[spec.SUBMISSION_LABEL] == state["submissionKey"] != created.outs["submissionKey"]
    [past] = state["history"]
    assert past["jobId"] == created.outs["jobId"] and past["state"] == "JOB_STATE_FAILED"
    assert past["error"]["code"] == STOCKOUT_ERROR[0] and "STOCKOUT" in past["error"]["message"]
    assert up(created.id, state, news) == (provider.read(created.id, state).outs, False)  # queued: nothing more


def test_resubmission_stops_at_max_resubmissions(emulator):
    news = inputs(resubmission={"maxResubmissions": 2})
    created = provider.create(news)
    state = created.outs
    for expected_attempt in (2, 3):
        emulator.preempt(state["jobName"])
        state, changed = up(created.id, state, news)
        assert changed and state["attempt"] == expected_attempt
    emulator.preempt(state["jobName"])
    state, changed = up(created.id, state, news)
    assert not changed and state["state"] == "JOB_STATE_FAILED"
    assert len(emulator.jobs()) == 3
    assert [h["state"] for h in state["history"]] == ["JOB_STATE_FAILED"] * 2


@pytest.mark.parametrize(
    "policy, error, why",
    [
        ({}, CODE_ERROR, "not a STOCKOUT, and resubmission.onOtherFailures is off"),
        ({"maxResubmissions": 0}, STOCKOUT_ERROR, "resubmission.maxResubmissions reached after 1 attempts"),
    ],
)
def test_a_failed_job_held_back_says_why_in_the_up_log(emulator, caplog, policy, error, why):
    news = inputs(resubmission=policy)
    created = provider.create(news)
    emulator.set_state(created.id, "JOB_STATE_FAILED", error=error)
    assert up(created.id, created.outs, news)[1] is False
    [warning] = [r.getMessage() for r in caplog.records if r.name == "spot-training" and "not submitted again" in r.getMessage()]
    assert why in warning and created.outs["consoleUrl"] in warning


def test_max_resubmissions_zero_turns_it_off(emulator):
    news = inputs(resubmission={"maxResubmissions": 0})
    created = provider.create(news)
    emulator.preempt(created.id)
    assert up(created.id, created.outs, news)[1] is False


def test_a_failure_of_the_training_code_is_not_resubmitted_unless_the_policy_says_so(emulator):
    news = inputs()
    created = provider.create(news)
    emulator.set_state(created.id, "JOB_STATE_FAILED", error=CODE_ERROR)
    assert up(created.id, created.outs, news)[1] is False
    retrying = inputs(resubmission={"onOtherFailures": True})
    state, changed = up(created.id, created.outs, retrying)
    assert changed and state["attempt"] == 2


@pytest.mark.parametrize("final", ["JOB_STATE_SUCCEEDED", "JOB_STATE_CANCELLED", "JOB_STATE_EXPIRED"])
def test_a_job_that_ended_otherwise_stays_in_state_and_is_not_resubmitted(emulator, final):
    news = inputs()
    created = provider.create(news)
    emulator.set_state(created.id, final)
    state, changed = up(created.id, created.outs, news)
    assert not changed and state["state"] == final and len(emulator.jobs()) == 1


def test_the_fallback_ladder_moves_a_gpu_job_to_flex_start_then_standard(emulator):
    news = gpu_inputs(
        resubmission={
            "maxResubmissions": 3,
            "fallback": [{"afterStockouts": 2, "strategy": "auto"}, {"afterStockouts": 3, "strategy": "STANDARD"}],
        }
    )
    created = provider.create(news)
    state, strategies = created.outs, []
    for _ in range(3):
        emulator.preempt(state["jobName"])
        state, _ = up(created.id, state, news)
        strategies.append(emulator.job(state["jobName"]).job_spec.scheduling.strategy.name)
    assert strategies == ["SPOT", "FLEX_START", "STANDARD"]
    assert state["strategy"] == "STANDARD"
    assert [h["strategy"] for h in state["history"]] == ["SPOT", "SPOT", "FLEX_START"]


def test_auto_falls_back_to_standard_where_flex_start_does_not_apply(emulator):
    news = inputs(resubmission={"fallback": [{"afterStockouts": 1, "strategy": "auto"}]})  # a CPU machine
    created = provider.create(news)
    emulator.preempt(created.id)
    state, _ = up(created.id, created.outs, news)
    assert emulator.job(state["jobName"]).job_spec.scheduling.strategy.name == "STANDARD"



def test_auto_never_moves_a_t4_job_to_flex_start(emulator):
    # The README's example: one T4 and `fallback: auto`. Flex-start takes L4, A100,
    # H100, H200 and B200 GPUs only (issue 11.7), so auto means STANDARD here.
    # https://cloud.google.com/vertex-ai/docs/training/schedule-jobs-dws
    news = gpu_inputs(resubmission={"fallback": [{"afterStockouts": 2, "strategy": "auto"}]})
    news["jobSpec"]["workerPoolSpecs"][0]["machineSpec"] = {"machineType": "n1-standard-8", "acceleratorType": "NVIDIA_TESLA_T4", "acceleratorCount": 1}
    assert resubmission_policy.strategy_after(2, JobInputs.of(news)) == "STANDARD"
    assert resubmission_policy.strategy_after(2, JobInputs.of(gpu_inputs(resubmission=news["resubmission"]))) == "FLEX_START"

def test_without_a_fallback_every_resubmission_stays_on_spot(emulator):
    news = gpu_inputs()
    created = provider.create(news)
    state = created.outs
    for _ in range(3):
        emulator.preempt(state["jobName"])
        state, _ = up(created.id, state, news)
    assert {job.job_spec.scheduling.strategy.name for job in emulator.jobs()} == {"SPOT"}


def test_a_resubmission_whose_answer_was_lost_is_adopted_by_the_next_up(emulator, monkeypatch):
    """The update submitted attempt 2 and died before the engine recorded it."""
    import grpc

    from components.spot_job.client import job_service

    monkeypatch.setattr(job_service, "READ_DEADLINE", 0.2)
    monkeypatch.setattr(job_service, "SUBMIT_DEADLINE", 0.5)
    news = inputs()
    created = provider.create(news)
    emulator.preempt(created.id)
    refreshed = provider.read(created.id, created.outs).outs
    emulator.inject("CreateCustomJob", grpc.StatusCode.UNAVAILABLE, times=1, after_apply=True)
    emulator.inject("ListCustomJobs", grpc.StatusCode.UNAVAILABLE, times=10_000)  # the look-up cannot save it now
    with pytest.raises(job_service.VertexError, match="did not answer"):
        provider.update(created.id, refreshed, news)
    emulator.clear_faults()
    state, changed = up(created.id, created.outs, news)  # the state still holds attempt 1
    assert changed and state["attempt"] == 2
    assert len(emulator.jobs()) == 2 and emulator.calls["CreateCustomJob"] == 2


def test_delete_after_resubmissions_removes_every_attempt(emulator):
    news = inputs()
    created = provider.create(news)
    emulator.preempt(created.id)
    state, _ = up(created.id, created.outs, news)
    provider.delete(created.id, state)
    assert emulator.jobs() == []


def test_a_preview_announces_a_resubmission_without_making_it(emulator, caplog):
    import logging

    caplog.set_level(logging.INFO, logger="spot-training")
    news = inputs()
    created = provider.create(news)
    emulator.preempt(created.id)
    refreshed = provider.read(created.id, created.outs).outs
    emulator.reset_calls()
    assert provider.diff(created.id, refreshed, news).changes is True
    assert sum(emulator.calls.values()) == 0
    assert any(
        f"{created.outs['jobId']} ended FAILED (STOCKOUT); will be submitted again as attempt 2 on SPOT" in r.getMessage()
        for r in caplog.records
    )


# --- the policy alone -------------------------------------------------------


def failed(error=STOCKOUT_ERROR, attempt=1, history=()):
    code, message = error
    return {"state": "JOB_STATE_FAILED", "error": {"code": code, "message": message}, "attempt": attempt, "history": list(history)}


def test_stockout_is_recognised_by_vertexs_error_message():
    assert resubmission_policy.is_stockout({"code": 8, "message": STOCKOUT_ERROR[1]})
    assert not resubmission_policy.is_stockout({"code": 3, "message": CODE_ERROR[1]})
    assert not resubmission_policy.is_stockout(None)


def test_attempt_numbers_arrive_as_doubles_from_the_wire():
    due = resubmission_policy.next_submission(JobState.of(failed(attempt=2.0)), JobInputs.of(inputs()))
    assert (due.attempt, due.reason, due.strategy) == (3, "STOCKOUT", "SPOT")


def test_the_ladder_counts_stockouts_across_attempts_not_other_failures():
    news = gpu_inputs(resubmission={"onOtherFailures": True, "fallback": [{"afterStockouts": 2, "strategy": "FLEX_START"}]})
    code_failure = {"error": {"code": 3, "message": CODE_ERROR[1]}}
    stockout = {"error": {"code": 8, "message": STOCKOUT_ERROR[1]}}
    assert resubmission_policy.next_submission(JobState.of(failed(attempt=2, history=[code_failure])), JobInputs.of(news)).strategy == "SPOT"
    assert resubmission_policy.next_submission(JobState.of(failed(attempt=2, history=[stockout])), JobInputs.of(news)).strategy == "FLEX_START"
