"""The whole Spot story through what a user types, under the real engine (the CLI tools/engine/build.sh
builds): `sandbox up` -> the tabular job trains; `sandbox preempt --for-good` mid-training -> FAILED
with STOCKOUT; `sandbox up` -> attempt 2 resumes from the checkpointed step -> SUCCEEDED, with the
model an uninterrupted run makes; `report --sandbox` has both attempts; `sandbox down` leaves no
process and no job. Nothing here reaches Google: the JobService is the sandbox's, Cloud Storage is
fake-gcs-server, the gcp and docker-build plugins are the sandbox's stand-ins."""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
from pathlib import Path

import pytest
from google.auth.credentials import AnonymousCredentials
from google.cloud import storage

from sandbox.workspace import Workspace
from tests.cli_runner import COMMAND, ROOT
from tests.sandbox.walk import environment, job_of, jobs, left_running, spot_training, stack_like_dev, wait

pytestmark = pytest.mark.engine

STEPS = 160_000  # ~20 s on one core of this machine: long enough to preempt half-way


def _log(home: Path, stack: str, job: dict, attempt: int = 1) -> str:
    path = Workspace(stack, home / stack).replica_log(job["name"].rsplit("/", 1)[1], attempt, 0, 0)
    return path.read_text() if path.exists() else ""


def _last_checkpoint(log: str) -> int:
    steps = [int(s) for s in re.findall(r"step (\d+)/\d+ checkpointed", log)]
    return steps[-1] if steps else 0


