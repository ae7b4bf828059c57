"""A whole `pulumi up` of N new jobs as the user waits for it, through the
dynamic provider host, beside submitting the same N jobs with Google's
high-level SDK one after another, in one run against the local emulator.

Ours, timed from starting `python -m pulumi.dynamic` (from the repo root, as
the engine starts it) to the last Create response: read its port, Configure,
then Check + Create of each job with the `__provider` blob the program really
produced, issued as the engine issues them, concurrently with its default
`--parallel 16` (the host itself serves 4 calls at once). The Create request
carries the inputs exactly as Check returned them, as the engine sends them.
Requests are built before the clock starts.

Baseline, timed from starting a fresh Python process to it printing that its
last job was submitted: import `google.cloud.aiplatform`, init it, then
`CustomJob(...).submit()` of each of the same N jobs in turn (bench/sdk.py
points it at the emulator). That is what a user of the SDK waits for.

Each job is its own resource with its own display name, as in a stack. Both
submit the same CustomJobs (the SDK's with ours' request bodies, the
submission label included) to one emulator; each run's jobs are checked to
have landed. Runs are interleaved ours/SDK after one unrecorded run of each
(file cache); medians. The RPC counts are per job, from the emulator.

Run: .venv/bin/python -m bench.up [--quick]
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from collections import Counter
from concurrent.futures import ThreadPoolExecutor

from pulumi.runtime.proto import provider_pb2

from bench.emulated import URN, Host, median, program_inputs, scoped, serialize, table
from components.spot_job.client import quota_pacing
from components.spot_job.model import spec
from components.spot_job.model.job_inputs import JobInputs
from tests.emulator import JobServiceEmulator
from tests.program import ROOT

ENGINE_PARALLEL = 16  # `pulumi up --parallel`'s default
SIZES = (1, 10, 100)

# The baseline's whole program, in a fresh interpreter: the bodies come in a JSON file.
SDK_UP = (
    "import json, sys\n"
    "import bench.sdk as sdk\n"
    "sdk.point_at(sys.argv[1])\n"
    "for body in json.load(open(sys.argv[2])):\n"
    "    sdk.submit(*sdk.job_args(body))\n"
    "print('SUBMITTED', flush=True)\n"
)


def job(inputs: dict, run: str, i: int) -> dict:
    """The i-th job of a run: its own resource (submission scope) and, as every job of a stack has, its own
    display name. (Jobs sharing a display name all match the create's look-up filter, v1's fallback:
    see BENCHMARKS.md.)"""
    props = scoped(inputs, f"spot-training/dev/{run}-{i}")
    return {**props, "displayName": f"{props['displayName']}-{run}-{i}"}


def requests_for(inputs: dict, run: str, n: int) -> list[provider_pb2.CheckRequest]:
    return [
        provider_pb2.CheckRequest(urn=f"{URN}-{i}", olds=serialize({}), news=serialize(job(inputs, run, i)))
        for i in range(n)
    ]


def up_ours(emu: JobServiceEmulator, checks: list[provider_pb2.CheckRequest]) -> tuple[float, float, list[str]]:
    """(seconds from the host's start to the last Create response, of which until Configured, the job names)."""

    def one(host: Host, check: provider_pb2.CheckRequest) -> str:
        checked = host.stub.Check(check)
        if list(checked.failures):
            raise RuntimeError(f"check failed: {list(checked.failures)}")
        return host.stub.Create(provider_pb2.CreateRequest(urn=check.urn, properties=checked.inputs)).id

    start = time.perf_counter()
    # The emulator enforces no quota here and the pacer's minute is made short: this
    # measures the client's own speed beside the SDK's; what the 60-per-minute
    # submission quota costs a large `up` is bench.burst's (BENCHMARKS.md 5.).
    with Host({"AIPLATFORM_EMULATOR_HOST": emu.address, quota_pacing.TIME_SCALE_ENV: "1000"}) as host:
        ready = time.perf_counter() - start
        with ThreadPoolExecutor(ENGINE_PARALLEL) as engine:
            names = list(engine.map(lambda check: one(host, check), checks))
        elapsed = time.perf_counter() - start
    return elapsed, ready, names


def up_sdk(emu: JobServiceEmulator, inputs: dict, run: str, n: int) -> float:
    bodies = [spec.submission(JobInputs.of(job(inputs, run, i)))[2] for i in range(n)]
    with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False) as f:
        json.dump(bodies, f)
    try:
        before = len(emu.jobs())
        start = time.perf_counter()
        child = subprocess.Popen([sys.executable, "-c", SDK_UP, emu.address, f.name], cwd=ROOT, stdout=subprocess.PIPE)
        done = any(line.startswith(b"SUBMITTED") for line in child.stdout)
        elapsed = time.perf_counter() - start
        child.stdout.close()
        if child.wait() != 0 or not done:
            raise RuntimeError("the SDK's submissions failed")
    finally:
        os.unlink(f.name)
    assert len(emu.jobs()) == before + n, "SDK: not every job landed in the emulator"
    return elapsed


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="a reduced smoke run (1 and 10 jobs, one run each)")
    args = parser.parse_args()
    sizes, runs = ((1, 10), 1) if args.quick else (SIZES, 5)

    inputs = program_inputs()
    rows, rpc_rows = [], []
    with JobServiceEmulator() as emu:
        up_ours(emu, requests_for(inputs, "warmup-ours", 2))  # file cache, both sides
        up_sdk(emu, inputs, "warmup-sdk", 2)
        for n in sizes:
            ours, ready, sdk_times, calls = [], [], [], Counter()
            for r in range(runs):
                checks = requests_for(inputs, f"up{n}-ours-{r}", n)
                before = Counter(emu.calls)
                elapsed, up, names = up_ours(emu, checks)
                calls += Counter(emu.calls) - before
                assert len(set(names)) == n and set(names) <= {j.name for j in emu.jobs()}, "ours: jobs missing"
                ours.append(elapsed), ready.append(up)
                sdk_times.append(up_sdk(emu, inputs, f"up{n}-sdk-{r}", n))
            o, s = median(ours), median(sdk_times)
            rows.append([n, f"{o:.2f}", f"{median(ready):.2f}", f"{s:.2f}", f"{o / s:.2f}", f"{s / o:.2f}x"])
            rpc_rows.append([n, " + ".join(f"{v / (n * runs):g} {k}" for k, v in sorted(calls.items()))])

    print(f"A whole `up` of N new jobs, from starting the host to the last Create response, engine parallelism "
          f"{ENGINE_PARALLEL} (host serves 4), beside a fresh Python process submitting the same N jobs with the "
          f"SDK one after another; median of {runs} run(s) each, interleaved (seconds)")
    print(table(["jobs", "ours s", "of which host up + Configured", "SDK sequential s", "ratio ours/SDK", "SDK/ours"], rows))
    print()
    print("JobService calls per job in ours' up (emulator's counters)")
    print(table(["jobs", "RPCs per job"], rpc_rows))


if __name__ == "__main__":
    main()
