"""The sandbox walk's helpers: the CLI in a subprocess, a stack file of its own, what the sandbox left running."""

from __future__ import annotations

import json
import os
import subprocess
import time
from pathlib import Path

import yaml

from tests.cli_runner import COMMAND, ROOT


def stack_like_dev(stacks: Path, name: str, steps: int) -> Path:
    """stacks/Pulumi.dev.yaml as it is, but for the tabular baseline's length (the walk preempts it
    mid-training, then waits for it twice: dev's own length is for a person typing)."""
    config = yaml.safe_load((ROOT / "stacks" / "Pulumi.dev.yaml").read_text())
    baseline = config["config"]["spot-training:teams"]["tabular"]["jobs"]["baseline"]
    baseline["workerPoolSpecs"][0]["pythonPackageSpec"]["args"] = [f"--steps={steps}", "--checkpoint-interval=4000"]
    stacks.mkdir(parents=True, exist_ok=True)
    path = stacks / f"Pulumi.{name}.yaml"
    path.write_text(yaml.safe_dump(config, sort_keys=False))
    return path


def environment(stacks: Path, home: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("GOOGLE_", "CLOUDSDK_", "PULUMI_", "AIPLATFORM_", "STORAGE_EMULATOR"))}
    return env | {"SPOT_TRAINING_STACKS_DIR": str(stacks), "SPOT_TRAINING_SANDBOX_HOME": str(home)}


def spot_training(env: dict[str, str], *args: str, timeout: float = 600) -> subprocess.CompletedProcess[str]:
    return subprocess.run([str(COMMAND), *args], cwd=ROOT, env=env, capture_output=True, text=True, timeout=timeout)


def jobs(home: Path, stack: str) -> list[dict]:
    journal = home / stack / "jobs.json"
    return json.loads(journal.read_text())["jobs"] if journal.exists() else []


def job_of(home: Path, stack: str, display_name: str) -> list[dict]:
    return [j for j in jobs(home, stack) if j.get("displayName") == display_name]


def wait(condition, what: str, timeout: float = 300):
    deadline = time.monotonic() + timeout
    while True:
        found = condition()
        if found:
            return found
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {what}")
        time.sleep(0.25)


def left_running(home: Path) -> list[str]:
    """Every process whose command line or environment names the sandbox's home: what it left behind."""
    needle = str(home).encode()
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit() or int(entry.name) == os.getpid():
            continue
        try:
            command = (entry / "cmdline").read_bytes()
            environ = (entry / "environ").read_bytes()
            state = (entry / "stat").read_text().rsplit(")", 1)[1].split()[0]
        except OSError:
            continue
        if state != "Z" and (needle in command or needle in environ):
            found.append(command.replace(b"\0", b" ").decode(errors="replace"))
    return found
