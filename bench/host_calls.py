"""What each call of a no-change `up` costs the dynamic provider host, ours against the
baseline's, one kind after the other in one run.

A no-change `up` of N jobs sends the host, per job, a Read (the refresh), a Diff (the
refresh's drift), a Check and a Diff (the program's registration). On a machine whose
cores the engine, the program and the host share, what the host's CPU does per call is
what the `up` waits for (bench/engine.py's no-change rounds). Here the real SDK host
(`python -m pulumi.dynamic`, tests/provider_host.py) is sent those calls as the engine
sends them, 4 at once, for N jobs already in the emulator (ours: restored straight into
it, as bench/burst.py's refresh does; the baseline's `bench.baseline.BareJob` makes no call),
and the host process's CPU seconds (user + system, /proc) are read around each kind of
call, R rounds, the kinds taking turns, median per call.

Run: .venv/bin/python -m bench.host_calls [--jobs 500] [--rounds 3] [--quick]
"""

from __future__ import annotations

import argparse
import os
import statistics
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from bench.engine import job_inputs
from tests.emulator import JobServiceEmulator
from tests.provider_host import JOB_TYPE, ProviderHost, deserialize

BARE_TYPE = "pulumi-python:dynamic/bench:BareJob"
THREADS = 4


def _cpu_seconds(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def _provider_blob(kind: str) -> str:
    """The `__provider` the program registers: the pickled provider, as the SDK serializes it."""
    from pulumi.dynamic.dynamic import serialize_provider

    if kind == "ours":
        from components.spot_job.provider import SpotTrainingJobProvider

        return serialize_provider(SpotTrainingJobProvider())
    from bench.baseline import BareJobProvider

    return serialize_provider(BareJobProvider())


def _jobs(kind: str, n: int, host: ProviderHost, emulator: JobServiceEmulator) -> list[tuple[str, str, dict, dict]]:
    """(urn, id, state, inputs) of N jobs as a first `up` leaves them: the inputs after Check."""
    from components.spot_job.model import request
    from components.spot_job.model.job_inputs import JobInputs

    blob = _provider_blob(kind)
    jobs = []
    for i in range(n):
        raw = job_inputs(i)
        if kind == "ours":
            raw = {**raw, "submissionScope": f"spot-training/bench/{raw['displayName']}"}
        urn = f"urn:pulumi:bench::spot-training::{JOB_TYPE if kind == 'ours' else BARE_TYPE}::{raw['displayName']}"
        inputs = deserialize(host.check(urn, {}, {**raw, "__provider": blob}).inputs)
        if kind == "ours":
            parent, _, body = request.create_request(JobInputs.of(inputs))
            name = f"{parent}/customJobs/{10**18 + i}"
            emulator.restore({**body, "name": name, "state": "JOB_STATE_RUNNING", "createTime": "2026-01-01T00:00:00Z"})
            state = deserialize(host.read(urn, name, {**inputs, "jobName": name}).properties)
            jobs.append((urn, name, state, inputs))
        else:
            jobs.append((urn, "bare-job", dict(inputs), inputs))
    return jobs


def measure(n: int, rounds: int) -> dict[str, dict[str, float]]:
    """Host CPU milliseconds per call, by kind and call (median over rounds). Each round has a host
    of its own per kind, as each `up` does (a job is read once per refresh: the listing serves each
    job once), and the kinds take turns, so the machine's load falls on both alike."""
    kinds = ("baseline", "ours")
    with JobServiceEmulator() as emulator:
        env = {"AIPLATFORM_EMULATOR_HOST": emulator.address, "SPOT_TRAINING_EMULATOR_TIME_SCALE": "1000"}
        jobs = {}
        for kind in kinds:
            with ProviderHost(env) as host:
                jobs[kind] = _jobs(kind, n, host, emulator)
        found: dict[str, dict[str, list[float]]] = {kind: {"Read": [], "Diff": [], "Check": []} for kind in kinds}
        for r in range(rounds):
            for kind in (kinds if r % 2 == 0 else kinds[::-1]):
                _round(kind, jobs[kind], env, emulator, found[kind])
    return {kind: {name: statistics.median(values) for name, values in calls.items()} for kind, calls in found.items()}


def _round(kind: str, jobs: list, env: dict[str, str], emulator: JobServiceEmulator, found: dict[str, list[float]]) -> None:
    with ProviderHost(env) as host, ThreadPoolExecutor(THREADS) as pool:
        host.check(jobs[0][0], jobs[0][3], jobs[0][3])  # the provider unpickled, its imports done
        host.read(jobs[0][0], jobs[0][1], jobs[0][2])  # alone: its own Get, no listing
        emulator.reset_calls()
        calls = {
            "Read": lambda job: host.read(job[0], job[1], job[2]),
            "Diff": lambda job: host.diff(job[0], job[1], job[2], job[3]),
            "Check": lambda job: host.check(job[0], job[3], job[3]),
        }
        for name, call in calls.items():
            before = _cpu_seconds(host.process.pid)
            list(pool.map(call, jobs))
            found[name].append(1000 * (_cpu_seconds(host.process.pid) - before) / len(jobs))
        if kind == "ours":
            listings = emulator.calls.get("ListCustomJobs", 0)
            assert emulator.calls.get("GetCustomJob", 0) <= 5 and listings <= len(jobs) // 100 + 2, emulator.calls


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--jobs", type=int, default=500)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--quick", action="store_true", help="100 jobs, 1 round")
    args = parser.parse_args()
    if args.quick:
        args.jobs, args.rounds = 100, 1
    figures = measure(args.jobs, args.rounds)
    print(f"host CPU ms per call, {args.jobs} jobs, {THREADS} at once, median of {args.rounds} rounds")
    print(f"{'call':<6} {'baseline':>9} {'ours':>9} {'ratio':>7}")
    for name in figures["ours"]:
        base, ours = figures["baseline"][name], figures["ours"][name]
        print(f"{name:<6} {base:>9.2f} {ours:>9.2f} {_ratio(ours, base):>7}")
    per_job = {kind: calls["Read"] + 2 * calls["Diff"] + calls["Check"] for kind, calls in figures.items()}
    print(f"a no-change up's calls per job (Read + 2 Diff + Check): baseline {per_job['baseline']:.2f} ms, "
          f"ours {per_job['ours']:.2f} ms, {_ratio(per_job['ours'], per_job['baseline'])}")


def _ratio(ours: float, base: float) -> str:
    # /proc counts CPU in ticks (10 ms): a small run may see none for the baseline.
    return f"{ours / base:.2f}x" if base else "-"


if __name__ == "__main__":
    main()
