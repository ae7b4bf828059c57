"""The sandbox's JobService process: `python -m sandbox.daemon ROOT --port N --storage URL [--run-for S]`.

Serves the JobService and the developer API on 127.0.0.1:N (0: any free port)
and runs the jobs' code (jobservice/runner.py), until SIGTERM or SIGINT. Its
jobs are kept in ROOT/jobs.json, its replicas' logs under ROOT/runs/. It prints
the address it serves on as its first line, for services.py, and runs in a
session of its own, so it outlives the `sandbox up` that started it. On start
it first stops any replica a sandbox of the same ROOT left running when it was
killed (found by the mark in their environment, replicas.py).
"""

from __future__ import annotations

import argparse
import logging
import os
import signal
import sys
import threading
from pathlib import Path

from sandbox.jobservice.developer_api import DeveloperApi
from sandbox.jobservice.models import JobStore
from sandbox.jobservice.replicas import left_running
from sandbox.jobservice.runner import Runner
from sandbox.jobservice.server import JobServiceServer, PortTaken


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m sandbox.daemon")
    parser.add_argument("root", type=Path)
    parser.add_argument("--port", type=int, default=0)
    parser.add_argument("--storage", required=True, help="fake-gcs-server's URL, for the replicas' STORAGE_EMULATOR_HOST")
    parser.add_argument("--run-for", type=float, default=30.0)
    args = parser.parse_args(argv)
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(name)s %(levelname)s %(message)s", stream=sys.stderr)
    root: Path = args.root.resolve()
    os.environ["STORAGE_EMULATOR_HOST"] = args.storage  # the packages jobs install are read from there
    for pid in left_running(root / "runs", str(root)):
        try:
            os.killpg(pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
    store = JobStore(journal=root / "jobs.json")
    store.hold_cancelling = True  # a cancelled job ends CANCELLED once the runner has stopped its replicas
    runner = Runner(
        store, root / "runs", str(root), args.run_for,
        {"STORAGE_EMULATOR_HOST": args.storage, "CLOUDSDK_CONFIG": str(root / "gcloud")},
    )
    developer = DeveloperApi(runner, store)
    server = JobServiceServer(store, (developer.handler(),))
    try:
        address = server.start(port=args.port)
    except PortTaken as taken:
        print(f"error: {taken}", file=sys.stderr, flush=True)
        return 2
    runner.start()
    stopping = threading.Event()

    def stop(signum: int, frame: object) -> None:
        stopping.set()

    signal.signal(signal.SIGTERM, stop)
    signal.signal(signal.SIGINT, stop)
    print(address, flush=True)
    stopping.wait()
    runner.stop()
    server.stop()
    return 0


if __name__ == "__main__":
    sys.exit(main())
