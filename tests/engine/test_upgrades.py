"""A state an older release wrote (tests/upgrades/), brought in with `pulumi stack import`, then
`up` and `destroy` by HEAD under the real CLI: nothing resubmitted, nothing left."""

from __future__ import annotations

import json

import pytest

from tests.test_upgrades import RECORDED

pytestmark = pytest.mark.engine


def _program(inputs: dict):
    """The recorded job, registered through the code API as HEAD's SpotTrainingJob."""

    def program() -> None:
        from components.spot_job.resource import SpotTrainingJob, SpotTrainingJobArgs

        SpotTrainingJob(
            "vision-resnet",
            SpotTrainingJobArgs(
                job_spec=inputs["jobSpec"], project=inputs["project"], location=inputs["location"],
                display_name=inputs["displayName"], labels=inputs["labels"], rerun=inputs.get("rerun"),
            ),
        )

    return program


@pytest.mark.parametrize("version, name", [(v, n) for v in sorted(RECORDED) for n in sorted(RECORDED[v]["scenarios"])])
def test_a_recorded_state_imported_is_updated_and_destroyed_by_head_without_a_submission(engine_project, tmp_path, version, name):
    project, emulator = engine_project, engine_project.emulator
    recorded = RECORDED[version]["scenarios"][name]
    stack = project.stack(_program(recorded["inputs"]))
    stack.up(color="never")  # HEAD's own state of the stack: the engine's provider and stack resources

    # The job's resource as the older release left it, in place of HEAD's.
    exported = project.export()
    [job] = [r for r in exported["deployment"]["resources"] if r["type"].endswith("SpotTrainingJob")]
    job.update(id=recorded["id"], inputs=recorded["inputs"], outputs=recorded["outputs"])
    (tmp_path / "old.json").write_text(json.dumps(exported))
    emulator.reset()
    for vertex_job in recorded["jobs"]:
        emulator.restore(vertex_job)
    project.cli("stack", "import", "--file", str(tmp_path / "old.json"))

    result = stack.up(color="never")

    assert result.summary.result == "succeeded"
    assert emulator.calls["CreateCustomJob"] == 0  # nothing resubmitted
    [after] = project.job_resources()
    assert after["outputs"]["jobName"] == recorded["outputs"]["jobName"]
    assert after["outputs"]["attempt"] == recorded["outputs"]["attempt"]

    assert stack.destroy(color="never").summary.result == "succeeded"
    assert emulator.jobs() == []  # every attempt's record, deleted (onDelete: delete)
    assert project.job_resources() == []


def test_a_job_v1_left_under_an_earlier_spec_is_cancelled_by_heads_up_of_the_new_spec(engine_project):
    """An `up` under v1 died after Vertex accepted its job (no state points to it); the spec was then
    edited, and HEAD's `up` submits the new spec: the v1 job stops, and nothing else is touched."""
    project, emulator = engine_project, engine_project.emulator
    recorded = RECORDED["v1"]["scenarios"]["running"]
    inputs = recorded["inputs"]
    [v1_job] = recorded["jobs"]
    emulator.restore(v1_job)
    edited = json.loads(json.dumps(inputs))
    edited["jobSpec"]["workerPoolSpecs"][0]["containerSpec"]["args"] = ["--epochs=4"]
    stack = project.stack(_program(edited))
    lines: list[str] = []

    result = stack.up(color="never", on_output=lines.append, on_error=lines.append)

    output = "\n".join(lines)
    assert result.summary.result == "succeeded", output
    assert emulator.calls["CreateCustomJob"] == 1
    [after] = project.job_resources()
    assert after["outputs"]["jobName"] != v1_job["name"]
    assert emulator.job(v1_job["name"]).state.name in ("JOB_STATE_CANCELLING", "JOB_STATE_CANCELLED")
    assert "an earlier submission of this resource that no state points to" in output, output
