"""Under the real CLI: one attempt that progresses, two that do not, and the resubmissions stop.

The engine built by tools/engine/build.sh, the Vertex emulator, fake-gcs-server for
the team's bucket, and spot_runtime writing each attempt's progress record
(tests/attempt.py). The preview is `pulumi preview --refresh` as a reviewer or the
resubmission workflow runs it; what it says is what the `up` after it does.
"""

from __future__ import annotations

import pytest

from tests.attempt import train

pytestmark = pytest.mark.engine


def _resnet(project) -> dict:
    return next(r for r in project.job_resources() if r["urn"].endswith("::vision-resnet"))["outputs"]


def _preview(stack) -> str:
    lines: list[str] = []
    stack.preview(refresh=True, color="never", on_output=lines.append)
    return " ".join(" ".join(lines).split())  # the engine's line breaks are not the provider's


def test_the_resubmissions_stop_after_two_attempts_without_progress_and_the_preview_says_so(engine_project, gcs):
    project, emulator = engine_project, engine_project.emulator
    project.env["STORAGE_EMULATOR_HOST"] = gcs.url  # the dynamic provider host the CLI starts reads the bucket here
    stack = project.stack()
    assert stack.up(color="never").summary.result == "succeeded"
    first = _resnet(project)
    output = first["jobSpec"]["baseOutputDirectory"]["outputUriPrefix"]
    # The stand-in gcp plugin made the team's bucket in Cloud Storage's stand-in, as `up` makes it in Google's.
    assert gcs.client().bucket(output.removeprefix("gs://").split("/")[0]).exists()

    assert train(output, first["jobName"], 250) == 250  # checkpoints at 100 and 200
    emulator.preempt(first["jobName"])
    preview = _preview(stack)
    assert "will be submitted again as attempt 2 on SPOT in us-central1; its training resumes from the checkpoint at step 200 of 1000" in preview
    assert stack.up(color="never").summary.result == "succeeded"
    second = _resnet(project)
    assert second["attempt"] == 2 and second["history"][0]["progress"]["progressed"] is True

    assert train(output, second["jobName"], 60) == 260  # resumes at 200, reclaimed before 300
    emulator.preempt(second["jobName"])
    assert stack.up(color="never").summary.result == "succeeded"
    third = _resnet(project)
    assert third["attempt"] == 3 and third["history"][1]["progress"]["progressed"] is False

    emulator.preempt(third["jobName"])  # reclaimed before its training started
    emulator.reset_calls()
    preview = _preview(stack)
    assert (
        "ended FAILED (STOCKOUT) and is not submitted again: attempt 3 ended at step 200 of 1000, as attempt 2 did "
        "(2 attempts in a row without progress; resubmission.stopWithoutProgress: 2)" in preview
    ), preview
    assert stack.up(color="never").summary.result == "succeeded"
    assert emulator.calls["CreateCustomJob"] == 0
    held = _resnet(project)
    assert held["attempt"] == 3 and held["state"] == "JOB_STATE_FAILED" and held["progress"]["progressed"] is False
