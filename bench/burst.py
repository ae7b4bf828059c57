"""A burst: 200 jobs submitted in one `up` against the emulator enforcing Vertex
AI's quota of 60 CustomJob submissions per minute per region (a sliding 60 s
window), on a clock running S times faster than real time
(`emulator.submission_quota(60, time_scale=S)`: at S=60 an emulated minute
lasts a real second).

The engine's view: the dynamic provider host serves 4 calls at once, so 200
creates are driven by 4 worker threads, each job its own resource
(`submissionScope` spot-training/dev/job-{i}, one shared spec: the program's
rendered vision/resnet job). They run in-process, `SpotTrainingJobProvider().create`
on a ThreadPoolExecutor(4), which matches the host's 4 workers, rather than
through the host: the provider's retry backoff (job_service.BACKOFF, initial 1 s,
max 32 s, x2, jittered by google-api-core) and its submission deadline
(job_service.SUBMIT_DEADLINE, 300 s) run on real time, and must be scaled by 1/S
like the emulated clock, which only a monkeypatch in this process can do (the
host has no setting for it). Nothing else is changed.

Reported per scale: submitted, failed (a create raised), doubled (jobs in the
emulator vs distinct `spot_training_key` labels), CreateCustomJob and
ListCustomJobs calls, RESOURCE_EXHAUSTED rejections (emulator.failures), and
the elapsed time in emulated seconds against the quota's floor: with 60 per
sliding minute the k-th submission cannot be admitted before 60*floor((k-1)/60)
s after the first, so 200 need at least 180 s (jobs 181-200 wait for the third
minute): actual/floor. Also when the 61st, 121st and 181st were admitted (from
the jobs' create_time), against 60, 120, 180.

Baseline, same run and quota: the high-level SDK's `CustomJob(...).submit()`
for the same 200 jobs, 4 threads (transport patched as in bench/sdk.py). Its
create has no retry, so what the quota refuses fails.

Why S=10 and 5 (the first runs of this script used 60 and 30): each provider
call now opens a client, waits for its channel to be ready and closes it, and
the close alone takes about 0.2 s (gRPC's connectivity poll), so 4 threads
make some 20 calls a real second. At S=60 that is slower than the quota and the
run measures the client, not the pacing; the refresh runs at S=1 for the same
reason (600 reads a minute is 10 a second).

The provider paces its calls to the quotas itself (components/spot_job/client/quota_pacing.py):
its limiter's minute is scaled by SPOT_TRAINING_EMULATOR_TIME_SCALE=S like the
emulator's, and the emulator also enforces the 600-per-minute CRUD quota.

A refresh: N jobs in state (default 1,000), each read through the provider
(`SpotTrainingJobProvider().read`, as `pulumi refresh` does, on 4 threads),
against the emulator enforcing 600 CRUD requests per sliding minute on the
clock scaled by S. Ours: the reads share one listing of the stack's jobs by its
label (client/read_coalescer.py); goal at most ceil(N/100) + 5 calls. Baseline,
same run: a GetCustomJob per job, as the provider read before issue 29 (its
`JobService.read` patched to `get` here only), whose floors are the sliding
window's (600 at once, the next 600 a minute later: 60*floor((N-1)/600) s) and
the average rate's (N/600 minutes: 100 s for 1,000). Beside them, a Get per job
unpaced (the job input quotas set to 10**9 calls a minute, so the limiter never
holds a call): the emulator rejects what passes the quota and the provider's
backoff retries it (scaled by 1/S). Each run starts with a coalescer of its own
(a listing of an earlier run's emulator is never served).

Run: .venv/bin/python -m bench.burst [--quick] [--scales 10 5] [--refresh-scale 1] [--refresh-only]
"""

from __future__ import annotations

import argparse
import logging
import math
import os
import time
from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from datetime import datetime, timezone

from google.api_core import exceptions

from bench import sdk
from bench.emulated import CRUD_PER_MINUTE, SUBMISSIONS_PER_MINUTE, program_inputs, scoped, table
from components.spot_job import provider as provider_module
from components.spot_job.client import job_service, quota_pacing, read_coalescer
from components.spot_job.model import request, spec
from components.spot_job.model.job_inputs import JobInputs
from components.spot_job.provider import SpotTrainingJobProvider
from tests.emulator import JobServiceEmulator

