"""What the real engine costs per job: `preview` and `up` of N jobs under the Pulumi CLI
(.engine/bin/pulumi, tools/engine/build.sh) against the emulator, beside a baseline of
bare `pulumi.dynamic.Resource`s with the same inputs under the same CLI, in one run.

Ours: N `SpotTrainingJob`s (the code API, plain inputs: a job's spec, project,
location, display name), each submitted to the emulator by the dynamic
provider host the engine launches. Baseline: N `bench.baseline.BareJob`s (a
trivial provider whose state is its inputs) with the REST inputs ours
registers. Both run as inline programs (the route the engine tests take,
docs/development.md), each (kind, N) in a fresh process of its own, in a fresh
stack on a file backend:

- `preview` of the new stack, then `up`, then (the largest N) an `up` with
  nothing changed: wall time of each, as the Automation API returns;
- the peak memory (VmHWM) of the program's process and of the dynamic
  provider host(s) the CLI started, sampled from /proc every 50 ms;
- state bytes per job: the job resources' JSON in `pulumi stack export`, / N;
- the Vertex AI calls of the no-change `up`, from the emulator (reads only, is
  the goal).

With `--profile N` (bench/profile_engine.py): where the extra `up` time goes, N jobs of each
kind: every provider call the host serves timed (bench/host_profile), then run again with
each call and the program's thread under cProfile, and the emulator's own time.

With `--no-change-rounds N R`: the no-change `up` of N jobs of each kind, R rounds, the kinds
taking turns on a stack per kind made once, with each process's CPU seconds (what BENCHMARKS §9
compares: single runs move with the machine's load).

Run: .venv/bin/python -m bench.engine [--quick] [--sizes 10,100,1000] [--profile 100 [--profile-no-change]]
     .venv/bin/python -m bench.engine --no-change-rounds 1000 5
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PROJECT = "acme-ml-bench"
REGION = "us-central1"


def job_inputs(i: int) -> dict:
    return {
        "project": PROJECT,
        "location": REGION,
        "displayName": f"bench-job-{i}",
        "jobSpec": {
            "workerPoolSpecs": [{
                "machineSpec": {"machineType": "n1-standard-4"},
                "replicaCount": 1,
                "containerSpec": {"imageUri": "us-docker.pkg.dev/acme/bench/trainer:1", "args": [f"--seed={i}"]},
            }],
            "scheduling": {"strategy": "SPOT"},
        },
    }


# When the program last started and last finished registering its jobs (time.time()): where an `up`'s
# time goes between the refresh's reads and the program's first Check.
PROGRAM_TIMES: dict[str, float] = {}


# What `program` registers per job: bench.baseline's BareJob, ShapedJob and DeclaredJob, and ours.
KINDS = ("baseline", "shaped", "declared", "ours")


def program(kind: str, n: int, profile=None):
    def run() -> None:
        PROGRAM_TIMES["start"] = time.time()
        if profile is not None:  # the thread that runs the program and the SDK's event loop, from here on
            profile.enable()
        if kind == "ours":
            from components.spot_job.resource import SpotTrainingJob, SpotTrainingJobArgs

            for i in range(n):
                inputs = job_inputs(i)
                SpotTrainingJob(
                    inputs["displayName"],
                    SpotTrainingJobArgs(
                        job_spec=inputs["jobSpec"], project=inputs["project"], location=inputs["location"],
                        display_name=inputs["displayName"],
                    ),
                )
        elif kind in ("shaped", "declared"):  # a bare resource with our job's state (declared: and our outputs)
            from bench.baseline import DeclaredJob, ShapedJob

            bare = ShapedJob if kind == "shaped" else DeclaredJob
            for i in range(n):
                inputs = job_inputs(i)
                bare(inputs["displayName"], {**inputs, "submissionScope": f"spot-training/bench/{inputs['displayName']}"})
        else:
            from bench.baseline import BareJob

            for i in range(n):
                inputs = job_inputs(i)
                BareJob(inputs["displayName"], inputs)
        PROGRAM_TIMES["registered"] = time.time()

    return run


def _ancestors(pid: str) -> set[int]:
    seen = set()
    while pid not in ("0", "1") and int(pid) not in seen:
        seen.add(int(pid))
        try:
            pid = (Path("/proc") / pid / "stat").read_text().rsplit(")", 1)[1].split()[1]
        except OSError:
            break
    return seen


class _ProcSampler:
    """Samples, every 50 ms while running, each process this one started (through the CLI) whose
    command line names one of `MARKERS` (marker, what it is): `_seen(entry, kind)` per process."""

    MARKERS: tuple[tuple[str, str], ...] = ()

    def __init__(self) -> None:
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._sample, daemon=True)

    def __enter__(self):
        self._thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self._stop.set()
        self._thread.join()

    def _seen(self, entry: Path, kind: str) -> None:
        raise NotImplementedError

    def _sample(self) -> None:
        me = os.getpid()
        while not self._stop.wait(0.05):
            for entry in Path("/proc").iterdir():
                if not entry.name.isdigit() or int(entry.name) == me:
                    continue
                try:
                    command = (entry / "cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
                    kind = next((name for marker, name in self.MARKERS if marker in command), None)
                    if kind is not None and me in _ancestors(entry.name):
                        self._seen(entry, kind)
                except OSError:
                    continue


class HostPeak(_ProcSampler):
    """The largest VmHWM of any dynamic provider host process this process started (through the
    CLI) seen while running; the machine's other hosts are not ours."""

    MARKERS = (("pulumi.dynamic", "provider host"),)

    def __init__(self) -> None:
        super().__init__()
        self.peak_kib = 0

    def _seen(self, entry: Path, kind: str) -> None:
        for line in (entry / "status").read_text().splitlines():
            if line.startswith("VmHWM:"):
                self.peak_kib = max(self.peak_kib, int(line.split()[1]))


