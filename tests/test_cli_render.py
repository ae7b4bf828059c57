"""`spot-training render`: run as a user runs it (the console script, its exit code, its output)."""

import json
import os
import subprocess
import sys

from offline import render as offline_render
from offline.program import ROOT
from tests.cli_runner import spot_training, spot_training_in_process
from tests.test_render import BROKEN_STACK

DEV_ORDER = ["tabular/baseline", "vision/eval", "vision/resnet-smoke"]


def job_order(stdout: str) -> list[str]:
    return [line[2:].split(":")[0] for line in stdout.splitlines() if line.startswith("# ")]


def test_render_prints_the_summary_and_each_body_sorted_by_team_then_job():
    done = spot_training("render", "dev")
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("TEAM")
    assert job_order(done.stdout) == DEV_ORDER
    table = done.stdout.split("\n\n")[0].splitlines()[1:]
    assert [f"{line.split()[0]}/{line.split()[1]}" for line in table] == DEV_ORDER
    assert "# vision/resnet-smoke: POST https://us-central1-aiplatform.googleapis.com/v1/projects/acme-ml-dev/locations/us-central1/customJobs" in done.stdout
    assert "digest its tag points to" in done.stderr  # the deploy-time notes, as offline.render gives them


def test_two_renders_are_byte_identical_and_the_same_as_python_m_offline_render():
    # The jobs reach the mocks in the order their inputs resolve (an image look-up, a package build):
    # one run in five used to print dev's jobs in another order.
    env = {k: v for k, v in os.environ.items() if not k.startswith(("GOOGLE_", "CLOUDSDK_", "PULUMI_", "AIPLATFORM_"))}
    # Two processes with different hash seeds; the order itself is held by the test below.
    runs = [spot_training("render", "dev", env={"PYTHONHASHSEED": "1"}).stdout]
    module = [
        subprocess.run(
            [sys.executable, "-m", "offline.render", "dev"], cwd=ROOT, env={**env, "PYTHONHASHSEED": "2"}, capture_output=True, text=True
        ).stdout
    ]
    assert runs[0] and len(set(runs + module)) == 1


def test_render_returns_the_jobs_sorted_whatever_order_they_were_registered_in():
    jobs = offline_render.render("prod")
    assert [(j.team, j.job) for j in jobs] == sorted((j.team, j.job) for j in jobs)


def settings_of(stdout: str) -> dict[str, dict[str, str]]:
    """The SETTINGS table: team/job -> column -> cell."""
    lines = stdout.split("\n\n")[1].splitlines()
    assert lines[0].startswith("SETTINGS"), lines[0]
    header = lines[1]
    starts = [header.index(column) for column in header.split()] + [None]
    rows = {}
    for line in lines[2:]:
        cells = {header.split()[i]: line[starts[i]:starts[i + 1]].strip() for i in range(len(starts) - 1)}
        rows[f"{cells.pop('TEAM')}/{cells.pop('JOB')}"] = cells
    return rows


def test_render_shows_the_settings_that_change_what_runs_and_what_it_costs_defaults_as_defaults():
    done = spot_training_in_process("render", "dev")
    settings = settings_of(done.stdout)
    assert list(settings) == DEV_ORDER
    smoke = settings["vision/resnet-smoke"]
    assert smoke["WAIT_FOR"] == "running (900s)"
    assert smoke["RERUN"] == '"1"'
    assert smoke["ON_DELETE"] == "delete (default)"
    assert smoke["REPLACE_ORDER"] == "cancelFirst (default)"
    assert smoke["RESUBMISSIONS"] == "3 on STOCKOUT (default)"
    assert smoke["STRATEGY_LADDER"] == "SPOT, no fallback (default)"
    baseline = settings["tabular/baseline"]
    assert baseline["WAIT_FOR"] == "none (default)" and baseline["RERUN"] == "- (default)"


