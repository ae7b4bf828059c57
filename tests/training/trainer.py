"""The example trainer as a real subprocess (`python -m tabular_trainer.task`), read line by line.

Its stdout is a pipe shrunk to one page (4 KiB): a trainer that runs ahead of
the test blocks on its next log line, so a signal sent after reading "step k"
lands within about 150 steps of k however loaded the machine is (each step's
line is ~26 bytes with --log-every 1). The signal is still asynchronous: where
exactly it lands is the trainer's business, and what it printed says where.
"""

from __future__ import annotations

import fcntl
import os
import re
import signal
import subprocess
import sys
import threading
from collections.abc import Mapping, Sequence

from tests.program import ROOT

# The tests' run: small enough to train in well under a second; long enough that four
# interruptions, each landing within ~150 steps of where the test asked, still leave steps to train.
STEPS = 1400
INTERVAL = 100
# A smaller model than the default (64 hidden units, batches of 32: 0.2 ms a step instead of 0.5).
ARGS = ["--steps", str(STEPS), "--checkpoint-interval", str(INTERVAL), "--hidden", "64", "--batch-size", "32"]
PAGE = 4096
STEP = re.compile(r"step (\d+)/(\d+) loss ")
CHECKPOINTED = re.compile(r"step (\d+)/(\d+) checkpointed$")
RESUMED = re.compile(r"resumed from step (\d+)/(\d+) \((step-\d{12})\)$")
FRESH = re.compile(r"no checkpoint: starting at step 0/(\d+)$")
# What a test must not inherit: a role or a directory from the environment it runs in.
ROLE_VARIABLES = ("CLUSTER_SPEC", "TF_CONFIG", "AIP_CHECKPOINT_DIR", "AIP_MODEL_DIR", "CLOUD_ML_JOB_ID")


class Trainer:
    def __init__(
        self, env: Mapping[str, str], args: Sequence[str], module: str = "tabular_trainer.task", before: Sequence[str] = ()
    ) -> None:
        """`module` is run with `before`, then the trainer's flags (`--log-every 1` and `args`)."""
        base = {k: v for k, v in os.environ.items() if k not in ROLE_VARIABLES}
        read, write = os.pipe()
        fcntl.fcntl(write, fcntl.F_SETPIPE_SZ, PAGE)
        self.process = subprocess.Popen(
            [sys.executable, "-m", module, *before, "--log-every", "1", *args],
            cwd=ROOT,
            env={**base, **env},
            stdin=subprocess.DEVNULL,
            stdout=write,
            stderr=subprocess.PIPE,
            text=True,
        )
        os.close(write)
        self._out = os.fdopen(read, "r")
        self.lines: list[str] = []
        self.stderr = ""
        # stderr read on the side, so a chatty stderr never blocks the trainer.
        self._stderr_reader = threading.Thread(target=self._read_stderr, daemon=True)
        self._stderr_reader.start()

    def _read_stderr(self) -> None:
        assert self.process.stderr is not None
        self.stderr = self.process.stderr.read()

    def wait_for_start(self) -> int:
        """Reads until the trainer says where it starts; returns that step."""
        for line in self._out:
            self.lines.append(line.rstrip("\n"))
            if FRESH.match(self.lines[-1]) or RESUMED.match(self.lines[-1]):
                return self.start_step()
        raise AssertionError(f"the trainer ended before it started training:\n{self.transcript()}")

    def wait_for_step(self, step: int) -> int:
        """Reads until the trainer reports a step >= `step`; returns it. Fails if it ended first."""
        for line in self._out:
            self.lines.append(line.rstrip("\n"))
            match = STEP.match(self.lines[-1])
            if match and int(match[1]) >= step:
                return int(match[1])
        raise AssertionError(f"the trainer ended before step {step}:\n{self.transcript()}")

    def send(self, signum: signal.Signals) -> None:
        self.process.send_signal(signum)

    def finish(self, timeout: float = 60) -> int:
        """Reads the rest of its output and waits for it to exit; returns its exit status."""
        for line in self._out:
            self.lines.append(line.rstrip("\n"))
        self._out.close()
        code = self.process.wait(timeout=timeout)
        self._stderr_reader.join(timeout)
        return code

    def transcript(self) -> str:
        return "\n".join(self.lines[-20:]) + "\n--- stderr ---\n" + self.stderr

    # What it printed ------------------------------------------------------------------

    def start_step(self) -> int:
        """The step it started at: the restored checkpoint's, 0 when it found none."""
        for line in self.lines:
            if FRESH.match(line):
                return 0
            match = RESUMED.match(line)
            if match:
                return int(match[1])
        raise AssertionError(f"the trainer said neither where it resumed nor that it started fresh:\n{self.transcript()}")

    def last_step(self) -> int:
        """The last step it reported done (its start step when it reported none)."""
        steps = [int(m[1]) for m in map(STEP.match, self.lines) if m]
        return steps[-1] if steps else self.start_step()

    def checkpointed(self) -> list[int]:
        return [int(m[1]) for m in map(CHECKPOINTED.match, self.lines) if m]


def run(env: Mapping[str, str], args: Sequence[str]) -> Trainer:
    """Runs the trainer to its end; asserts it exited 0."""
    trainer = Trainer(env, args)
    code = trainer.finish()
    assert code == 0, trainer.transcript()
    return trainer


def interrupted(env: Mapping[str, str], args: Sequence[str], after: int, signum: signal.Signals) -> Trainer:
    """Starts the trainer, sends `signum` once it reports `after` steps beyond where it started, reads it to its end."""
    trainer = Trainer(env, args)
    trainer.wait_for_step(trainer.wait_for_start() + after)
    trainer.send(signum)
    trainer.finish()
    return trainer
