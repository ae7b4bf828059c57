"""The `spot-training` verbs that read a deployed stack, against the state the real CLI wrote:
`sweep` runs `pulumi stack export` itself, `status` lists the stack's jobs on Vertex AI."""

from __future__ import annotations

import pytest

from tests.cli_runner import spot_training
from tests.engine.stack import STACK

pytestmark = pytest.mark.engine


def test_status_and_sweep_read_what_up_deployed_and_sweep_finds_a_job_the_stack_forgot(engine_project):
    project, emulator = engine_project, engine_project.emulator
    assert project.stack().up(color="never").summary.result == "succeeded"
    env = dict(project.env)

    status = spot_training("status", STACK, env=env)
    assert status.returncode == 0, status.stderr
    for job in emulator.jobs():
        assert job.name.rsplit("/", 1)[1] in status.stdout

    clean = spot_training("sweep", STACK, env=env)
    assert clean.returncode == 0, clean.stdout + clean.stderr  # 0: nothing orphaned

    # The stack forgets one job (`pulumi state delete`): the job still runs on Vertex AI, an orphan.
    forgotten = next(r for r in project.job_resources() if "eval" in r["urn"])
    project.cli("state", "delete", forgotten["urn"], "--yes")
    found = spot_training("sweep", STACK, env=env)
    assert found.returncode == 1, found.stdout + found.stderr  # 1: orphans found
    assert forgotten["outputs"]["jobName"].rsplit("/", 1)[1] in found.stdout, found.stdout + found.stderr
    kept = next(r for r in project.job_resources() if "resnet" in r["urn"])
    assert kept["outputs"]["jobName"].rsplit("/", 1)[1] not in found.stdout