def test_the_fallback_ladder_says_which_rung_runs_at_on_demand_price_and_what_auto_resolves_to():
    prod = settings_of(spot_training_in_process("render", "prod").stdout)
    # prod's resnet has a CPU evaluator pool: auto cannot be FLEX_START there.
    assert prod["vision/resnet"]["STRATEGY_LADDER"] == "SPOT → after 3 stockouts STANDARD (auto; on-demand price)"
    assert prod["vision/resnet"]["RESUBMISSIONS"] == "5 on STOCKOUT"
    assert prod["vision/resnet"]["ON_DELETE"] == "cancel"
    # prod's tabular job has a region ladder, within the EU its policy allows.
    assert prod["tabular/baseline"]["STRATEGY_LADDER"] == (
        "SPOT in europe-west4 → after 2 stockouts SPOT in europe-west1 → after 4 stockouts STANDARD in europe-west1 (on-demand price)"
    )


LADDER_STACK = """\
config:
  gcp:project: acme-ml-dev
  gcp:region: us-central1
  spot-training:environment: dev
  spot-training:policy: {allowedStrategies: [SPOT, FLEX_START, STANDARD]}
  spot-training:teams:
    vision:
      members: [group:vision-ml@acme.example]
      jobs:
        l4:
          workerPoolSpecs:
            - machineSpec: {machineType: g2-standard-8, acceleratorType: NVIDIA_L4, acceleratorCount: 1}
              containerSpec: {imageUri: "us-docker.pkg.dev/vertex-ai/training/pytorch-gpu.2-4.py310:latest"}
          onDelete: keep
          replaceOrder: submitFirst
          resubmission:
            maxResubmissions: 4
            onOtherFailures: true
            stopWithoutProgress: 3
            fallback:
              - {afterStockouts: 2, strategy: auto}
              - {afterStockouts: 3, strategy: STANDARD}
        standard:
          workerPoolSpecs:
            - machineSpec: {machineType: n1-standard-4}
              containerSpec: {imageUri: "us-docker.pkg.dev/vertex-ai/training/tf-cpu.2-17.py310:latest"}
          scheduling: {strategy: STANDARD}
"""


def test_auto_resolves_to_flex_start_for_an_l4_job_and_a_standard_job_is_on_demand(tmp_path):
    (tmp_path / "Pulumi.dev.yaml").write_text(LADDER_STACK)
    done = spot_training_in_process("render", "dev", stacks_dir=tmp_path)
    assert done.returncode == 0, done.stderr
    settings = settings_of(done.stdout)
    l4 = settings["vision/l4"]
    assert l4["STRATEGY_LADDER"] == "SPOT → after 2 stockouts FLEX_START (auto) → after 3 stockouts STANDARD (on-demand price)"
    assert l4["RESUBMISSIONS"] == "4 on any failure, stop after 3 without progress"
    assert l4["ON_DELETE"] == "keep" and l4["REPLACE_ORDER"] == "submitFirst"
    assert settings["vision/standard"]["STRATEGY_LADDER"] == "STANDARD (on-demand price)"


def test_render_out_writes_one_body_per_job_and_no_command_that_submits_it(tmp_path):
    """The bodies hold placeholders (a digest known at deploy, secrets) and the labels `up` finds its
    jobs by: a copy-and-run curl would submit a job outside the stack. So none is printed."""
    done = spot_training_in_process("render", "dev", "--out", str(tmp_path / "out"))
    assert done.returncode == 0, done.stderr
    assert sorted(p.name for p in (tmp_path / "out").glob("*.json")) == ["tabular-baseline.json", "vision-eval.json", "vision-resnet-smoke.json"]
    body = json.loads((tmp_path / "out" / "vision-eval.json").read_text())
    assert body["displayName"] == "vision-eval"
    assert f"# vision/eval: {tmp_path}/out/vision-eval.json" in done.stdout
    assert "curl" not in done.stdout and "Authorization" not in done.stdout
    assert "not for submission" in done.stdout and "pulumi up" in done.stdout


def test_a_job_filter_renders_only_that_job_or_that_team(tmp_path):
    one = spot_training_in_process("render", "dev", "vision/resnet-smoke")
    assert one.returncode == 0, one.stderr
    assert job_order(one.stdout) == ["vision/resnet-smoke"]
    assert list(settings_of(one.stdout)) == ["vision/resnet-smoke"]
    assert "tabular" not in one.stdout and "vision/eval" not in one.stderr
    team = spot_training_in_process("render", "dev", "vision")
    assert job_order(team.stdout) == ["vision/eval", "vision/resnet-smoke"]
    two = spot_training_in_process("render", "dev", "tabular/baseline", "vision/eval")
    assert job_order(two.stdout) == ["tabular/baseline", "vision/eval"]


