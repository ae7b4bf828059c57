"""An attempt's progress, from the training's progress record, and the policy that reads it.

Pure: the record as spot_runtime writes it (training/spot-runtime), what
`progress.assess` makes of it, and what the decision then says for a job whose
attempts did or did not get ahead. The refresh that reads the record from Cloud
Storage, through the dynamic provider host, is tests/test_progress_refresh.py.
"""

from __future__ import annotations

import json

import pytest

from components.spot_job.decision import resubmission_policy, verdict
from components.spot_job.model import progress, spec
from components.spot_job.model.job_inputs import JobInputs
from components.spot_job.model.job_state import JobState
from components.spot_job.model.progress import Progress
from tests.emulator import STOCKOUT_ERROR
from tests.fixtures import job_inputs

URI = "gs://acme-ml-dev-vision-staging/jobs/resnet/checkpoints/progress.json"
NAME = "projects/acme-ml-dev/locations/us-central1/customJobs/{}"


def record(job_id: str | None, step: int, start: int, total: int | None = 5000) -> dict:
    return {"version": 1, "jobId": job_id, "step": step, "startStep": start, "totalSteps": total,
            "time": "2026-12-05T04:30:00Z", "checkpoint": f"step-{step:012d}"}


def test_the_record_lives_in_aip_checkpoint_dir_under_the_base_output_directory():
    inputs = job_inputs()
    inputs["jobSpec"]["baseOutputDirectory"] = {"outputUriPrefix": "gs://b/jobs/resnet/"}
    assert progress.record_uri(progress.output_dir(inputs)) == "gs://b/jobs/resnet/checkpoints/progress.json"
    del inputs["jobSpec"]["baseOutputDirectory"]
    assert progress.record_uri(progress.output_dir(inputs)) is None


def test_an_attempt_progressed_when_its_own_record_ends_past_where_it_started():
    made = progress.assess(record("22", 1200, 300), "22", ["11"], URI)
    assert (made.progressed, made.step, made.start_step, made.total_steps) == (True, 1200, 300, 5000)
    stuck = progress.assess(record("22", 300, 300), "22", ["11"], URI)
    assert stuck.progressed is False and stuck.at() == "step 300 of 5000"


def test_a_record_left_by_an_earlier_attempt_means_this_one_never_started_training():
    never = progress.assess(record("11", 300, 0), "22", ["11"], URI)
    assert never.progressed is False and never.step == 300 and "11" in never.note


def test_no_record_a_foreign_record_and_a_run_off_vertex_are_unknown_never_no_progress():
    assert progress.assess(None, "22", ["11"], URI).progressed is None
    assert URI in progress.assess(None, "22", ["11"], URI).note
    foreign = progress.assess(record("99", 5000, 0), "22", ["11"], URI)
    assert foreign.progressed is None and "job 99" in foreign.note and "not by an attempt of this job" in foreign.note
    laptop = progress.assess(record(None, 50, 0), "22", [], URI)
    assert laptop.progressed is None and "without CLOUD_ML_JOB_ID" in laptop.note


@pytest.mark.parametrize(
    "text, says",
    [
        (b"{not json", "not JSON"),
        (b"[1, 2]", "not a JSON object"),
        (json.dumps({**record("22", 1, 0), "version": 7}).encode(), "version 7"),
        (json.dumps({**record("22", 1, 0), "step": "many"}).encode(), "`step` is 'many'"),
    ],
)
def test_a_corrupt_record_is_refused_naming_its_uri(text, says):
    with pytest.raises(ValueError) as refused:
        progress.parse(text, URI)
    assert URI in str(refused.value) and says in str(refused.value)


def test_the_stored_entry_round_trips_and_an_old_state_has_none():
    made = progress.assess(record("22", 1200, 300), "22", ["11"], URI)
    assert Progress.of(made.entry()) == made
    assert Progress.of(None) is None and Progress.of({}) is None


