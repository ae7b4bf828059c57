"""Program scale: rendering stacks of 10, 100 and 1,000 jobs, against a baseline without the project's layers.

What is measured: the wall time of rendering a stack under Pulumi's mocks
(`pulumi.runtime.set_mocks`, the project's OfflineMocks), and the peak RSS of
the process that did it. Each (variant, size) runs in a fresh child process
(`python -m bench.program_scale --child VARIANT JOBS TEAMS`), which reports
its RSS right after imports (/proc/self/statm), the render's wall time, and
its peak RSS at the end (`getrusage(RUSAGE_SELF).ru_maxrss`, nothing
subtracted); the program's own growth = peak - RSS after imports.
Children run interleaved, ours then baseline then the other way round, for
ROUNDS rounds; figures are medians. On Linux a child's ru_maxrss starts from
its parent's peak (inherited across fork and exec), so this parent never
imports pulumi (the resource check below runs in a child of its own) and each
child checks that the peak it inherited is below its RSS after imports.

- ours: the real program, `offline.program.run(config, stack, OfflineMocks())`
  (it runs `__main__.py`: config validation, the components, SpotTrainingJob).
  The config (bench.measure.stack_config) is shaped like stacks/Pulumi.dev.yaml:
  per team one member and one pushed image `trainer: {name: trainer, tag: v1}`,
  jobs like dev's resnet-smoke (a T4 GPU container on `${images.trainer}`).
  No packages and no built images: they shell out to uv and docker.
- baseline (bench.baseline): the same pulumi_gcp resources and invokes,
  registered directly, and a bare `pulumi.dynamic.Resource` per job with the
  same REST inputs; no components, no config or spec validation.

Checked (a plain assertion, not a test): both register the same number of
resources of each type and the same invokes; ours registers 4 component
resources per team on top. At the smallest size a child also checks that
every custom resource has the same name and inputs in both.

Linearity: per-job time and per-job memory growth per size, the least-squares
slope of time and growth against jobs, per-job cost at the largest size over
the smallest (which fixed costs push below 1), and the marginal cost per job
between successive sizes (equal if cost is linear; the sizes also grow teams:
5, 20, 50).

Like for like (`--like-for-like`): the program tunes the garbage collector
(`__main__.py`: gc.freeze() and a youngest-generation threshold of 20,000),
a bare pulumi_gcp program does not; with the option the baseline also runs a
second time given the same tuning (variant baseline-gc, applied after its
imports), and a last table prints ours against both readings.

    uv run python -m bench.program_scale [--quick] [--like-for-like]
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
SIZES = [(10, 5), (100, 20), (1000, 50)]  # (jobs, teams)
QUICK_SIZES = [(10, 5), (100, 20)]
ROUNDS, QUICK_ROUNDS = 3, 1
VARIANTS = ("ours", "baseline")
# --like-for-like: the baseline again, given the collector tuning the program's
# __main__.py applies (gc.freeze() and these thresholds; keep them the same).
LIKE_FOR_LIKE = "baseline-gc"
GC_THRESHOLD = (20_000, 20, 20)
STACK = "bench"


def child(variant: str, jobs: int, teams: int) -> None:
    """One render in this (fresh) process; prints its figures as JSON."""
    inherited_peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss  # before any import: the parent's
    t0 = time.perf_counter()
    from bench import measure

    measure.preload_gcp()
    if variant == "ours":
        import components.team  # noqa: F401 (what __main__.py imports)
        from offline.program import run
    else:
        from bench.baseline import run
    if variant == LIKE_FOR_LIKE:
        import gc

        gc.freeze()
        gc.set_threshold(*GC_THRESHOLD)
    import_seconds = time.perf_counter() - t0
    rss_imports = measure.rss_kb()
    config = measure.stack_config(jobs, teams)
    mocks = measure.CountingMocks()
    t1 = time.perf_counter()
    run(config, STACK, mocks)
    seconds = time.perf_counter() - t1
    print(json.dumps({
        "seconds": seconds,
        "rss_inherited_kb": inherited_peak,
        "import_seconds": import_seconds,
        "rss_imports_kb": rss_imports,
        "rss_peak_kb": measure.peak_rss_kb(),
        "counts": measure.custom_counts(mocks),
        "components": measure.component_count(mocks),
    }))


def measure_child(variant: str, jobs: int, teams: int) -> dict:
    out = subprocess.run(
        [sys.executable, "-m", "bench.program_scale", "--child", variant, str(jobs), str(teams)],
        cwd=ROOT, check=True, capture_output=True, text=True,
    ).stdout
    return json.loads(out.strip().splitlines()[-1])


def check_same_resources(jobs: int, teams: int) -> None:
    """Both programs register the same custom resources, by name, with the same inputs (`__provider` aside)."""
    from bench import baseline, measure
    from offline import program

    config = measure.stack_config(jobs, teams)
    ours = program.run(config, STACK, measure.CountingMocks())
    base = baseline.run(config, STACK, measure.CountingMocks())

    def by_name(mocks):
        return {
            (measure.kind(r.typ), r.name): {k: v for k, v in r.inputs.items() if k != "__provider"}
            for r in mocks.resources
            if not measure.is_component(r.typ)
        }

    assert by_name(ours) == by_name(base), "the baseline does not register what the program registers"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="sizes 10 and 100, one round")
    parser.add_argument(
        "--like-for-like", action="store_true",
        help="also run the baseline with the program's collector tuning (gc.freeze, thresholds) and print both ratios",
    )
    parser.add_argument("--child", nargs=3, metavar=("VARIANT", "JOBS", "TEAMS"), help=argparse.SUPPRESS)
    parser.add_argument("--check", nargs=2, metavar=("JOBS", "TEAMS"), help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        variant, jobs, teams = args.child
        return child(variant, int(jobs), int(teams))
    if args.check:
        return check_same_resources(*map(int, args.check))

    from bench.stats import median, short, slope, table

    sizes, rounds = (QUICK_SIZES, QUICK_ROUNDS) if args.quick else (SIZES, ROUNDS)
    subprocess.run([sys.executable, "-m", "bench.program_scale", "--check", *map(str, sizes[0])], cwd=ROOT, check=True)
    variants = (*VARIANTS, LIKE_FOR_LIKE) if args.like_for_like else VARIANTS
    runs: dict[tuple[str, int], list[dict]] = {}
    for r in range(rounds):
        for jobs, teams in sizes:
            for variant in variants if r % 2 == 0 else variants[::-1]:
                run = measure_child(variant, jobs, teams)
                assert run["rss_inherited_kb"] < run["rss_imports_kb"], run  # the parent's peak would mask the child's
                runs.setdefault((variant, jobs), []).append(run)

    def med(variant: str, jobs: int, key: str) -> float:
        return median([run[key] for run in runs[(variant, jobs)]])

    def growth_kb(variant: str, jobs: int) -> float:
        return median([run["rss_peak_kb"] - run["rss_imports_kb"] for run in runs[(variant, jobs)]])

    print(f"program scale: render under Pulumi's mocks, one fresh process per measurement, median of {rounds} round(s)\n")
    print("resources registered, per type (the same in both; asserted):")
    for jobs, teams in sizes:
        ours, base = runs[("ours", jobs)][0], runs[("baseline", jobs)][0]
        assert ours["counts"] == base["counts"], (jobs, ours["counts"], base["counts"])
        print(f"  {jobs} jobs / {teams} teams: " + ", ".join(f"{n} {short(k)}" for k, n in ours["counts"].items()))
    print()

    rows = []
    for jobs, teams in sizes:
        ours, base = runs[("ours", jobs)][0], runs[("baseline", jobs)][0]
        custom = sum(n for k, n in ours["counts"].items() if not k.startswith("invoke "))
        t_o, t_b = med("ours", jobs, "seconds"), med("baseline", jobs, "seconds")
        m_o, m_b = med("ours", jobs, "rss_peak_kb") / 1024, med("baseline", jobs, "rss_peak_kb") / 1024
        rows.append([
            f"{jobs}/{teams}", f"{custom} + {ours['components']} components", f"{t_o:.3f}", f"{t_b:.3f}", f"{t_o / t_b:.2f}",
            f"{m_o:.1f}", f"{m_b:.1f}", f"{m_o / m_b:.2f}", f"{t_o / jobs * 1e3:.2f} / {t_b / jobs * 1e3:.2f}",
        ])
    print(table(
        ["jobs/teams", "resources (ours)", "ours s", "base s", "ratio", "ours peak MiB", "base peak MiB", "ratio", "per-job ms ours/base"],
        rows,
    ))
    print()

    rows = []
    for jobs, teams in sizes:
        i_o, i_b = med("ours", jobs, "rss_imports_kb") / 1024, med("baseline", jobs, "rss_imports_kb") / 1024
        g_o, g_b = growth_kb("ours", jobs), growth_kb("baseline", jobs)
        rows.append([
            f"{jobs}/{teams}", f"{i_o:.1f}", f"{i_b:.1f}", f"{g_o / 1024:.1f}", f"{g_b / 1024:.1f}",
            f"{g_o / g_b:.2f}" if g_b else "-", f"{g_o / jobs:.0f} / {g_b / jobs:.0f}",
            f"{med('ours', jobs, 'import_seconds'):.2f} / {med('baseline', jobs, 'import_seconds'):.2f}",
        ])
    print(table(
        ["jobs/teams", "ours RSS after imports MiB", "base", "ours growth MiB", "base growth MiB", "ratio", "growth per job KiB ours/base", "import s ours/base"],
        rows,
    ))
    print()

    xs = [jobs for jobs, _ in sizes]
    (small, _), (large, _) = sizes[0], sizes[-1]
    print("linearity (cost against jobs; teams grow too):")
    for variant in VARIANTS:
        times = [med(variant, j, "seconds") for j in xs]
        growths = [growth_kb(variant, j) for j in xs]
        per_job = {j: t / j for j, t in zip(xs, times)}
        print(
            f"  {variant:8}  time slope {slope(xs, times) * 1e3:.2f} ms/job, "
            f"per-job time at {large} / at {small}: {per_job[large] / per_job[small]:.2f}; "
            f"memory slope {slope(xs, growths):.0f} KiB/job, "
            f"per-job growth at {large} / at {small}: {(growths[-1] / large) / (growths[0] / small) if growths[0] > 0 else float('nan'):.2f}"
        )
        marginal = [
            f"{a}->{b}: {(tb - ta) / (b - a) * 1e3:.2f} ms, {(gb - ga) / (b - a):.0f} KiB"
            for a, b, ta, tb, ga, gb in zip(xs, xs[1:], times, times[1:], growths, growths[1:])
        ]
        print(f"  {'':8}  marginal per job: " + "; ".join(marginal))
    s_o = slope(xs, [med("ours", j, "seconds") for j in xs])
    s_b = slope(xs, [med("baseline", j, "seconds") for j in xs])
    g_o = slope(xs, [growth_kb("ours", j) for j in xs])
    g_b = slope(xs, [growth_kb("baseline", j) for j in xs])
    print(f"  slope ratio ours/baseline: time {s_o / s_b:.2f}, memory {g_o / g_b:.2f}")

    if args.like_for_like:
        print(f"\nlike for like: the baseline given the program's collector tuning too (gc.freeze(), gc.set_threshold{GC_THRESHOLD}):")
        rows = []
        for jobs, teams in sizes:
            t_o, t_d, t_l = (med(v, jobs, "seconds") for v in ("ours", "baseline", LIKE_FOR_LIKE))
            m_o, m_d, m_l = (med(v, jobs, "rss_peak_kb") / 1024 for v in ("ours", "baseline", LIKE_FOR_LIKE))
            rows.append([
                f"{jobs}/{teams}", f"{t_o:.3f}", f"{t_d:.3f}", f"{t_l:.3f}", f"{t_o / t_d:.2f}", f"{t_o / t_l:.2f}",
                f"{m_o:.1f}", f"{m_d:.1f}", f"{m_l:.1f}", f"{m_o / m_d:.2f}", f"{m_o / m_l:.2f}",
            ])
        print(table(
            ["jobs/teams", "ours s", "base s", "base+gc s", "ratio", "like-for-like ratio",
             "ours peak MiB", "base peak MiB", "base+gc peak MiB", "ratio", "like-for-like ratio"],
            rows,
        ))


if __name__ == "__main__":
    main()
