"""A refresh under the real Pulumi CLI: the `up` after the stack's first reads its jobs
(`options.refresh: always`) from one ListCustomJobs a hundred jobs, not a GetCustomJob each
(components/spot_job/client/read_coalescer.py), and a job deleted out of band is still `gone`.

The program registers N jobs through the code API (as bench/engine.py does), so the test
controls N; the CLI sends the refresh's reads as it sends them to any provider.
"""

from __future__ import annotations

import math

import pytest

from tests.emulator import JobServiceEmulator
from tests.engine.project import PULUMI, EngineProject

pytestmark = pytest.mark.engine

N = 150
PROJECT, REGION = "acme-ml-refresh", "us-central1"


def program(n: int):
    def run() -> None:
        from components.spot_job.resource import SpotTrainingJob, SpotTrainingJobArgs

        for i in range(n):
            SpotTrainingJob(
                f"job-{i}",
                SpotTrainingJobArgs(
                    project=PROJECT, location=REGION, display_name=f"job-{i}",
                    job_spec={
                        "workerPoolSpecs": [{
                            "machineSpec": {"machineType": "n1-standard-4"},
                            "replicaCount": 1,
                            "containerSpec": {"imageUri": "us-docker.pkg.dev/acme/t/trainer:1", "args": [f"--seed={i}"]},
                        }],
                        "scheduling": {"strategy": "SPOT"},
                    },
                ),
            )

    return run


@pytest.fixture
def project(tmp_path, monkeypatch):
    if not PULUMI.exists():
        pytest.fail(f"{PULUMI} is missing: run tools/engine/build.sh (.ci/run does) before the engine tests")
    with JobServiceEmulator() as emulator:
        found = EngineProject(tmp_path, emulator.address, "refresh", {"gcp:project": PROJECT, "gcp:region": REGION})
        found.env["SPOT_TRAINING_EMULATOR_TIME_SCALE"] = "1000"  # the first up's 150 submissions, paced on the emulator's clock
        for key, value in found.env.items():
            monkeypatch.setenv(key, value)
        found.emulator = emulator
        yield found


def test_an_up_refreshes_its_jobs_from_a_list_a_hundred_jobs_and_a_deleted_job_is_gone(project):
    emulator, stack = project.emulator, project.stack(program(N))
    stack.up(color="never")
    jobs = sorted(job.name for job in emulator.jobs())
    assert len(jobs) == N
    deleted = jobs[17]
    emulator.set_state(deleted, "JOB_STATE_SUCCEEDED")
    emulator.remove(deleted)  # its record deleted in the console, say
    emulator.reset_calls()

    result = stack.up(color="never")

    assert result.summary.result == "succeeded"
    calls = {k: v for k, v in emulator.calls.items() if v}
    assert set(calls) <= {"ListCustomJobs", "GetCustomJob"}, calls  # reads only
    assert sum(calls.values()) <= math.ceil(N / 100) + 5, calls
    states = {r["id"]: r["outputs"] for r in project.job_resources()}
    assert len(states) == N  # none dropped
    assert states[deleted]["gone"] is True
    assert [name for name, outs in states.items() if outs.get("gone")] == [deleted]
