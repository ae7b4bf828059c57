"""bench/engine.py still runs (its --quick size) under the real CLI; BENCHMARKS.md reports its full run."""

import re
import subprocess
import sys

import pytest

from tests.engine.project import ROOT

pytestmark = pytest.mark.engine


def test_the_engine_benchmark_runs_and_a_no_change_up_only_reads():
    done = subprocess.run([sys.executable, "-m", "bench.engine", "--quick"], cwd=ROOT, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr[-3000:]
    assert "no-change up of 10 (ours): " in done.stdout
    # The refresh's reads, nothing else: the 10 jobs from one ListCustomJobs by the stack's label.
    assert "Vertex calls {'ListCustomJobs': 1}" in done.stdout


def test_the_profile_says_where_a_create_spends_its_time_in_the_host_and_the_program():
    done = subprocess.run(
        [sys.executable, "-m", "bench.engine", "--profile", "5", "--profile-modes", "timed,profiled"],
        cwd=ROOT, capture_output=True, text=True,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    for kind in ("baseline", "ours"):
        assert f"profiled, {kind}, 5 jobs:" in done.stdout
    assert re.search(r"host Create +5 calls", done.stdout)  # every create the host served, timed
    assert "components/spot_job/protocol/submission.py" in done.stdout  # ours: the exactly-once protocol, profiled
    assert "program thread (inline program + the SDK's event loop)" in done.stdout
    assert "outputs (B with key): __provider" in done.stdout  # the state, key by key


def test_no_change_rounds_take_turns_and_the_profile_can_take_the_no_change_up():
    done = subprocess.run([sys.executable, "-m", "bench.engine", "--no-change-rounds", "5", "2", "--kinds", "baseline,shaped,declared,ours"],
                          cwd=ROOT, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr[-3000:]  # every round's steps `same`, ours only listing: asserted
    assert "no-change up of 5 jobs, 2 rounds taking turns: " in done.stdout
    for kind in ("shaped", "declared", "ours"):
        assert re.search(kind + r"/baseline per round .*; median [0-9.]+x", done.stdout)
    assert "of it, provider host" in done.stdout
    done = subprocess.run(
        [sys.executable, "-m", "bench.engine", "--profile", "5", "--profile-modes", "timed", "--profile-no-change"],
        cwd=ROOT, capture_output=True, text=True,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    assert re.search(r"no-change up [0-9.]+ s", done.stdout)
    assert re.search(r"host Read +5 calls", done.stdout)  # the refresh's reads, timed
