"""bench/engine.py still runs (its --quick size) under the real CLI; BENCHMARKS.md reports its full run."""

import subprocess
import sys

import pytest

from tests.engine.project import ROOT

pytestmark = pytest.mark.engine


def test_the_engine_benchmark_runs_and_a_no_change_up_only_reads():
    done = subprocess.run([sys.executable, "-m", "bench.engine", "--quick"], cwd=ROOT, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr[-3000:]
    assert "no-change up of 10 (ours): " in done.stdout
    assert "Vertex calls {'GetCustomJob': 10}" in done.stdout  # the refresh's reads, nothing else