def test_a_job_filter_the_stack_does_not_have_is_a_usage_error_with_a_did_you_mean():
    done = spot_training_in_process("render", "dev", "vision/resnet-smok")
    assert done.returncode == 2 and done.stdout == ""
    assert "vision/resnet-smok is not a job of stack dev" in done.stderr and "did you mean vision/resnet-smoke?" in done.stderr
    done = spot_training_in_process("render", "dev", "visoin")
    assert done.returncode == 2 and "visoin is not a team of stack dev" in done.stderr and "did you mean vision?" in done.stderr


def test_summary_mode_prints_the_tables_and_no_request_body():
    done = spot_training_in_process("render", "dev", "--summary")
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("TEAM") and "\nSETTINGS" in done.stdout and "\nPRICES" in done.stdout
    assert job_order(done.stdout) == [] and "{" not in done.stdout
    assert len(done.stdout.splitlines()) < 25


def test_on_a_terminal_every_row_fits_its_width():
    """rich's wrap and fold, as a terminal 100 columns wide sees it (TTY_COMPATIBLE: rich's own switch)."""
    done = spot_training("render", "prod", "--summary", env={"TTY_COMPATIBLE": "1", "COLUMNS": "100", "NO_COLOR": "1"})
    assert done.returncode == 0, done.stderr
    widest = max(done.stdout.splitlines(), key=len)
    assert len(widest) <= 100, widest
    # Wrapped, not cut: what the rows say is all there.
    assert "resnet" in done.stdout and "vision-resnet" not in done.stdout
    assert "STANDARD" in done.stdout and "europe-west1" in done.stdout and "(on-demand" in done.stdout


def test_the_summary_does_not_show_a_placeholder_digest_as_if_it_were_one():
    done = spot_training_in_process("render", "dev", "--summary")
    eval_row = next(line for line in done.stdout.splitlines() if line.startswith("vision   eval"))
    assert "sha256:0000" not in eval_row and "eval (built at deploy)" in eval_row


def test_an_invalid_stack_is_one_clean_message_and_exit_1(tmp_path):
    (tmp_path / "Pulumi.dev.yaml").write_text(BROKEN_STACK)
    done = spot_training_in_process("render", "dev", stacks_dir=tmp_path)
    assert done.returncode == 1
    assert "Traceback" not in done.stderr and done.stdout == ""
    assert done.stderr.startswith("error: invalid stack config:")
    assert "spot-training:teams.vision.jobs.smoke.scheduling.strategy" in done.stderr


def test_an_unknown_stack_names_the_stacks_there_are_and_exits_2():
    done = spot_training_in_process("render", "staging")
    assert done.returncode == 2
    assert "no stack 'staging'" in done.stderr and "(stacks: dev, prod)" in done.stderr


def test_a_rung_past_max_resubmissions_is_said_never_to_be_reached():
    [job] = [j for j in offline_render.render("prod") if j.job == "resnet"]
    knobs = {**job.knobs, "resubmission": {"maxResubmissions": 2, "fallback": [{"afterStockouts": 2, "strategy": "auto"}, {"afterStockouts": 3, "strategy": "STANDARD"}]}}
    rendered = offline_render.ladder(offline_render.RenderedJob(job.team, job.job, job.parent, job.body, knobs=knobs))
    assert rendered == (
        "SPOT → after 2 stockouts STANDARD (auto; on-demand price) → after 3 stockouts STANDARD (never reached: at most 2 resubmissions)"
    )


def test_an_out_that_is_a_file_or_cannot_be_made_is_one_error_before_anything_is_printed(tmp_path):
    (tmp_path / "taken").write_text("a file\n")
    for out in (tmp_path / "taken", tmp_path / "taken" / "below"):
        done = spot_training_in_process("render", "dev", "--out", str(out))
        assert done.returncode == 2 and done.stdout == "", done.stderr
        assert f"--out {out}" in done.stderr and "Traceback" not in done.stderr and "unexpected" not in done.stderr
        assert len(done.stderr.strip().splitlines()) == 1


def test_an_unknown_stack_with_out_leaves_no_empty_directory_behind(tmp_path):
    done = spot_training_in_process("render", "staging", "--out", str(tmp_path / "bodies"))
    assert done.returncode == 2
    assert not (tmp_path / "bodies").exists()
