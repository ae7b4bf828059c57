"""Where the extra `up` time goes: `python -m bench.engine --profile N`.

N jobs of each kind (the baseline's bare dynamic resources, ours), each in a fresh process and
stack as bench.engine runs them, twice:

1. timed: every provider call the dynamic provider host serves during the `up` (start, end,
   thread: bench/host_profile/sitecustomize.py), and the emulator's own time per JobService
   method (it serves in the bench process, beside the inline program);
2. profiled: the same, with each host call under its own cProfile.Profile (per thread, wall
   clock) and the program's thread (the inline program and the SDK's event loop) under one.

With `--profile-no-change`, the `up` profiled is a second one with nothing changed (the
refresh's reads, then a Check and a Diff per job), not the stack's first.

Printed: the `up` wall time; per host method the calls, their summed and mean time and how
many ran at once; the split of a Create (ours) by function, summed over the calls; the
program thread's time by function. Run 2 is slower than run 1 (cProfile's cost): its
figures say where time goes, run 1's how much.
"""

from __future__ import annotations

import json
import os
import pstats
import subprocess
import sys
import tempfile
import threading
import time
from collections import defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
EMULATOR_TIME: dict[str, float] = defaultdict(float)
_emulator_lock = threading.Lock()


def program_profile():
    import cProfile

    return cProfile.Profile()


def time_emulator(emulator) -> None:
    """The emulator's store methods, timed into EMULATOR_TIME (seconds summed over calls)."""
    store = emulator._store
    for name in ("create", "get", "list_page", "cancel"):
        method = getattr(store, name)

        def timed(*args, _method=method, _name=name, **kwargs):
            start = time.perf_counter()
            try:
                return _method(*args, **kwargs)
            finally:
                with _emulator_lock:
                    EMULATOR_TIME[_name] += time.perf_counter() - start

        setattr(store, name, timed)


class EmulatorApart:
    """The emulator in a process of its own (only `address`): whether the Vertex calls' time is
    the bench process's, where the emulator otherwise serves beside the inline program."""

    def __enter__(self) -> EmulatorApart:
        code = ("import sys; from tests.emulator import JobServiceEmulator; e = JobServiceEmulator(); "
                "print(e.start(), flush=True); sys.stdin.read(); e.stop()")
        self._process = subprocess.Popen([sys.executable, "-c", code], cwd=ROOT, stdin=subprocess.PIPE,
                                         stdout=subprocess.PIPE, text=True)
        self.address = self._process.stdout.readline().strip()
        return self

    def __exit__(self, *exc) -> None:
        self._process.stdin.close()
        self._process.wait(timeout=30)


def _calls(folder: Path) -> list[dict]:
    return [json.loads(line) for f in sorted(folder.glob("calls-*.jsonl")) for line in f.read_text().splitlines()]


def _most_at_once(calls: list[dict]) -> int:
    events = sorted([(c["start"], 1) for c in calls] + [(c["end"], -1) for c in calls])
    now = most = 0
    for _, step in events:
        now += step
        most = max(most, now)
    return most


def _host_summary(figures: dict, calls: list[dict]) -> list[str]:
    which = "no-change up" if "no_change_up_s" in figures else "up"
    lines = [f"  {which} {figures.get('no_change_up_s', figures['up_s']):.1f} s; CPU s: "
             + ", ".join(f"{k} {v:.1f}" for k, v in figures.get("up_cpu_s", {}).items())
             + "; emulator time by method (s, summed): "
             + ", ".join(f"{k} {v:.2f}" for k, v in sorted(figures.get("emulator_s", {}).items()))]
    if times := figures.get("program_times"):
        lines.append(f"  program: started at +{times['start'] - figures['up_start']:.1f} s of the up, "
                     f"its jobs registered by +{times['registered'] - figures['up_start']:.1f} s")
    by_method = defaultdict(list)
    for c in calls:
        by_method[c["method"]].append(c)
    for method, cs in sorted(by_method.items()):
        total = sum(c["end"] - c["start"] for c in cs)
        first, last = min(c["start"] for c in cs), max(c["end"] for c in cs)
        lines.append(
            f"  host {method:<7} {len(cs):>5} calls, {total:7.2f} s summed, {1000 * total / len(cs):7.1f} ms mean, "
            f"{total / (last - first):.2f} at once on average, at most {_most_at_once(cs)}, from +{first - figures['up_start']:.1f} s to "
            f"+{last - figures['up_start']:.1f} s of the up"
        )
    return lines


def _rows(stats: pstats.Stats, keep, sort: int, limit: int) -> list[str]:
    """(calls, tottime, cumtime) of the functions `keep` accepts, largest `sort` column first."""
    rows = [(key, value) for key, value in stats.stats.items() if keep(key)]
    rows.sort(key=lambda kv: kv[1][sort], reverse=True)
    out = []
    for (file, line, func), (_, calls, tottime, cumtime, _) in rows[:limit]:
        where = file.split("site-packages/")[-1].replace(str(ROOT) + "/", "")
        out.append(f"    {calls:>7} {tottime:9.2f} {cumtime:9.2f}  {where}:{line}({func})")
    return out


