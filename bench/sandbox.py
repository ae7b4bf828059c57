"""The sandbox's own cost: a job's run time in it against the same module run directly; its first `up` of dev.

1. Overhead on a job's run time. The sandbox's services (services.py: fake-gcs-server
   and the JobService daemon, with its runner) are started in a scratch home; the
   example trainer's two packages are built (`uv build --wheel`) and put in its bucket.
   Then, interleaved, ROUNDS times each:
   - sandbox: a CustomJob with a pythonPackageSpec of those packages, submitted through
     the GAPIC client, timed from CreateCustomJob to SUCCEEDED (as a user waits for it:
     the simulated queue of QUEUED_SECONDS, the runner's ticks, the replica's start);
   - direct (the baseline): the same module with the same python (the sandbox's cached
     environment) and the same environment a replica gets (runner.py, replicas.py),
     in a subprocess, timed from its start to its exit.
   Each run writes a baseOutputDirectory of its own, so none resumes another's checkpoints.
   A warm-up job first makes the environment, as a first `up` does once. The goal
   (issue 37): at most 10% for a 60 s training run (the full size).
2. The first `spot-training sandbox up dev` from a warm cache (fake-gcs-server built, the
   packages' environment made): the CLI in a subprocess, a fresh sandbox home, timed to
   its exit, beside `spot-training render dev` (the same program under Pulumi's mocks,
   no engine) as the baseline; then `sandbox down dev`. Skipped, and said, when no engine
   is found (tools/engine/build.sh). The goal: at most 60 s on this 2-core machine.

Nothing reaches Google: the JobService is the sandbox's, Cloud Storage is fake-gcs-server.

Run: uv run python -m bench.sandbox [--quick]
"""

from __future__ import annotations

import argparse
import json
import os
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from google.cloud import aiplatform_v1

from bench.stats import table
from sandbox import engine, services
from sandbox.endpoints import Endpoints
from sandbox.gcp.storage import Storage
from sandbox.jobservice import environments, runner
from sandbox.jobservice.replicas import Place, cluster_environment
from sandbox.workspace import ROOT, Workspace

BUCKET = "bench-sandbox"
PARENT = "projects/bench/locations/us-central1"
STEPS, QUICK_STEPS = 500_000, 20_000  # 60-90 s and ~3 s of training on one core here, as loaded
ROUNDS, QUICK_ROUNDS = 2, 1
GOAL_OVERHEAD = 10.0  # percent
GOAL_UP = 60.0  # seconds


def _wheels(into: Path) -> list[Path]:
    for package in ("spot-runtime", "tabular-trainer"):
        subprocess.run(["uv", "build", "--wheel", "--quiet", "--out-dir", str(into), str(ROOT / "training" / package)], check=True)
    runtime = next(into.glob("spot_training_runtime-*.whl"))
    return [runtime, *[w for w in into.glob("*.whl") if w != runtime]]  # the runtime first (docs/training.md)


def _spec(uris: list[str], steps: int, output: str) -> dict:
    return {
        "workerPoolSpecs": [{
            "machineSpec": {"machineType": "n1-standard-4"}, "replicaCount": "1",
            "pythonPackageSpec": {
                "executorImageUri": "us-docker.pkg.dev/vertex-ai/training/sklearn-cpu.1-0:latest",
                "packageUris": uris, "pythonModule": "tabular_trainer.task", "args": [f"--steps={steps}"],
            },
        }],
        "scheduling": {"strategy": "SPOT"},
        "baseOutputDirectory": {"outputUriPrefix": output},
    }


def _in_sandbox(client: aiplatform_v1.JobServiceClient, spec: dict, name: str) -> float:
    job = aiplatform_v1.CustomJob.from_json(json.dumps({"displayName": name, "jobSpec": spec}))
    began = time.monotonic()
    created = client.create_custom_job(parent=PARENT, custom_job=job).name
    while True:
        state = client.get_custom_job(name=created).state
        if state == aiplatform_v1.JobState.JOB_STATE_SUCCEEDED:
            return time.monotonic() - began
        if state in (aiplatform_v1.JobState.JOB_STATE_FAILED, aiplatform_v1.JobState.JOB_STATE_CANCELLED):
            raise SystemExit(f"the sandbox's job {created} ended {state.name}: {client.get_custom_job(name=created).error.message}")
        time.sleep(0.05)