WORKERS = 4  # the dynamic provider host's


class Retries(logging.Handler):
    """Counts the provider's "retrying" warnings."""

    def __init__(self) -> None:
        super().__init__()
        self.count = 0

    def emit(self, record: logging.LogRecord) -> None:
        if "retrying" in record.getMessage():
            self.count += 1


def floor(n: int, per_minute: int = SUBMISSIONS_PER_MINUTE) -> float:
    """Emulated seconds from the first admission to the n-th, at best."""
    return 60.0 * ((n - 1) // per_minute)


def admitted_at(emu: JobServiceEmulator, start: datetime, scale: float) -> list[float]:
    """Emulated seconds after the burst's start at which each job was accepted, in order."""
    return sorted((job.create_time - start).total_seconds() * scale for job in emu.jobs())


def ours(inputs: dict, n: int, scale: float) -> dict:
    provider = SpotTrainingJobProvider()
    paced, deadline = job_service.BACKOFF, job_service.SUBMIT_DEADLINE
    job_service.BACKOFF = job_service.Backoff(initial=paced.initial / scale, maximum=paced.maximum / scale, multiplier=paced.multiplier)
    job_service.SUBMIT_DEADLINE = deadline / scale
    retries = Retries()
    provider_module.log.addHandler(retries)
    jobs = [scoped(inputs, f"spot-training/dev/job-{i}") for i in range(n)]
    try:
        with JobServiceEmulator() as emu:
            os.environ[job_service.EMULATOR_HOST_ENV] = emu.address
            os.environ[quota_pacing.TIME_SCALE_ENV] = str(scale)  # the limiter's minute, as the emulator's
            emu.submission_quota(SUBMISSIONS_PER_MINUTE, time_scale=scale)
            emu.crud_quota(CRUD_PER_MINUTE, time_scale=scale)
            wall, start = datetime.now(timezone.utc), time.perf_counter()
            with ThreadPoolExecutor(WORKERS) as pool:
                outcomes = list(pool.map(_attempt(provider.create), jobs))
            elapsed = (time.perf_counter() - start) * scale
            labels = [job.labels[spec.SUBMISSION_LABEL] for job in emu.jobs()]
            return {
                "failed": sum(1 for ok in outcomes if not ok),
                "jobs": len(labels),
                "keys": len(set(labels)),
                "expected keys": len(set(labels) & {spec.submission_key(j) for j in jobs}),
                "calls": Counter(emu.calls),
                "exhausted": sum(n for (_, code), n in emu.failures.items() if code == "RESOURCE_EXHAUSTED"),
                "elapsed": elapsed,
                "admitted": admitted_at(emu, wall, scale),
                "retries": retries.count,
            }
    finally:
        job_service.BACKOFF, job_service.SUBMIT_DEADLINE = paced, deadline
        provider_module.log.removeHandler(retries)
        os.environ.pop(job_service.EMULATOR_HOST_ENV, None)
        os.environ.pop(quota_pacing.TIME_SCALE_ENV, None)


def refresh(inputs: dict, n: int, scale: float, paced: bool = True, listing: bool = True) -> dict:
    """n jobs in state, each read through the provider on 4 threads under the CRUD quota; with
    listing=False each read is its own GetCustomJob, as before the reads shared a listing."""
    provider = SpotTrainingJobProvider()
    read = job_service.JobService.read
    read_coalescer.COALESCER = read_coalescer.ReadCoalescer()  # no listing of an earlier run (another emulator)
    if not listing:
        job_service.JobService.read = lambda service, name, stack: service.get(name)
    slow, deadline = job_service.BACKOFF, job_service.READ_DEADLINE
    job_service.BACKOFF = job_service.Backoff(initial=slow.initial / scale, maximum=slow.maximum / scale, multiplier=slow.multiplier)
    job_service.READ_DEADLINE = deadline / scale
    quotas = None if paced else {"callsPerMinute": 10**9}  # unpaced: the limiter never holds a call
    try:
        with JobServiceEmulator() as emu:
            os.environ[job_service.EMULATOR_HOST_ENV] = emu.address
            # The state: n jobs the stack submitted (straight into the emulator, unmetered).
            states = []
            for i in range(n):
                props = scoped(inputs, f"spot-training/dev/job-{i}")
                parent, _, body = request.create_request(JobInputs.of(props))
                name = f"{parent}/customJobs/{10**18 + i}"
                emu.restore({**body, "name": name, "state": "JOB_STATE_RUNNING", "createTime": "2026-01-01T00:00:00Z"})
                states.append((name, {**props, "quotas": quotas, "jobName": name}))
            os.environ[quota_pacing.TIME_SCALE_ENV] = str(scale)
            emu.crud_quota(CRUD_PER_MINUTE, time_scale=scale)
            start = time.perf_counter()
            with ThreadPoolExecutor(WORKERS) as pool:
                outcomes = list(pool.map(_attempt(lambda s: provider.read(*s)), states))
            elapsed = (time.perf_counter() - start) * scale
            return {
                "failed": sum(1 for ok in outcomes if not ok),
                "gets": emu.calls["GetCustomJob"],
                "lists": emu.calls["ListCustomJobs"],
                "exhausted": sum(n for (_, code), n in emu.failures.items() if code == "RESOURCE_EXHAUSTED"),
                "elapsed": elapsed,
            }
    finally:
        job_service.JobService.read = read
        job_service.BACKOFF, job_service.READ_DEADLINE = slow, deadline
        os.environ.pop(job_service.EMULATOR_HOST_ENV, None)
        os.environ.pop(quota_pacing.TIME_SCALE_ENV, None)


def baseline(inputs: dict, n: int, scale: float) -> dict:
    """The SDK's submit() of the same jobs under the same quota."""
    args = [sdk.job_args(request.create_request(JobInputs.of(scoped(inputs, f"spot-training/dev/job-{i}")))[2]) for i in range(n)]
    with JobServiceEmulator() as emu:
        sdk.point_at(emu.address)
        emu.submission_quota(SUBMISSIONS_PER_MINUTE, time_scale=scale)
        start = time.perf_counter()
        with ThreadPoolExecutor(WORKERS) as pool:
            outcomes = list(pool.map(_attempt(lambda a: sdk.submit(*a), exceptions.ResourceExhausted), args))
        elapsed = (time.perf_counter() - start) * scale
        labels = [job.labels[spec.SUBMISSION_LABEL] for job in emu.jobs()]
        return {
            "failed": sum(1 for ok in outcomes if not ok),
            "jobs": len(labels),
            "keys": len(set(labels)),
            "calls": Counter(emu.calls),
            "exhausted": emu.failures[("CreateCustomJob", "RESOURCE_EXHAUSTED")],
            "elapsed": elapsed,
        }


def _attempt(create, expected: type[BaseException] = Exception):
    def run(job) -> bool:
        try:
            create(job)
            return True
        except expected:
            return False

    return run


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="a reduced smoke run: 80 jobs at S=10, a refresh of 150")
    parser.add_argument("--scales", type=float, nargs="+", default=None, help="time scales S (default 10 5)")
    parser.add_argument("--refresh-scale", type=float, default=1.0, help="time scale S of the refresh (default 1)")
    parser.add_argument("--refresh-only", action="store_true", help="only the refresh (its three runs), not the burst")
    args = parser.parse_args()
    n = 80 if args.quick else 200
    reads = 150 if args.quick else 1000  # --quick: a smoke run that stays within one minute's quota
    scales = args.scales or ([10.0] if args.quick else [10.0, 5.0])

    inputs = program_inputs()
    provider_module._report_to_stderr()  # installs the provider's stderr handler, once per process ...
    provider_module.log.handlers.clear()  # ... which 140 jobs' retry warnings would flood: counted instead
    if not args.refresh_only:
        results = {s: ours(inputs, n, s) for s in scales}
        sdk_result = baseline(inputs, n, scales[0])

        best = floor(n)
        print(f"A burst of {n} creates, {WORKERS} workers, quota {SUBMISSIONS_PER_MINUTE} submissions per sliding minute; "
              f"times in emulated seconds; floor {best:.0f} s")
        rows = []
        for s, r in results.items():
            calls = r["calls"]
            rows.append([
                f"ours, S={s:g}", n - r["failed"], r["failed"], r["jobs"], r["keys"], r["jobs"] - r["keys"],
                calls["CreateCustomJob"], r["exhausted"], calls["ListCustomJobs"], r["retries"],
                f"{r['elapsed']:.0f}", f"{r['elapsed'] / best:.2f}" if best else "n/a",
            ])
        calls = sdk_result["calls"]
        rows.append([
            f"SDK submit(), S={scales[0]:g}", n - sdk_result["failed"], sdk_result["failed"], sdk_result["jobs"],
            sdk_result["keys"], sdk_result["jobs"] - sdk_result["keys"], calls["CreateCustomJob"], sdk_result["exhausted"],
            calls["ListCustomJobs"], 0, f"{sdk_result['elapsed']:.0f}", "n/a (not all submitted)" if sdk_result["failed"] else "",
        ])
        print(table(
            ["run", "submitted", "failed", "jobs in emulator", "distinct keys", "doubled", "CreateCustomJob calls",
             "RESOURCE_EXHAUSTED", "ListCustomJobs calls", "retries logged", "elapsed s", "actual/floor"],
            rows,
        ))
        print()
        marks = [k for k in (1, 61, 121, 181) if k <= n] + [n]
        print("When the k-th submission was admitted (emulated s after the burst started) vs the floor")
        print(table(
            ["k", "floor s", *(f"ours S={s:g}" for s in results)],
            [[k, f"{floor(k):.0f}", *(f"{r['admitted'][k - 1]:.1f}" for r in results.values())] for k in marks],
        ))
        for s, r in results.items():
            ok = r["failed"] == 0 and r["jobs"] == n and r["keys"] == n and r["expected keys"] == n
            print(f"S={s:g}: all {n} submitted, none failed, none twice (each job's own submission key): {'yes' if ok else 'NO'}")

    print()
    rs = args.refresh_scale
    runs = {
        "ours: one listing by the stack's label (paced)": refresh(inputs, reads, rs),
        "baseline: a GetCustomJob per job (paced)": refresh(inputs, reads, rs, listing=False),
    }
    if not args.quick:
        runs["a GetCustomJob per job, unpaced (backoff only)"] = refresh(inputs, reads, rs, paced=False, listing=False)
    window, rate = refresh_floor(reads), 60.0 * reads / CRUD_PER_MINUTE
    goal = math.ceil(reads / 100) + 5
    print(f"A refresh of {reads} jobs, {WORKERS} workers, quota {CRUD_PER_MINUTE} CRUD requests per sliding minute, S={rs:g}; "
          f"times in emulated seconds; floors of a GetCustomJob per job: {window:.0f} s (sliding window), {rate:.0f} s "
          f"(average rate); goal of the listing: at most {goal} calls (ceil(N/100) + 5)")
    print(table(
        ["run", "read", "failed", "GetCustomJob calls", "ListCustomJobs calls", "calls", "RESOURCE_EXHAUSTED", "elapsed s",
         "actual/window floor", "actual/rate floor"],
        [[run, reads - r["failed"], r["failed"], r["gets"], r["lists"], r["gets"] + r["lists"], r["exhausted"],
          f"{r['elapsed']:.1f}", f"{r['elapsed'] / window:.2f}" if window else "n/a", f"{r['elapsed'] / rate:.2f}"]
         for run, r in runs.items()],
    ))
    listed, before = runs["ours: one listing by the stack's label (paced)"], runs["baseline: a GetCustomJob per job (paced)"]
    calls, was = listed["gets"] + listed["lists"], before["gets"] + before["lists"]
    print(f"refresh, ours / baseline: calls {calls} / {was} = {calls / was:.3f}x, time {listed['elapsed']:.1f} / "
          f"{before['elapsed']:.1f} s = {listed['elapsed'] / before['elapsed']:.3f}x; "
          f"goal of at most {goal} calls: {'met' if calls <= goal else 'MISSED'}")
    r = listed
    print(f"refresh: all {reads} read, none failed, no RESOURCE_EXHAUSTED: {'yes' if r['failed'] == 0 and r['exhausted'] == 0 else 'NO'}")


def refresh_floor(n: int, per_minute: int = CRUD_PER_MINUTE) -> float:
    """Emulated seconds from the first read to the n-th, at best, under a sliding window."""
    return 60.0 * ((n - 1) // per_minute)


if __name__ == "__main__":
    main()