def _profile_summary(kind: str, folder: Path) -> list[str]:
    lines = []
    for method in ("Read", "Check", "Diff", "Create"):
        files = sorted(str(f) for f in folder.glob(f"{method}-*.prof"))
        if not files:
            continue
        stats = pstats.Stats(*files)
        lines.append(f"  {method} ({len(files)} calls, cProfile summed over them): calls, own s, cumulative s")
        ours = lambda key: "components/" in key[0] or "bench/" in key[0]  # noqa: E731
        lines += _rows(stats, ours, 3, 16)
        lines.append(f"  {method}, the SDK's host, grpc and Google's client: by cumulative s")
        theirs = lambda key: any(part in key[0] for part in ("pulumi/dynamic", "pulumi/runtime/rpc", "google/api_core", "grpc/_channel", "dill/"))  # noqa: E731,E501
        lines += _rows(stats, theirs, 3, 10)
        lines.append(f"  {method}, where the time is spent (own s)")
        lines += _rows(stats, lambda key: True, 2, 8)
        for top in sorted(stats.stats.items(), key=lambda kv: kv[1][2], reverse=True)[:3]:
            lines.append(f"  {method}, who spends the time in {top[0][2]} (cumulative s by caller)")
            callers = sorted(top[1][4].items(), key=lambda kv: kv[1][3], reverse=True)[:4]
            for (file, line, func), caller in callers:
                where = file.split("site-packages/")[-1].replace(str(ROOT) + "/", "")
                lines.append(f"    {caller[3]:9.2f}  {where}:{line}({func})")
    program = folder / "program.prof"
    if program.exists():
        stats = pstats.Stats(str(program))
        total = max(v[3] for v in stats.stats.values())
        # Waiting, not working: the event loop's poll, the thread pool's queue, a lock, a sync gRPC call.
        waits = sum(v[2] for (file, _, func), v in stats.stats.items()
                    if any(w in func for w in ("'poll' of 'select.epoll'", "'get' of '_queue", "'acquire' of '_thread.lock'"))
                    or (file.endswith("grpc/_channel.py") and func == "_blocking"))
        lines.append(f"  program thread (inline program + the SDK's event loop): {total:.1f} s at its root, "
                     f"{total - waits:.1f} s of it working (not in epoll, a queue, a lock or a blocking gRPC call); own s:")
        lines += _rows(stats, lambda key: True, 2, 10)
        lines.append("  program thread, ours and the SDK's resource code by cumulative s")
        lines += _rows(stats, lambda key: "components/" in key[0] or "bench/baseline" in key[0] or "pulumi/resource.py" in key[0], 3, 8)
    return lines


def _state_summary(job: dict) -> list[str]:
    """One job's state bytes (its JSON in `pulumi stack export`), key by key: each top-level key's
    `"key": value, ` bytes, and inside `inputs`, `outputs` and `propertyDependencies` per key."""
    size = lambda key, value: len(json.dumps({key: value})) - 2 + 2  # noqa: E731  "key": value plus ", "
    lines = [f"  state of one job: {len(json.dumps(job))} B; by top-level key (B): "
             + ", ".join(f"{k} {size(k, v)}" for k, v in job.items())]
    for part in ("inputs", "outputs", "propertyDependencies"):
        if isinstance(job.get(part), dict):
            lines.append(f"    {part} (B with key): " + ", ".join(f"{k} {size(k, v)}" for k, v in job[part].items()))
    return lines


MODES = {
    "timed": "timed",
    "apart": "timed, the emulator in its own process",
    "nocheckpoints": "timed, PULUMI_SKIP_CHECKPOINTS=true (no checkpoint per step)",
    "profiled": "profiled",
}


def main(n: int, modes: str = "timed,apart,profiled", no_change: bool = False) -> None:
    for mode in (MODES[m] for m in modes.split(",")):
        for kind in ("baseline", "ours"):
            with tempfile.TemporaryDirectory() as tmp:
                env = dict(os.environ, BENCH_ENGINE_CPROFILE="1" if mode == "profiled" else "0",
                           BENCH_EMULATOR_APART="1" if "own process" in mode else "0")
                if "checkpoint" in mode:
                    env["PULUMI_SKIP_CHECKPOINTS"] = "true"  # the engine writes the state once, at the end
                command = [sys.executable, "-m", "bench.engine", "--one", kind, str(n), "--profile-dir", tmp]
                command += ["--no-change"] if no_change else []
                done = subprocess.run(command, cwd=ROOT, capture_output=True, text=True, env=env)
                if done.returncode != 0:
                    sys.exit(f"{kind} {n}: {done.stderr[-3000:]}")
                figures = json.loads(done.stdout.strip().splitlines()[-1])
                print(f"{mode}, {kind}, {n} jobs:")
                print("\n".join(_host_summary(figures, _calls(Path(tmp)))))
                if mode == "timed":  # the state is the same in every mode
                    print("\n".join(_state_summary(figures["one_job"])))
                if mode == "profiled":
                    print("\n".join(_profile_summary(kind, Path(tmp))))
                print(flush=True)