class ProcessCPU(_ProcSampler):
    """CPU seconds (user + system) of each process this one started (through the CLI) while
    running, by what it is: the CLI (the engine), the dynamic provider host, the stand-in gcp
    plugin; each process's last sample counted."""

    MARKERS = (("pulumi.dynamic", "provider host"), ("pulumi-resource-gcp", "gcp stand-in"), ("bin/pulumi", "engine"))

    def __init__(self) -> None:
        super().__init__()
        self.last: dict[int, tuple[str, float]] = {}
        self._tick = os.sysconf("SC_CLK_TCK")

    def _seen(self, entry: Path, kind: str) -> None:
        fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
        self.last[int(entry.name)] = (kind, (int(fields[11]) + int(fields[12])) / self._tick)

    def by_kind(self) -> dict[str, float]:
        found: dict[str, float] = {}
        for kind, seconds in self.last.values():
            found[kind] = found.get(kind, 0.0) + seconds
        return found


def _project(tmp: Path, emulator_address: str):
    """A fresh project and stack `bench` in `tmp`, against the emulator, the bench's packages beside it."""
    from tests.engine.project import EngineProject

    project = EngineProject(tmp, emulator_address, "bench", {"gcp:project": PROJECT, "gcp:region": REGION})
    for name in ("bench", "offline"):  # the baselines' providers are in bench.baseline
        (project.dir / name).symlink_to(ROOT / name)
    return project


def _timed_up(stack) -> dict:
    """One `up`: its result, wall seconds, start and end, and CPU seconds of this process (the
    inline program, the emulator) and of the processes it waited for (the CLI, with the provider
    host and the stand-in it waited for)."""
    who = (resource.RUSAGE_SELF, resource.RUSAGE_CHILDREN)
    cpu = [resource.getrusage(w) for w in who]
    wall_start, start = time.time(), time.perf_counter()
    with ProcessCPU() as processes:
        result = stack.up(color="never")
    seconds = time.perf_counter() - start
    cpu_s = {
        name: (after.ru_utime + after.ru_stime) - (before.ru_utime + before.ru_stime)
        for name, before, after in zip(("program and emulator", "CLI and plugins"), cpu, [resource.getrusage(w) for w in who])
    }
    cpu_s.update({f"of it, {kind}": value for kind, value in processes.by_kind().items()})
    return {"result": result, "s": seconds, "start": wall_start, "end": wall_start + seconds, "cpu_s": cpu_s}


