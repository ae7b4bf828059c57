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