def _uninterrupted_model(tmp: Path, args: list[str]) -> bytes:
    """The same module, run directly with local directories for Vertex's: what no preemption makes."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("AIP_")}
    env |= {"AIP_MODEL_DIR": str(tmp / "model"), "AIP_CHECKPOINT_DIR": str(tmp / "checkpoints")}
    subprocess.run([sys.executable, "-m", "tabular_trainer.task", *args], cwd=tmp, env=env, check=True, capture_output=True)
    return (tmp / "model" / "model.npz").read_bytes()


def test_up_train_preempt_for_good_up_resume_report_down(tmp_path):
    stacks, home, stack = tmp_path / "stacks", tmp_path / "sandbox", "walk"
    stack_like_dev(stacks, stack, STEPS)
    env = environment(stacks, home)
    try:
        _walk(home, stack, env, tmp_path)
    finally:
        spot_training(env, "sandbox", "down", stack)  # a failure above must not leave the services running


def _walk(home: Path, stack: str, env: dict[str, str], tmp_path: Path) -> None:
    up = spot_training(env, "sandbox", "up", stack)
    assert up.returncode == 0, up.stdout + up.stderr
    assert "engine: pulumi " in up.stdout and "Outputs:" in up.stdout
    assert re.search(r"tabular/baseline: projects/acme-ml-dev/locations/us-central1/customJobs/\d+ \w+, runs its code here", up.stdout), up.stdout
    assert re.search(r"vision/eval: .* simulated", up.stdout), up.stdout
    [first] = job_of(home, stack, "tabular-baseline")
    wait(lambda: _last_checkpoint(_log(home, stack, first)) >= 40_000, "the first attempt to checkpoint step 40000")

    preempt = spot_training(env, "sandbox", "preempt", stack, "tabular/baseline", "--for-good")
    assert preempt.returncode == 0, preempt.stderr
    assert "then FAILED with STOCKOUT" in preempt.stdout
    wait(lambda: job_of(home, stack, "tabular-baseline")[0]["state"] == "JOB_STATE_FAILED", "the STOCKOUT")
    [ended] = job_of(home, stack, "tabular-baseline")
    assert "STOCKOUT" in ended["error"]["message"]
    refused = spot_training(env, "sandbox", "preempt", stack, "tabular/baseline")
    assert refused.returncode == 1
    assert refused.stderr.startswith(f"error: tabular/baseline ({first['name']}) is FAILED, not RUNNING"), refused.stderr
    checkpointed = _last_checkpoint(_log(home, stack, first))
    assert 40_000 <= checkpointed < STEPS

    again = spot_training(env, "sandbox", "up", stack)
    assert again.returncode == 0, again.stdout + again.stderr
    attempts = job_of(home, stack, "tabular-baseline")
    assert len(attempts) == 2, [j["name"] for j in attempts]  # one resubmission, by the policy
    second = next(j for j in attempts if j["name"] != first["name"])
    wait(lambda: job_of(home, stack, "tabular-baseline") and next(
        j for j in job_of(home, stack, "tabular-baseline") if j["name"] == second["name"])["state"] == "JOB_STATE_SUCCEEDED",
        "attempt 2 to succeed")
    resumed = _log(home, stack, second)
    assert f"resumed from step {checkpointed}/{STEPS}" in resumed, resumed

    storage_url = (home / stack / "services.json").read_text()
    url = re.search(r'"url": "([^"]+)"', storage_url)[1]
    gcs = storage.Client(project="sandbox", credentials=AnonymousCredentials(), client_options={"api_endpoint": url})
    [model] = [b for b in gcs.list_blobs("acme-ml-dev-tabular-staging") if b.name.endswith("/model/model.npz")]
    args = [f"--steps={STEPS}", "--checkpoint-interval=4000"]
    assert model.download_as_bytes() == _uninterrupted_model(tmp_path, args)

    report = spot_training(env, "report", stack, "--sandbox")
    assert report.returncode == 0, report.stderr
    rows = [line for line in report.stdout.splitlines() if line.startswith("tabular/baseline")]
    assert [row.split()[1] for row in rows] == ["1", "2"], report.stdout
    assert "FAILED" in rows[0] and "yes" in rows[0] and "SUCCEEDED" in rows[1]

    logs = spot_training(env, "logs", stack, "tabular/baseline", "--sandbox", "--follow")  # both ended: it returns
    assert logs.returncode == 0, logs.stderr
    assert "submission 1 of 2" in logs.stdout and "submission 2 of 2" in logs.stdout, logs.stdout
    assert logs.stdout.index("no checkpoint: starting at step 0") < logs.stdout.index(f"resumed from step {checkpointed}/{STEPS}")

    sweep = spot_training(env, "sweep", stack, "--sandbox")
    # The first attempt's job, FAILED, is still the resource's (its `history`): nothing is outside the state.
    assert sweep.returncode == 0, sweep.stdout + sweep.stderr
    assert f"No job of stack {stack} (spot-training) outside its state" in sweep.stdout, sweep.stdout

    down = spot_training(env, "sandbox", "down", stack)
    assert down.returncode == 0, down.stdout + down.stderr
    assert jobs(home, stack) == []
    wait(lambda: not left_running(home), "nothing left running", timeout=15)


def test_a_killed_up_is_recovered_by_the_next_with_no_second_job_and_no_orphan(tmp_path):
    stacks, home, stack = tmp_path / "stacks", tmp_path / "sandbox", "killed"
    stack_like_dev(stacks, stack, STEPS)
    env = environment(stacks, home)
    up = subprocess.Popen([str(COMMAND), "sandbox", "up", stack], cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    assert up.stdout is not None
    for line in up.stdout:
        if "SpotTrainingJob" in line and "creating" in line:
            break  # the engine is submitting the jobs
    up.send_signal(signal.SIGKILL)
    up.wait()
    before = {j["displayName"] for j in jobs(home, stack)}

    again = spot_training(env, "sandbox", "up", stack)
    assert again.returncode == 0, again.stdout + again.stderr
    submitted = [j["displayName"] for j in jobs(home, stack)]
    assert sorted(submitted) == sorted(set(submitted)) == ["tabular-baseline", "vision-eval", "vision-resnet-smoke"], (before, submitted)
    sweep = spot_training(env, "sweep", stack, "--sandbox")  # the state points to every job the killed `up` made
    assert sweep.returncode == 0 and f"No job of stack {stack} (spot-training) outside its state" in sweep.stdout, sweep.stdout + sweep.stderr

    down = spot_training(env, "sandbox", "down", stack)
    assert down.returncode == 0, down.stdout + down.stderr
    wait(lambda: not left_running(home), "nothing left running", timeout=15)


def test_prod_runs_as_it_is_and_its_down_stops_a_training_job_before_emptying_its_kept_buckets(tmp_path):
    # prod's buckets are protected and not forceDestroy; its trainer writes checkpoints into one until it
    # is stopped. A down that emptied the buckets before the jobs were gone failed on a bucket not empty.
    stacks, home, stack = tmp_path / "stacks", tmp_path / "sandbox", "prod"
    stacks.mkdir()
    (stacks / "Pulumi.prod.yaml").write_text((ROOT / "stacks" / "Pulumi.prod.yaml").read_text())
    env = environment(stacks, home)
    try:
        up = spot_training(env, "sandbox", "up", stack)
        assert up.returncode == 0, up.stdout + up.stderr
        assert re.search(r"tabular/baseline: projects/acme-ml-prod/locations/europe-west4/customJobs/\d+ \w+, runs its code here", up.stdout), up.stdout
        [job] = job_of(home, stack, "tabular-baseline")
        wait(lambda: _last_checkpoint(_log(home, stack, job)) > 0, "the prod trainer to checkpoint into its bucket")
    finally:
        down = spot_training(env, "sandbox", "down", stack)
    assert down.returncode == 0, down.stdout + down.stderr
    # vision/resnet is `onDelete: cancel`: cancelled, its record kept; tabular/baseline's is deleted.
    assert [(j["displayName"], j["state"]) for j in jobs(home, stack)] == [("vision-resnet-prod", "JOB_STATE_CANCELLED")]
    wait(lambda: not left_running(home), "nothing left running", timeout=15)
