"""The progress record the provider reads: startStep across Vertex's restarts of one job and across jobs."""

import json
import logging


def record(place):
    return json.loads(place.read("progress.json"))


def attempt(place, job_id, steps, *, total=1000, interval=100):
    """One container start: restore, train `steps` steps from there, saving at the interval."""
    ckpt = place.checkpointer(total_steps=total, interval=interval, environ={"CLOUD_ML_JOB_ID": job_id})
    restored = ckpt.restore()
    start = restored.step if restored else 0
    for step in range(start, start + steps):
        if ckpt.due(step + 1):
            ckpt.save(step + 1, {"w.bin": str(step + 1).encode()})
    return start


def test_a_restart_of_the_same_job_keeps_the_step_the_job_began_at(place):
    attempt(place, "111", 300)
    assert (record(place)["startStep"], record(place)["step"]) == (0, 300)
    # Vertex restarts the job's container: same CLOUD_ML_JOB_ID, resumes at 300.
    assert attempt(place, "111", 250) == 300
    assert (record(place)["jobId"], record(place)["startStep"], record(place)["step"]) == ("111", 0, 500)


def test_a_new_job_starts_its_record_at_the_step_it_restored(place, caplog):
    attempt(place, "111", 300)
    # spot-training resubmits: a new job id, the same baseOutputDirectory.
    with caplog.at_level(logging.WARNING, logger="spot_runtime"):
        ckpt = place.checkpointer(total_steps=1000, environ={"CLOUD_ML_JOB_ID": "222"})
        ckpt.restore()
    earlier = record(place)["attempts"]
    assert record(place) | {"time": None, "trainSeconds": None, "saveSeconds": None} == {
        "version": 1,
        "attempts": earlier,
        "jobId": "222",
        "step": 300,
        "startStep": 300,
        "totalSteps": 1000,
        "time": None,
        "checkpoint": "step-000000000300",
        "restoredStep": 300,
        "trainSeconds": None,
        "saveSeconds": None,
    }
    assert [(a["jobId"], a["startStep"], a["step"]) for a in earlier] == [("111", 0, 300)]
    assert "written by job 111, not this job (222)" in caplog.text
    ckpt.save(400, {"w.bin": b"400"})
    assert (record(place)["startStep"], record(place)["step"]) == (300, 400)
    # This process's own: the step it restored stays; its saves' time is counted apart from its training.
    assert record(place)["restoredStep"] == 300
    assert record(place)["saveSeconds"] > 0 and record(place)["trainSeconds"] >= 0


def test_an_attempt_that_made_no_progress_shows_step_equal_to_start_step(place):
    attempt(place, "111", 300)
    attempt(place, "222", 50)  # preempted again before its first checkpoint
    assert record(place)["jobId"] == "222" and record(place)["step"] == record(place)["startStep"] == 300


def test_a_record_another_job_left_with_a_larger_start_step_is_not_trusted(place):
    attempt(place, "111", 300)
    forged = record(place) | {"jobId": "999", "startStep": 5000}
    place.write("progress.json", json.dumps(forged).encode())
    attempt(place, "222", 0)
    assert (record(place)["jobId"], record(place)["startStep"]) == ("222", 300)


def test_an_unreadable_record_is_replaced_with_a_warning(place, caplog):
    attempt(place, "111", 200)
    place.write("progress.json", b"\x00 not json")
    with caplog.at_level(logging.WARNING, logger="spot_runtime"):
        attempt(place, "111", 0)
    assert "is not one this runtime writes" in caplog.text
    assert (record(place)["startStep"], record(place)["step"]) == (200, 200)


def test_without_a_job_id_each_run_starts_its_own_record(place):
    attempt(place, "", 200)
    attempt(place, "", 100)
    assert record(place)["jobId"] is None and (record(place)["startStep"], record(place)["step"]) == (200, 300)


def test_save_without_restore_still_writes_a_whole_record(place):
    ckpt = place.checkpointer(environ={"CLOUD_ML_JOB_ID": "5"})
    ckpt.save(100, {"w.bin": b"1"})
    assert (record(place)["jobId"], record(place)["startStep"], record(place)["step"]) == ("5", 0, 100)


def test_the_record_remembers_each_earlier_job_once_in_order_for_status(place):
    attempt(place, "111", 300)
    attempt(place, "111", 50)  # Vertex restarted job 111: still one entry when it is remembered
    attempt(place, "222", 150)  # resubmitted: 300 -> 400 (checkpointed), reclaimed at 450
    attempt(place, "333", 0)  # reclaimed before its first step
    now = record(place)
    assert (now["jobId"], now["startStep"], now["step"]) == ("333", 400, 400)
    assert [(a["jobId"], a["startStep"], a["step"]) for a in now["attempts"]] == [("111", 0, 300), ("222", 300, 400)]
