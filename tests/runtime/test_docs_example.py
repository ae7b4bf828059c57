"""docs/training.md's "Make a trainer Spot-ready" block, run as written: interrupted by SIGTERM
and resumed, it ends where an uninterrupted run ends."""

import json
import re
import signal
import subprocess
import sys
import textwrap
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

# The trainer's own three functions: a "model" that is the sum of the steps it trained on, slowed
# down enough for a signal to land mid-run.
HARNESS = textwrap.dedent(
    """
    import json, sys, time
    model = {"sum": 0, "steps": 0}

    def load_state(data):
        model.update(json.loads(data))

    def train_one_step(step):
        time.sleep(0.0005)
        model["sum"] += step
        model["steps"] += 1
        print(f"step {step}", flush=True)

    def state_bytes():
        return json.dumps(model).encode()
    """
)


def example():
    page = (ROOT / "docs" / "training.md").read_text()
    section = page.split("## Make a trainer Spot-ready", 1)[1].split("\n## ", 1)[0]
    [block] = re.findall(r"```python\n(.*?)```", section, re.S)
    return block


def run(tmp_path, *, stop_after=None):
    tmp_path.mkdir(parents=True, exist_ok=True)
    script = tmp_path / "trainer.py"
    script.write_text(HARNESS + example() + "\nprint('final ' + json.dumps(model), flush=True)\n")
    env = {"PATH": "/usr/bin:/bin", "AIP_CHECKPOINT_DIR": str(tmp_path / "ckpt"), "CLOUD_ML_JOB_ID": "77"}
    child = subprocess.Popen([sys.executable, str(script)], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
    final = None
    for line in child.stdout:
        if stop_after is not None and line == f"step {stop_after}\n":
            child.send_signal(signal.SIGTERM)
        if line.startswith("final "):
            final = json.loads(line[6:])
    assert child.wait(timeout=60) == 0, child.stderr.read()
    return final


def test_the_example_resumes_after_sigterm_and_ends_as_an_uninterrupted_run(tmp_path):
    whole = run(tmp_path / "whole")
    assert whole == {"sum": sum(range(1000)), "steps": 1000}

    first = run(tmp_path / "cut", stop_after=150)
    assert 150 < first["steps"] < 1000  # it stopped early, after a checkpoint at its next step
    progress = json.loads((tmp_path / "cut" / "ckpt" / "progress.json").read_text())
    assert progress["step"] == first["steps"] and progress["jobId"] == "77"

    second = run(tmp_path / "cut", stop_after=620)
    third = run(tmp_path / "cut")
    assert second["steps"] < 1000 and third == whole
