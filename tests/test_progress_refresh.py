"""The refresh reads what a preempted attempt achieved, and the next `up` acts on it, through the host.

The SDK's dynamic provider host (as the engine runs it) against the Vertex
emulator and fake-gcs-server. Each attempt's "training" is spot_runtime's own
writer (tests/attempt.py), so the record the provider reads is the one the
runtime writes. The same story under the real CLI: tests/engine/test_progress.py.
"""

from __future__ import annotations

import json

from pulumi.runtime.proto import provider_pb2

from tests.attempt import train
from tests.program import one_job_inputs
from tests.provider_host import JOB_TYPE, ProviderHost, deserialize

URN = f"urn:pulumi:dev::spot-training::{JOB_TYPE}::vision-resnet"
BUCKET = "acme-ml-dev-vision-staging"
OUTPUT = f"gs://{BUCKET}/jobs/resnet"
RECORD = "jobs/resnet/checkpoints/progress.json"


def up(host: ProviderHost, id_: str, state: dict, inputs: dict) -> tuple[dict, str, bool]:
    """One `pulumi up` (refresh on): read, diff, update if due: the state after, what the preview said, and
    whether it resubmitted."""
    host.clear_log()
    state = deserialize(host.read(URN, id_, state).properties)
    diff = host.diff(URN, id_, state, inputs)
    preview = host.log
    if diff.changes != provider_pb2.DiffResponse.DIFF_SOME:
        return state, preview, False
    return deserialize(host.update(URN, id_, state, inputs).properties), preview, True


def inputs_for(**overrides) -> dict:
    """What the program registers for vision/resnet (the team's bucket as its baseOutputDirectory)."""
    body = {**one_job_inputs(), **overrides}
    assert body["jobSpec"]["baseOutputDirectory"] == {"outputUriPrefix": OUTPUT}
    return body


def started(emulator, gcs) -> tuple[ProviderHost, dict, str, dict]:
    gcs.bucket(BUCKET)
    host = ProviderHost({"AIPLATFORM_EMULATOR_HOST": emulator.address, "STORAGE_EMULATOR_HOST": gcs.url})
    host.__enter__()
    inputs = deserialize(host.check(URN, {}, inputs_for()).inputs)
    created = host.create(URN, inputs)
    return host, inputs, created.id, deserialize(created.properties)


def test_one_attempt_that_progresses_then_two_that_do_not_stop_the_resubmissions(emulator, gcs):
    host, inputs, id_, state = started(emulator, gcs)
    try:
        # Attempt 1 checkpoints at 100 and 200, gets to 250, and is preempted past its restarts.
        assert train(OUTPUT, state["jobName"], 250) == 250
        emulator.preempt(state["jobName"])
        state, preview, resubmitted = up(host, id_, state, inputs)
        assert resubmitted and state["attempt"] == 2
        assert "will be submitted again as attempt 2 on SPOT in us-central1; its training resumes from the checkpoint at step 200 of 1000" in preview
        [first] = state["history"]
        assert first["progress"]["progressed"] is True and (first["progress"]["startStep"], first["progress"]["step"]) == (0, 200)

        # Attempt 2 resumes at 200 and is reclaimed before its next checkpoint: no progress, but one such
        # attempt is not yet a pattern (stopWithoutProgress: 2 by default).
        assert train(OUTPUT, state["jobName"], 60) == 260
        emulator.preempt(state["jobName"])
        state, preview, resubmitted = up(host, id_, state, inputs)
        assert resubmitted and state["attempt"] == 3, preview
        assert state["history"][1]["progress"]["progressed"] is False

        # Attempt 3 is reclaimed before its training starts: the record is still attempt 2's.
        emulator.preempt(state["jobName"])
        emulator.reset_calls()
        state, preview, resubmitted = up(host, id_, state, inputs)
        assert not resubmitted and emulator.calls["CreateCustomJob"] == 0
        assert state["progress"]["progressed"] is False and state["progress"]["step"] == 200
        assert (
            "ended FAILED (STOCKOUT) and is not submitted again: attempt 3 ended at step 200 of 1000, as attempt 2 did "
            "(2 attempts in a row without progress; resubmission.stopWithoutProgress: 2). Change its spec or `rerun` "
            "to run it again." in preview
        )

        # The record is read once per ended attempt: gone from the bucket, the state still knows.
        gcs.client().bucket(BUCKET).blob(RECORD).delete()
        again, _, resubmitted = up(host, id_, state, inputs)
        assert not resubmitted and again["progress"] == state["progress"]

        # `rerun` runs it again, as the preview says.
        rerun = deserialize(host.check(URN, state, inputs_for(rerun="1")).inputs)
        assert list(host.diff(URN, id_, state, rerun).replaces) == ["rerun"]
    finally:
        host.__exit__(None, None, None)


def test_a_missing_a_foreign_and_a_corrupt_record_leave_progress_unknown_and_the_job_resubmitted(emulator, gcs):
    host, inputs, id_, state = started(emulator, gcs)
    blob = gcs.client().bucket(BUCKET).blob(RECORD)
    try:
        for attempt, (content, says) in enumerate(
            [
                (None, f"no progress record at {OUTPUT}/checkpoints/progress.json"),
                (json.dumps({"version": 1, "jobId": "777", "step": 900, "startStep": 0}), "written by job 777, not by an attempt of this job"),
                ("{half a record", "is not a progress record (not JSON"),
            ],
            start=1,
        ):
            if content is not None:
                blob.upload_from_string(content)
            emulator.preempt(state["jobName"])
            state, preview, resubmitted = up(host, id_, state, inputs)
            assert resubmitted and state["attempt"] == attempt + 1, preview
            remembered = state["history"][-1]["progress"]
            assert remembered.get("progressed") is None and says in remembered["note"], remembered
            assert "Traceback" not in host.log
    finally:
        host.__exit__(None, None, None)
