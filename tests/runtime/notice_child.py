"""A training loop that waits for the preemption notice (run by test_preemption.py).

argv: mode directory. It prints "ready <step>" lines while it trains; the test signals it.
  mode "flag": installs the notice over a Python handler of its own, trains until notice.received,
    then prints what it saw as JSON.
  mode "train": the loop of docs/training.md: saves at the interval or on the notice, exits 0.
  mode "sigint": like "flag" for SIGINT, then waits for a second SIGINT (KeyboardInterrupt).
"""

import json
import signal
import sys
import time

import spot_runtime

mode, directory = sys.argv[1], sys.argv[2]
seen = []
signal.signal(signal.SIGTERM, lambda signum, frame: seen.append(signum))  # a framework's own handler
notice = spot_runtime.PreemptionNotice.install()
assert spot_runtime.PreemptionNotice.install() is notice


def wait(condition, limit=20.0):
    deadline = time.monotonic() + limit
    while not condition() and time.monotonic() < deadline:
        time.sleep(0.005)


if mode in ("flag", "sigint"):
    print("ready 0", flush=True)
    wait(lambda: notice.received)
    try:
        # Inside the try before the test is told: its second SIGINT cannot land before it.
        print(json.dumps({"received": notice.received, "signal": notice.signal, "chained": seen}), flush=True)
        if mode == "sigint":
            wait(lambda: False)
    except KeyboardInterrupt:
        print("KeyboardInterrupt", flush=True)
    sys.exit(0)

ckpt = spot_runtime.Checkpointer.from_environment(
    interval=1000, environ={"AIP_CHECKPOINT_DIR": directory, "CLOUD_ML_JOB_ID": "3"}, mount_root="/nonexistent"
)
restored = ckpt.restore()
start = restored.step if restored else 0
for step in range(start, 10**9):
    time.sleep(0.001)  # one training step
    print(f"ready {step + 1}", flush=True)
    if ckpt.due(step + 1) or notice.received:
        ckpt.save(step + 1, {"step.txt": str(step + 1).encode()})
    if notice.received:
        print(f"saved {step + 1}", flush=True)
        break