def _set_aside(profile_dir: str, folder: str, program_profile) -> None:
    """What the host and the program recorded so far, out of the way of the `up` profiled next."""
    from bench import profile_engine

    Path(profile_dir, folder).mkdir()
    for f in Path(profile_dir).glob("calls-*.jsonl"):
        f.rename(Path(profile_dir, folder, f.name))
    for f in Path(profile_dir).glob("*.prof"):
        f.unlink()
    if program_profile is not None:
        program_profile.clear()
    profile_engine.EMULATOR_TIME.clear()


def one(kind: str, n: int, no_change: bool, profile_dir: str | None = None) -> dict:
    """One (kind, N) in this process: its figures as a dict. With `profile_dir`, what
    bench.profile_engine reads is written there."""
    from tests.emulator import JobServiceEmulator

    os.environ.setdefault("SPOT_TRAINING_EMULATOR_TIME_SCALE", "1000")
    apart = os.environ.get("BENCH_EMULATOR_APART") == "1"  # --profile only: no census, no call counts
    if apart:
        from bench.profile_engine import EmulatorApart
    with tempfile.TemporaryDirectory() as tmp, (EmulatorApart() if apart else JobServiceEmulator()) as emulator:
        project = _project(Path(tmp), emulator.address)
        os.environ.update(project.env)
        program_profile = None
        if profile_dir:
            from bench import profile_engine

            os.environ["PYTHONPATH"] = str(ROOT / "bench" / "host_profile")  # the host's sitecustomize
            os.environ["BENCH_ENGINE_PROFILE"] = profile_dir
            program_profile = profile_engine.program_profile()
            if not apart:
                profile_engine.time_emulator(emulator)
        stack = project.stack(program(kind, n, program_profile))
        figures: dict = {"kind": kind, "n": n}
        with HostPeak() as host:
            start = time.perf_counter()
            stack.preview(color="never")
            figures["preview_s"] = time.perf_counter() - start
            # With `profile_dir`, the `up` profiled is the no-change one when there is one, else the first.
            if profile_dir:
                _set_aside(profile_dir, "calls-preview", program_profile)
            up = _timed_up(stack)
            figures.update(up_s=up["s"], up_start=up["start"], up_end=up["end"], up_cpu_s=up["cpu_s"])
            if no_change:
                if profile_dir:
                    _set_aside(profile_dir, "calls-up", program_profile)
                emulator.reset_calls()
                up = _timed_up(stack)
                figures.update(no_change_up_s=up["s"], up_start=up["start"], up_end=up["end"], up_cpu_s=up["cpu_s"])
                figures["no_change_steps"] = {k: v for k, v in (up["result"].summary.resource_changes or {}).items() if v}
                if not apart:
                    figures["no_change_vertex_calls"] = dict(emulator.calls)
            figures["program_times"] = dict(PROGRAM_TIMES)
            if profile_dir:
                from bench import profile_engine

                figures["emulator_s"] = dict(profile_engine.EMULATOR_TIME)
                if program_profile is not None:
                    program_profile.create_stats()
                    program_profile.dump_stats(str(Path(profile_dir, "program.prof")))
        figures["host_peak_mib"] = host.peak_kib / 1024
        figures["program_peak_mib"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
        jobs = [r for r in project.export()["deployment"]["resources"] if r["type"].endswith(("SpotTrainingJob", "BareJob"))]
        assert len(jobs) == n, f"{len(jobs)} jobs in state, expected {n}"
        figures["state_bytes_per_job"] = len(json.dumps(jobs)) / n
        # Where a job's state bytes go: its inputs, its outputs, the rest (urn, provider, ...), per key.
        job = jobs[0]
        figures["one_job"] = job
        figures["state_of_one_job"] = {
            "inputs": {k: len(json.dumps(v)) for k, v in job.get("inputs", {}).items()},
            "outputs": {k: len(json.dumps(v)) for k, v in job.get("outputs", {}).items()},
            "rest": len(json.dumps({k: v for k, v in job.items() if k not in ("inputs", "outputs")})),
        }
        if kind == "ours" and not apart:
            assert len(emulator.jobs()) == n, "every job submitted once"
        return figures


def no_change_rounds(n: int, rounds: int, kinds: tuple[str, ...] = ("baseline", "ours")) -> dict:
    """The no-change `up` of N jobs of each kind, `rounds` times, the kinds taking turns (which
    goes first alternates), on a stack per kind made once in this process against one emulator: the
    machine's load then falls on both alike, and the median of the per-round ratios says how
    they compare. Returns each kind's times, its ratios to the first kind and their median.
    `kinds` may add "shaped": a bare resource whose state has our job's shape, and "declared": the
    same, its program declaring our job's 13 outputs as ours does (what the interface alone costs)."""
    import statistics

    from tests.emulator import JobServiceEmulator

    os.environ.setdefault("SPOT_TRAINING_EMULATOR_TIME_SCALE", "1000")
    with tempfile.TemporaryDirectory() as tmp, JobServiceEmulator() as emulator:
        stacks = {}
        for kind in kinds:
            (Path(tmp) / kind).mkdir()
            project = _project(Path(tmp) / kind, emulator.address)
            stacks[kind] = (project, project.stack(program(kind, n)))
        times: dict[str, list[float]] = {kind: [] for kind in kinds}
        cpu: dict[str, dict[str, list[float]]] = {kind: {} for kind in kinds}  # CPU seconds by process, per round

        for kind in kinds:  # the stack's first `up`: every job created
            project, stack = stacks[kind]
            os.environ.update(project.env)
            stack.up(color="never")
        for r in range(rounds):
            for kind in (kinds if r % 2 == 0 else kinds[::-1]):
                emulator.reset_calls()
                project, stack = stacks[kind]
                os.environ.update(project.env)
                up = _timed_up(stack)
                result = up["result"]
                times[kind].append(up["s"])
                for part, seconds in up["cpu_s"].items():
                    cpu[kind].setdefault(part, []).append(seconds)
                steps = {k: v for k, v in (result.summary.resource_changes or {}).items() if v}
                assert set(steps) == {"same"}, f"{kind}: a no-change up did {steps}"
                if kind == "ours":
                    assert set(emulator.calls) <= {"ListCustomJobs"}, emulator.calls
        ratios = {kind: [o / b for o, b in zip(times[kind], times[kinds[0]])] for kind in kinds[1:]}
        return {"n": n, "times": times, "ratios": ratios,
                "median_ratio": {kind: statistics.median(values) for kind, values in ratios.items()},
                "median_s": {kind: statistics.median(times[kind]) for kind in kinds},
                "median_cpu_s": {kind: {part: statistics.median(v) for part, v in cpu[kind].items()} for kind in kinds}}


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--quick", action="store_true", help="10 jobs only")
    parser.add_argument("--sizes", default="10,100,1000")
    parser.add_argument("--one", nargs=2, metavar=("KIND", "N"), help=argparse.SUPPRESS)
    parser.add_argument("--no-change", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--profile", type=int, metavar="N", help="profile `up` of N jobs of each kind instead")
    parser.add_argument("--profile-modes", default="timed,apart,profiled", help="of --profile, any of these")
    parser.add_argument("--profile-dir", help=argparse.SUPPRESS)
    parser.add_argument("--profile-no-change", action="store_true", help="of --profile, the no-change `up` instead of the first")
    parser.add_argument("--no-change-rounds", nargs=2, type=int, metavar=("N", "ROUNDS"),
                        help="instead: the no-change `up` of N jobs of each kind, ROUNDS times, taking turns")
    parser.add_argument("--kinds", default="baseline,ours",
                        help="of --no-change-rounds: the kinds, the first the one compared with (also: shaped, declared)")
    args = parser.parse_args()
    if args.no_change_rounds:
        kinds = tuple(args.kinds.split(","))
        if unknown := [kind for kind in kinds if kind not in KINDS]:  # else `program` would run a BareJob under its name
            parser.error(f"--kinds: unknown kind(s) {', '.join(unknown)}; the kinds are {', '.join(KINDS)}")
        found = no_change_rounds(*args.no_change_rounds, kinds=kinds)
        print(json.dumps(found))
        print(f"no-change up of {found['n']} jobs, {args.no_change_rounds[1]} rounds taking turns: "
              + ", ".join(f"{k} median {v:.1f} s" for k, v in found["median_s"].items()))
        for kind, ratios in found["ratios"].items():
            print(f"  {kind}/{kinds[0]} per round " + ", ".join(f"{r:.2f}x" for r in ratios)
                  + f"; median {found['median_ratio'][kind]:.2f}x" + (" (goal at most 1.10x)" if kind == "ours" else ""))
        for kind, parts in found["median_cpu_s"].items():
            print(f"  {kind}: median CPU s " + ", ".join(f"{part} {seconds:.1f}" for part, seconds in sorted(parts.items())))
        return
    if args.one:
        print(json.dumps(one(args.one[0], int(args.one[1]), args.no_change, args.profile_dir)))
        return
    if args.profile:
        from bench import profile_engine

        profile_engine.main(args.profile, args.profile_modes, args.profile_no_change)
        return
    sizes = [10] if args.quick else [int(s) for s in args.sizes.split(",")]
    rows = []
    for n in sizes:
        for kind in ("baseline", "ours"):
            command = [sys.executable, "-m", "bench.engine", "--one", kind, str(n)] + (["--no-change"] if n == max(sizes) else [])
            done = subprocess.run(command, cwd=ROOT, capture_output=True, text=True)
            if done.returncode != 0:
                sys.exit(f"{kind} {n}: {done.stderr[-3000:]}")
            rows.append(json.loads(done.stdout.strip().splitlines()[-1]))
            print(json.dumps(rows[-1]), flush=True)
    print()
    print(f"{'jobs':>5} {'kind':>8} {'preview s':>10} {'up s':>8} {'program MiB':>12} {'host MiB':>9} {'state B/job':>12}")
    for r in rows:
        print(f"{r['n']:>5} {r['kind']:>8} {r['preview_s']:>10.1f} {r['up_s']:>8.1f} {r['program_peak_mib']:>12.0f} "
              f"{r['host_peak_mib']:>9.0f} {r['state_bytes_per_job']:>12.0f}")
    for n in sizes:
        ours, base = (next(r for r in rows if r["n"] == n and r["kind"] == k) for k in ("ours", "baseline"))
        print(f"{n} jobs, ours/baseline: preview {ours['preview_s'] / base['preview_s']:.2f}x, up {ours['up_s'] / base['up_s']:.2f}x, "
              f"state per job {ours['state_bytes_per_job'] / base['state_bytes_per_job']:.2f}x")
    for r in rows:
        if r["n"] == max(sizes):
            print(f"state of one job ({r['kind']}), bytes by key: {json.dumps(r['state_of_one_job'])}")
    for r in rows:
        if "no_change_up_s" in r:
            print(f"no-change up of {r['n']} ({r['kind']}): {r['no_change_up_s']:.1f} s, steps {r['no_change_steps']}, "
                  f"Vertex calls {r['no_change_vertex_calls']}")
    changeless = {r["kind"]: r for r in rows if "no_change_up_s" in r}
    if len(changeless) == 2:
        ours, base = changeless["ours"], changeless["baseline"]
        print(f"no-change up of {ours['n']}, ours/baseline: {ours['no_change_up_s'] / base['no_change_up_s']:.2f}x "
              f"(goal at most 1.10x)")


if __name__ == "__main__":
    main()
