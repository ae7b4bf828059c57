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