def _direct(python: Path, spec: dict, workspace: Workspace, endpoints: Endpoints, cwd: Path) -> float:
    """The module as a replica runs it, with the environment the runner gives it, without the sandbox."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        hosts = {Place(0, 0): f"127.0.0.1:{sock.getsockname()[1]}"}
    base = {k: v for k, v in os.environ.items() if k in runner.INHERITED or k.startswith(runner.INHERITED_PREFIXES)}
    env = base | {"STORAGE_EMULATOR_HOST": endpoints.storage, "CLOUDSDK_CONFIG": str(workspace.gcloud_dir)}
    env |= cluster_environment("1", spec, Place(0, 0), hosts)
    package = spec["workerPoolSpecs"][0]["pythonPackageSpec"]
    began = time.monotonic()
    subprocess.run([str(python), "-m", package["pythonModule"], *package["args"]], cwd=cwd, env=env, check=True, capture_output=True)
    return time.monotonic() - began


def overhead(steps: int, rounds: int, scratch: Path) -> None:
    workspace = Workspace("bench", scratch / "home" / "bench")
    running = services.ensure(workspace)
    try:
        storage = Storage(running.endpoints.storage)
        storage.make_bucket(BUCKET)
        uris = []
        for wheel in _wheels(scratch / "wheels"):
            storage.put_object(BUCKET, f"packages/{wheel.name}", wheel.read_bytes())
            uris.append(f"gs://{BUCKET}/packages/{wheel.name}")
        os.environ["STORAGE_EMULATOR_HOST"] = running.endpoints.storage
        python = environments.environment_for(environments.download(uris))  # the environment the runner caches
        channel_env = {"AIPLATFORM_EMULATOR_HOST": running.endpoints.jobservice}
        os.environ.update(channel_env)
        from components.spot_job.client.job_service import job_service_client

        client = job_service_client("us-central1")
        _in_sandbox(client, _spec(uris, 1000, f"gs://{BUCKET}/warm-up/"), "warm-up")
        sandboxed, direct = [], []
        for round_ in range(rounds):
            pair = [
                ("sandbox", lambda: sandboxed.append(_in_sandbox(client, _spec(uris, steps, f"gs://{BUCKET}/s{round_}/"), f"bench-{round_}"))),
                ("direct", lambda: direct.append(_direct(python, _spec(uris, steps, f"gs://{BUCKET}/d{round_}/"), workspace, running.endpoints, scratch))),
            ]
            for _, run in pair if round_ % 2 == 0 else reversed(pair):
                run()
        with_, without = statistics.median(sandboxed), statistics.median(direct)
        share = 100 * (with_ - without) / without
        print(f"1. A job's run time, the example trainer, {steps} steps, {rounds} interleaved round(s) each (medians):")
        print(table(["run", "seconds", "runs"], [
            ["direct (baseline): the module, the same python and environment", f"{without:.2f}", " ".join(f"{d:.2f}" for d in direct)],
            ["sandbox: CreateCustomJob to SUCCEEDED", f"{with_:.2f}", " ".join(f"{s:.2f}" for s in sandboxed)],
        ]))
        print(f"overhead: {with_ - without:+.2f} s = {share:+.1f}% (of which the simulated queue: {runner.QUEUED_SECONDS:g} s); "
              f"goal: at most {GOAL_OVERHEAD:g}% for a 60 s run")
    finally:
        services.stop(workspace)


def first_up(scratch: Path) -> None:
    print("\n2. The first `spot-training sandbox up dev` from a warm cache (a fresh sandbox home):")
    try:
        found = engine.find()
    except engine.EngineMissing as missing:
        print(f"skipped: {missing}")
        return
    env = {k: v for k, v in os.environ.items() if not k.startswith(("GOOGLE_", "CLOUDSDK_", "PULUMI_", "AIPLATFORM_", "STORAGE_EMULATOR"))}
    env["SPOT_TRAINING_SANDBOX_HOME"] = str(scratch / "up-home")
    command = str(Path(sys.executable).parent / "spot-training")

    def timed(*args: str) -> float:
        began = time.monotonic()
        done = subprocess.run([command, *args], cwd=ROOT, env=env, capture_output=True, text=True)
        if done.returncode != 0:
            raise SystemExit(f"spot-training {' '.join(args)} failed ({done.returncode}):\n{done.stdout[-2000:]}{done.stderr[-2000:]}")
        return time.monotonic() - began

    render = timed("render", "dev", "--summary")
    try:
        up = timed("sandbox", "up", "dev")
    finally:
        subprocess.run([command, "sandbox", "down", "dev"], cwd=ROOT, env=env, capture_output=True, text=True)
    print(table(["command", "seconds"], [
        ["spot-training render dev --summary (baseline: the program under mocks)", f"{render:.1f}"],
        [f"spot-training sandbox up dev (pulumi {found.version}, {'yours' if found.own else 'built here'})", f"{up:.1f}"],
    ]))
    print(f"goal: at most {GOAL_UP:g} s")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="a short run, to check the benchmark still works")
    quick = parser.parse_args().quick
    with tempfile.TemporaryDirectory(prefix="bench-sandbox-") as scratch:
        overhead(QUICK_STEPS if quick else STEPS, QUICK_ROUNDS if quick else ROUNDS, Path(scratch))
        first_up(Path(scratch))


if __name__ == "__main__":
    main()
