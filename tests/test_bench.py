"""The benchmark scripts still run (their --quick size), and what they check holds.

No timings are asserted here: BENCHMARKS.md reports those, from full runs.
"""

import subprocess
import sys

import pytest

from tests.program import ROOT

pytestmark = pytest.mark.bench


def quick(name: str) -> str:
    done = subprocess.run([sys.executable, "-m", f"bench.{name}", "--quick"], cwd=ROOT, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr[-2000:]
    return done.stdout


def test_program_scale_registers_the_same_resources_as_its_baseline():
    assert "(the same in both; asserted)" in quick("program_scale")


def test_stack_split_renders_every_job_of_the_one_stack_across_its_parts():
    assert "the split stacks together register every resource of the one stack (asserted)" in quick("stack_split")


def test_footprint_measures_the_real_provider_blob():
    assert "components.spot_job.provider" in quick("footprint")


def test_operations_compares_with_the_sdk_whose_jobs_really_landed():
    out = quick("operations")
    assert "SDK's jobs landed in the emulator: yes; same CustomJob as ours" in out
    assert "Where a warm create and read spend their time" in out


def test_up_submits_each_job_once_beside_the_sdk():
    out = quick("up")
    rows = [line.split(None, 1) for line in out.splitlines() if line[:1].isdigit() and "CustomJob" in line]
    # Per job: one create between the look before it and the look after it (submission.py).
    assert rows == [["1", "1 CreateCustomJob + 2 ListCustomJobs"], ["10", "1 CreateCustomJob + 2 ListCustomJobs"]]


def test_api_calls_counts_no_call_for_a_diff():
    [row] = [line for line in quick("api_calls").splitlines() if line.startswith("diff, no change")]
    assert row.split()[-1] == "0"


def test_a_burst_submits_every_job_once():
    out = quick("burst")
    assert "S=10: all" in out and "none failed, none twice (each job's own submission key): yes" in out
    assert "refresh: all 150 read, none failed, no RESOURCE_EXHAUSTED: yes" in out


def test_a_mass_delete_cancels_every_job_and_leaves_none_active():
    out = quick("mass_delete")
    for run in ("destroy, ours", "destroy, unbounded"):
        assert f"{run}: every job cancelled, none left active: yes" in out
    for run in ("replace, ours", "replace, unbounded"):
        assert f"{run}: every job cancelled, none left active, every new job submitted: yes" in out


def test_failover_counts_calls_and_its_month_model_is_deterministic():
    out = quick("failover")
    assert "moves region: location rung: us-central1 SPOT -> us-east1 SPOT" in out
    assert "every attempt's record deleted (asserted)" in out
    for policy in ("same-region SPOT retries", "strategy ladder", "region ladder", "STANDARD from the start (baseline)"):
        assert f"\n{policy} " in out
    assert quick("failover") == out  # seeded: the same seed, the same tables


def test_checkpoint_overhead_trains_the_same_model_with_and_without_checkpoints():
    out = quick("checkpoint")
    assert "same model with and without checkpoints: yes (asserted)" in out
    for store in ("local", "bucket"):
        assert f"\n{store}: checkpoint share " in out


def test_host_calls_serves_each_kinds_calls_through_the_sdk_host():
    out = quick("host_calls")  # ours: the reads served by listings (asserted in the script)
    assert "a no-change up's calls per job (Read + 2 Diff + Check): baseline" in out


def test_engine_rounds_refuse_a_misspelt_kind_before_making_any_stack():
    done = subprocess.run([sys.executable, "-m", "bench.engine", "--no-change-rounds", "5", "1", "--kinds", "baseline,decalred"],
                          cwd=ROOT, capture_output=True, text=True, timeout=60)
    assert done.returncode == 2
    assert "--kinds: unknown kind(s) decalred; the kinds are baseline, shaped, declared, ours" in done.stderr


def test_sandbox_times_a_job_in_it_beside_the_same_module_run_directly():
    out = quick("sandbox")
    assert "direct (baseline): the module, the same python and environment" in out
    assert "sandbox: CreateCustomJob to SUCCEEDED" in out and "overhead: " in out
    assert "spot-training sandbox up dev" in out or "skipped: " in out
