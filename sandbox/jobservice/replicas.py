"""Replica: one process of a job's worker pool, with the environment Vertex gives a training container.

Vertex sets these for every replica (Google's pages, read 2026-12-06):
- AIP_MODEL_DIR, AIP_CHECKPOINT_DIR, AIP_TENSORBOARD_LOG_DIR: `model/`, `checkpoints/`
  and `logs/` under jobSpec.baseOutputDirectory, when it is set
  (https://cloud.google.com/vertex-ai/docs/training/code-requirements#environment-variables);
- CLOUD_ML_JOB_ID: the job's id (same page);
- CLUSTER_SPEC: the cluster, this replica's pool (`workerpool0`..`workerpool3`) and index,
  `environment: cloud` and the job's spec; TF_CONFIG: the same cluster in TensorFlow's names
  (workerpool0 `chief`, 1 `worker`, 2 `ps`, 3 `evaluator`, which is not in the cluster)
  (https://cloud.google.com/vertex-ai/docs/training/distributed-training#cluster-variables);
- the pool's own `env`.
And, for the sandbox only: STORAGE_EMULATOR_HOST, so the trainer's Cloud Storage client reaches
the sandbox's bucket, not Google; CLOUDSDK_CONFIG, an empty directory, so no credential is read.
Vertex also mounts buckets under /gcs/ with Cloud Storage FUSE: the sandbox does not (a trainer
then uses the client, as spot_runtime does when /gcs/BUCKET is absent).

Each replica runs in a process group of its own, so a signal reaches everything it started,
and writes stdout and stderr to one log file per attempt and replica.
"""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

TF_ROLES = ("chief", "worker", "ps", "evaluator")
# What marks a process as a sandbox replica in /proc/<pid>/environ: how a later sandbox finds one a killed
# one left running, and never mistakes a process that reused its pid.
MARK_ENV = "SPOT_TRAINING_SANDBOX_REPLICA"


@dataclass(frozen=True)
class Place:
    pool: int
    index: int

    @property
    def name(self) -> str:
        return f"workerpool{self.pool}-{self.index}"

    @classmethod
    def parse(cls, text: str) -> Place:
        """POOL:INDEX, e.g. 0:0 (the chief), 1:2 (the third replica of the second pool)."""
        pool, sep, index = text.partition(":")
        if not sep or not pool.isdigit() or not index.isdigit() or int(pool) > 3:
            raise ValueError(f"--replica {text!r} is not POOL:INDEX with POOL 0-3, e.g. 0:0 for the chief")
        return cls(int(pool), int(index))


def places(job_spec: Mapping[str, Any]) -> list[Place]:
    """Every replica of the spec (REST-shaped), pool by pool; an empty pool (a reduction-server slot) has none."""
    found = []
    for pool, spec in enumerate(job_spec.get("workerPoolSpecs") or []):
        if spec and spec.get("machineSpec"):
            found += [Place(pool, index) for index in range(int(spec.get("replicaCount") or 1))]
    return found


def cluster_environment(job_id: str, job_spec: Mapping[str, Any], place: Place, hosts: Mapping[Place, str]) -> dict[str, str]:
    """The variables Vertex sets for replica `place` of the job (see the module's docstring)."""
    env: dict[str, str] = {"CLOUD_ML_JOB_ID": job_id}
    output = ((job_spec.get("baseOutputDirectory") or {}).get("outputUriPrefix") or "").rstrip("/")
    if output:
        env |= {"AIP_MODEL_DIR": f"{output}/model/", "AIP_CHECKPOINT_DIR": f"{output}/checkpoints/", "AIP_TENSORBOARD_LOG_DIR": f"{output}/logs/"}
    cluster: dict[str, list[str]] = {}
    for p in sorted(hosts, key=lambda p: (p.pool, p.index)):
        cluster.setdefault(f"workerpool{p.pool}", []).append(hosts[p])
    env["CLUSTER_SPEC"] = json.dumps({
        "cluster": cluster, "environment": "cloud", "task": {"type": f"workerpool{place.pool}", "index": place.index, "trial": ""},
        "job": dict(job_spec),
    })
    tf_cluster = {TF_ROLES[int(pool[-1])]: addresses for pool, addresses in cluster.items() if pool != "workerpool3"}
    env["TF_CONFIG"] = json.dumps({
        "cluster": tf_cluster, "environment": "cloud", "task": {"type": TF_ROLES[place.pool], "index": place.index, "trial": ""},
        "job": dict(job_spec),
    })
    return env


def free_hosts(job_places: list[Place]) -> dict[Place, str]:
    """A loopback address with a free port for every replica: a distributed trainer's peers are real."""
    hosts = {}
    for place in job_places:
        with socket.socket() as sock:
            sock.bind(("127.0.0.1", 0))
            hosts[place] = f"127.0.0.1:{sock.getsockname()[1]}"
    return hosts


@dataclass
class Replica:
    place: Place
    process: subprocess.Popen[bytes]
    log: Path
    preempted: bool = False  # being reclaimed: its exit is the preemption's, not the job's
    exit_code: int | None = field(default=None)

    @classmethod
    def start(cls, place: Place, command: list[str], env: Mapping[str, str], log: Path, cwd: Path, mark: str) -> Replica:
        log.parent.mkdir(parents=True, exist_ok=True)
        with log.open("ab") as out:
            process = subprocess.Popen(
                command, cwd=cwd, env={**env, MARK_ENV: mark}, stdin=subprocess.DEVNULL, stdout=out, stderr=subprocess.STDOUT,
                start_new_session=True,  # its own process group: a signal reaches what it started too
            )
        log.with_suffix(".pid").write_text(str(process.pid))
        return cls(place, process, log)

    def poll(self) -> int | None:
        if self.exit_code is None:
            self.exit_code = self.process.poll()
        return self.exit_code

    def signal(self, sig: signal.Signals) -> None:
        if self.poll() is None:
            try:
                os.killpg(self.process.pid, sig)
            except ProcessLookupError:
                pass

    def last_lines(self, count: int = 5) -> list[str]:
        try:
            return self.log.read_text(errors="replace").splitlines()[-count:]
        except OSError:
            return []


def left_running(runs: Path, mark: str) -> list[int]:
    """The replicas a sandbox that died left running: the pids its logs' .pid files name that still
    carry its mark (the root of the sandbox) in their environment."""
    needle = f"{MARK_ENV}={mark}".encode()
    found = []
    for pid_file in runs.glob("*/attempt-*/*.pid"):
        try:
            pid = int(pid_file.read_text())
            if needle in Path(f"/proc/{pid}/environ").read_bytes().split(b"\0"):
                found.append(pid)
        except (OSError, ValueError):
            continue
    return found
