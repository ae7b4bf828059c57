"""Beyond one stack: 5,000 jobs across 200 teams in one stack, and the same teams split into 4 stacks of 50.

What is measured, each in a fresh child process as in bench.program_scale
(`python -m bench.stack_split --child VARIANT JOBS TEAMS PART PARTS`): the
render's wall time under Pulumi's mocks, the process's peak RSS, and the
state's size, estimated as the engine would store the resources' inputs: the
compact JSON of every registered resource's inputs (the mocks receive them as
the engine would), component resources included, `__provider` blobs included.
A job's outputs add to this once it is deployed (bench.footprint: its state is
1.6x a bare one), so the real state is larger; the ratio between stacks holds.

- whole: one stack of JOBS jobs across TEAMS teams (bench.measure.stack_config).
- split: the same teams, PARTS stacks of TEAMS / PARTS teams each, each stack
  rendered on its own (as `pulumi up` would run per stack); part i holds teams
  i*TEAMS/PARTS .. (i+1)*TEAMS/PARTS - 1 and their jobs.
- baseline, whole stack only: bench.baseline, for the ratio.

    uv run python -m bench.stack_split [--quick]
"""

from __future__ import annotations

import argparse
import json
import resource
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
JOBS, TEAMS, PARTS = 5000, 200, 4
QUICK = (500, 20, 4)
STACK = "bench"


def part_config(jobs: int, teams: int, part: int, parts: int) -> dict:
    from bench import measure

    config = measure.stack_config(jobs, teams)
    names = list(config["spot-training:teams"])
    size = len(names) // parts
    keep = names[part * size : (part + 1) * size] if parts > 1 else names
    config["spot-training:teams"] = {name: config["spot-training:teams"][name] for name in keep}
    return config


def state_bytes(mocks) -> int:
    """Compact JSON bytes of every registered resource's inputs (what the engine keeps as their inputs)."""
    return sum(len(json.dumps(r.inputs, separators=(",", ":"), default=str)) for r in mocks.resources)


def child(variant: str, jobs: int, teams: int, part: int, parts: int) -> None:
    inherited_peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    from bench import measure

    measure.preload_gcp()
    if variant == "ours":
        import components.team  # noqa: F401
        from offline.program import run
    else:
        from bench.baseline import run
    rss_imports = measure.rss_kb()
    config = part_config(jobs, teams, part, parts)
    mocks = measure.CountingMocks()
    t = time.perf_counter()
    run(config, STACK, mocks)
    seconds = time.perf_counter() - t
    n_jobs = sum(len(team["jobs"]) for team in config["spot-training:teams"].values())
    print(json.dumps({
        "seconds": seconds, "rss_inherited_kb": inherited_peak, "rss_imports_kb": rss_imports,
        "rss_peak_kb": measure.peak_rss_kb(), "state_bytes": state_bytes(mocks), "resources": len(mocks.resources),
        "jobs": n_jobs, "teams": len(config["spot-training:teams"]),
    }))


def measure_child(variant: str, jobs: int, teams: int, part: int, parts: int) -> dict:
    out = subprocess.run(
        [sys.executable, "-m", "bench.stack_split", "--child", variant, *map(str, (jobs, teams, part, parts))],
        cwd=ROOT, check=True, capture_output=True, text=True,
    ).stdout
    run = json.loads(out.strip().splitlines()[-1])
    assert run["rss_inherited_kb"] < run["rss_imports_kb"], run
    return run


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help=f"{QUICK[0]} jobs / {QUICK[1]} teams")
    parser.add_argument("--child", nargs=5, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        variant, *numbers = args.child
        return child(variant, *map(int, numbers))

    from bench.stats import table

    jobs, teams, parts = QUICK if args.quick else (JOBS, TEAMS, PARTS)
    whole = measure_child("ours", jobs, teams, 0, 1)
    base = measure_child("baseline", jobs, teams, 0, 1)
    split = [measure_child("ours", jobs, teams, i, parts) for i in range(parts)]
    assert sum(r["jobs"] for r in split) == whole["jobs"] == jobs and sum(r["resources"] for r in split) == whole["resources"], (whole, split)

    print(f"stack split: {jobs} jobs across {teams} teams, as one stack and as {parts} stacks of {teams // parts} teams; "
          "render under Pulumi's mocks, one fresh process each\n")

    def row(name: str, run: dict) -> list:
        growth = (run["rss_peak_kb"] - run["rss_imports_kb"]) / 1024
        return [
            name, f"{run['jobs']}/{run['teams']}", run["resources"], f"{run['seconds']:.1f}", f"{run['rss_peak_kb'] / 1024:.0f}",
            f"{growth:.0f}", f"{run['state_bytes'] / 2**20:.1f}", f"{run['state_bytes'] / run['jobs'] / 1024:.2f}",
        ]

    rows = [row("one stack (ours)", whole), row("one stack (baseline)", base)]
    rows += [row(f"split {i + 1}/{parts} (ours)", run) for i, run in enumerate(split)]
    print(table(["stack", "jobs/teams", "resources", "render s", "peak RSS MiB", "growth MiB", "state inputs MiB", "KiB/job"], rows))
    print()
    worst = max(split, key=lambda r: r["seconds"])
    print("the split stacks together register every resource of the one stack (asserted)")
    print(f"one stack ours/baseline: time {whole['seconds'] / base['seconds']:.2f}, peak RSS {whole['rss_peak_kb'] / base['rss_peak_kb']:.2f}")
    print(
        f"split: slowest stack {worst['seconds']:.1f} s ({worst['seconds'] / whole['seconds']:.2f} of the one stack), "
        f"all {parts} one after another {sum(r['seconds'] for r in split):.1f} s; "
        f"largest peak {max(r['rss_peak_kb'] for r in split) / 1024:.0f} MiB ({max(r['rss_peak_kb'] for r in split) / whole['rss_peak_kb']:.2f} of the one stack); "
        f"largest state {max(r['state_bytes'] for r in split) / 2**20:.1f} MiB ({max(r['state_bytes'] for r in split) / whole['state_bytes']:.2f})"
    )


if __name__ == "__main__":
    main()