def stockout_state(progresses: list[Progress | None], **overrides) -> dict:
    """The outputs of a job on its len(progresses)-th attempt, just ended STOCKOUT, each attempt's progress given."""
    ids = [str(11 * (i + 1)) for i in range(len(progresses))]
    history = [
        {"jobId": i, "jobName": NAME.format(i), "state": "JOB_STATE_FAILED", "strategy": "SPOT",
         "error": {"code": STOCKOUT_ERROR[0], "message": STOCKOUT_ERROR[1]}, **({"progress": p.entry()} if p else {})}
        for i, p in zip(ids[:-1], progresses[:-1])
    ]
    current = progresses[-1]
    return {
        **job_inputs(),
        "jobName": NAME.format(ids[-1]), "jobId": ids[-1], "state": "JOB_STATE_FAILED",
        "error": {"code": STOCKOUT_ERROR[0], "message": STOCKOUT_ERROR[1]},
        "submissionKey": "k", "strategy": "SPOT", "attempt": len(progresses), "history": history,
        "progress": current.entry() if current else None, **overrides,
    }


def made(job_id: str, step: int, start: int) -> Progress:
    return progress.assess(record(job_id, step, start), job_id, [], URI)


def test_two_attempts_in_a_row_without_progress_stop_the_resubmissions_by_default():
    olds = stockout_state([made("11", 1200, 0), made("22", 1200, 1200), made("33", 1200, 1200)])
    news = job_inputs()
    assert resubmission_policy.next_submission(JobState.of(olds), JobInputs.of(news)) is None
    decided = verdict.decide(JobState.of(olds), JobInputs.of(olds), JobInputs.of(news))
    assert decided.kind is verdict.Kind.HELD_BACK and not decided.changes
    assert (
        "33 ended FAILED (STOCKOUT) and is not submitted again: attempt 3 ended at step 1200 of 5000, as attempt 2 "
        "did (2 attempts in a row without progress; resubmission.stopWithoutProgress: 2). Change its spec or "
        "`rerun` to run it again." in decided.reason
    )


def test_one_attempt_without_progress_after_one_that_progressed_is_resubmitted_and_says_where_it_resumes():
    olds = stockout_state([made("11", 1200, 0), made("22", 1200, 1200)])
    decided = verdict.decide(JobState.of(olds), JobInputs.of(olds), JobInputs.of(job_inputs()))
    assert decided.kind is verdict.Kind.RESUBMIT and decided.resubmission and decided.resubmission.attempt == 3
    assert decided.reason.endswith("; its training resumes from the checkpoint at step 1200 of 5000")


def test_unknown_progress_never_stops_a_resubmission():
    unknown = progress.assess(None, "22", ["11"], URI)
    olds = stockout_state([unknown, progress.assess(None, "33", ["11", "22"], URI)])
    assert resubmission_policy.next_submission(JobState.of(olds), JobInputs.of(job_inputs())) is not None
    olds = stockout_state([made("11", 0, 0), unknown, made("33", 0, 0)])
    assert resubmission_policy.next_submission(JobState.of(olds), JobInputs.of(job_inputs())) is not None  # the unknown breaks the run of two


def test_stop_without_progress_sets_the_run_length_and_zero_never_stops():
    olds = stockout_state([made("11", 1200, 0), made("22", 1200, 1200), made("33", 1200, 1200)])
    assert resubmission_policy.next_submission(JobState.of(olds), JobInputs.of(job_inputs(resubmission={"stopWithoutProgress": 3}))) is not None
    assert resubmission_policy.next_submission(JobState.of(olds), JobInputs.of(job_inputs(resubmission={"stopWithoutProgress": 0}))) is not None
    one = stockout_state([made("11", 1200, 0), made("22", 1200, 1200)])
    assert resubmission_policy.next_submission(JobState.of(one), JobInputs.of(job_inputs(resubmission={"stopWithoutProgress": 1}))) is None
    assert "attempt 2 made no progress: it ended at step 1200 of 5000, where it started" in str(
        resubmission_policy.held_back(JobState.of(one), JobInputs.of(job_inputs(resubmission={"stopWithoutProgress": 1})))
    )


def test_max_resubmissions_reached_is_said_before_the_lack_of_progress():
    olds = stockout_state([made("11", 0, 0), made("22", 0, 0)])
    why = resubmission_policy.held_back(JobState.of(olds), JobInputs.of(job_inputs(resubmission={"maxResubmissions": 1})))
    assert why == "resubmission.maxResubmissions reached after 2 attempts"


@pytest.mark.parametrize("value", [-1, 11, "often"])
def test_a_bad_stop_without_progress_is_refused_by_its_path(value):
    failures = spec.validate(job_inputs(resubmission={"stopWithoutProgress": value}))
    assert [f.path for f in failures] == ["resubmission.stopWithoutProgress"], failures
