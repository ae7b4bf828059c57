"""The pull-request workflow: what a reviewer relies on it to do, read from the file itself."""

import os
import subprocess
import sys

import yaml

from tests.program import ROOT, STACKS

WORKFLOW = ROOT / ".github" / "workflows" / "infrastructure.yml"


def workflow() -> dict:
    document = yaml.safe_load(WORKFLOW.read_text())
    document["on"] = document.pop(True, document.get("on"))  # YAML 1.1 reads the key `on` as true
    return document


def pulumi_step(job: dict) -> dict:
    [step] = [s for s in job["steps"] if str(s.get("uses", "")).startswith("pulumi/actions@")]
    return step["with"]


def stacks_in_repo() -> list[str]:
    return sorted(p.name.split(".")[1] for p in STACKS.glob("Pulumi.*.yaml"))


def test_it_runs_on_pull_requests_and_on_merges_to_main():
    on = workflow()["on"]
    assert on["pull_request"]["branches"] == ["main"] and on["push"]["branches"] == ["main"]


def test_every_stack_in_stacks_is_previewed_and_deployed():
    jobs = workflow()["jobs"]
    assert sorted(jobs["preview"]["strategy"]["matrix"]["stack"]) == stacks_in_repo()
    assert sorted(jobs["up"]["strategy"]["matrix"]["stack"]) == stacks_in_repo()


def test_a_pr_gets_a_refreshed_diff_with_the_policy_pack_posted_as_a_comment():
    job = workflow()["jobs"]["preview"]
    step = pulumi_step(job)
    assert step["command"] == "preview" and step["stack-name"] == "${{ matrix.stack }}"
    assert step["diff"] is True and step["refresh"] is True
    assert step["policyPacks"] == "policy" and step["comment-on-pr"] is True
    assert job["permissions"]["pull-requests"] == "write"
    assert job["if"] == "github.event_name == 'pull_request'"


def test_up_runs_only_on_main_after_the_tests_and_one_stack_at_a_time():
    job = workflow()["jobs"]["up"]
    assert pulumi_step(job)["command"] == "up" and pulumi_step(job)["policyPacks"] == "policy"
    assert "refs/heads/main" in job["if"] and "push" in job["if"]
    assert job["needs"] == "test" and workflow()["jobs"]["preview"]["needs"] == "test"
    assert job["strategy"]["max-parallel"] == 1 and job["environment"] == "${{ matrix.stack }}"


def test_the_tests_job_runs_what_ci_runs():
    steps = workflow()["jobs"]["test"]["steps"]
    assert {"run": "bash .ci/run"} in steps


def test_state_secrets_and_credentials_come_from_repository_variables_and_no_key():
    text = WORKFLOW.read_text()
    assert "credentials_json" not in text and "secrets." not in text  # no key, no stored secret
    for name in ("preview", "up"):
        job = workflow()["jobs"][name]
        assert job["permissions"]["id-token"] == "write"
        [auth] = [s for s in job["steps"] if str(s.get("uses", "")).startswith("google-github-actions/auth@")]
        assert auth["with"] == {
            "workload_identity_provider": "${{ vars.GCP_WORKLOAD_IDENTITY_PROVIDER }}",
            "service_account": "${{ vars.GCP_DEPLOYER_SERVICE_ACCOUNT }}",
        }
        step = pulumi_step(job)
        assert step["cloud-url"] == "${{ vars.PULUMI_BACKEND_URL }}"
        assert step["secrets-provider"] == "${{ vars.PULUMI_SECRETS_PROVIDER }}"
    assert workflow()["env"]["PULUMI_BACKEND_URL"] == "${{ vars.PULUMI_BACKEND_URL }}"


# What a reviewer gets without credentials, and the order deploys keep.

UP_GROUP = "pulumi-up-${{ matrix.stack }}"


def steps_running(job: dict, text: str) -> list[dict]:
    return [s for s in job["steps"] if text in str(s.get("run", ""))]


def uses(job: dict, action: str) -> list[dict]:
    return [s for s in job["steps"] if str(s.get("uses", "")).startswith(f"{action}@")]


def runs_unless_cancelled(step: dict) -> bool:
    condition = str(step.get("if", "")).replace(" ", "")
    return "!cancelled()" in condition or "always()" in condition


def test_every_pr_gets_validate_policy_and_diff_per_stack_with_no_google_credentials():
    job = workflow()["jobs"]["checks"]
    assert job["if"] == "github.event_name == 'pull_request'"
    assert "needs" not in job  # not held back by the tests, nor by a preview that cannot run
    assert sorted(job["strategy"]["matrix"]["stack"]) == stacks_in_repo() and job["strategy"]["fail-fast"] is False
    assert "id-token" not in job.get("permissions", {}) and job["permissions"]["contents"] == "read"
    assert not uses(job, "google-github-actions/auth") and not uses(job, "pulumi/actions")
    for verb in ("validate", "policy", "diff"):
        [step] = steps_running(job, f"spot-training {verb} ${{{{ matrix.stack }}}}")
        assert step["run"].startswith(".ci/summarize "), f"{verb} writes into the job summary"
        assert runs_unless_cancelled(step), f"{verb} runs even when the check before it failed"


def test_the_diff_compares_with_the_base_branch_from_the_full_history():
    job = workflow()["jobs"]["checks"]
    [step] = steps_running(job, "spot-training diff")
    assert "--against origin/${{ github.base_ref }}" in step["run"]
    [checkout] = uses(job, "actions/checkout")
    assert checkout["with"]["fetch-depth"] == 0  # the base branch is there to render at


def test_the_render_runs_into_the_summary_whether_or_not_preview_can():
    jobs = workflow()["jobs"]
    renders = [(name, s) for name, job in jobs.items() for s in steps_running(job, "spot-training render")]
    assert renders, "the PR summary carries every job's request"
    for name, step in renders:
        assert not uses(jobs[name], "google-github-actions/auth"), "the render needs no credentials"
        assert runs_unless_cancelled(step) and step["run"].startswith(".ci/summarize ")
    assert not steps_running(jobs["preview"], "render")


def test_a_pr_preview_never_cancels_or_queues_ahead_of_an_up_on_main():
    jobs = workflow()["jobs"]
    up, preview = jobs["up"]["concurrency"], jobs["preview"]["concurrency"]
    assert up == {"group": UP_GROUP, "cancel-in-progress": False}  # an up is never cut short
    # A newer push to the same PR supersedes its preview; the ref keeps PRs apart.
    assert preview["cancel-in-progress"] is True
    assert "${{ matrix.stack }}" in preview["group"] and "${{ github.ref }}" in preview["group"]
    assert preview["group"].startswith("preview-")  # so it can never evaluate to an up's group
    for name, job in jobs.items():
        if name != "up" and "concurrency" in job:
            assert not str(job["concurrency"]["group"]).startswith("pulumi-up-"), f"{name} shares the up's group"


def test_the_first_pr_of_a_new_stack_creates_it_instead_of_failing():
    jobs = workflow()["jobs"]
    assert pulumi_step(jobs["preview"])["upsert"] is True and pulumi_step(jobs["up"])["upsert"] is True
    cited = [line for line in WORKFLOW.read_text().splitlines() if line.lstrip().startswith("#") and "upsert" in line]
    assert cited, "the workflow says where pulumi/actions documents upsert"


def test_summarize_writes_the_output_under_its_title_and_keeps_the_exit_status(tmp_path):
    summary = tmp_path / "summary.md"
    env = {**os.environ, "GITHUB_STEP_SUMMARY": str(summary)}
    script = ROOT / ".ci" / "summarize"
    failed = subprocess.run(
        [str(script), "dev: validate", "sh", "-c", "echo 'teams.vision: bad' ; echo '```' ; exit 3"],
        env=env, capture_output=True, text=True,
    )
    assert failed.returncode == 3 and "teams.vision: bad" in failed.stdout
    passed = subprocess.run([str(script), "dev: policy", "echo", "no violations"], env=env, capture_output=True, text=True)
    assert passed.returncode == 0
    text = summary.read_text()
    assert "### dev: validate: FAILED (exit 3)" in text and "### dev: policy: passed" in text
    assert "~~~~\nteams.vision: bad\n```\n~~~~" in text and "no violations" in text


# The scheduled resubmission of preempted jobs.

RESUBMIT = ROOT / ".github" / "workflows" / "resubmit.yml"
INTERVAL = "*/30 * * * *"


def resubmit_workflow() -> dict:
    document = yaml.safe_load(RESUBMIT.read_text())
    document["on"] = document.pop(True, document.get("on"))
    return document


def resubmit_job() -> dict:
    return resubmit_workflow()["jobs"]["resubmit"]


def test_resubmission_runs_on_a_documented_schedule_and_by_hand_never_on_a_pr():
    on = resubmit_workflow()["on"]
    assert on["schedule"] == [{"cron": INTERVAL}] and "workflow_dispatch" in on
    assert set(on) == {"schedule", "workflow_dispatch"}
    assert INTERVAL in (ROOT / "docs" / "workflows.md").read_text()
    assert "resubmit.yml` every 30 minutes" in (ROOT / "README.md").read_text()  # the README says the same interval


def test_resubmission_runs_per_stack_from_main_only():
    job = resubmit_job()
    assert sorted(job["strategy"]["matrix"]["stack"]) == stacks_in_repo() and job["strategy"]["fail-fast"] is False
    assert "github.ref == 'refs/heads/main'" in job["if"]  # a dispatch from a branch does nothing
    [checkout] = uses(job, "actions/checkout")
    assert checkout["with"]["ref"] == "main"


def test_resubmission_shares_the_up_group_so_the_two_never_run_at_once():
    assert resubmit_job()["concurrency"] == {"group": UP_GROUP, "cancel-in-progress": False}
    assert workflow()["jobs"]["up"]["concurrency"]["group"] == UP_GROUP


def test_resubmission_waits_out_a_deploy_of_main_instead_of_displacing_it():
    # GitHub keeps one pending run per group and cancels the older: a resubmission
    # queued behind a running up would cancel a pending up. It stands aside instead.
    jobs = resubmit_workflow()["jobs"]
    job = jobs["resubmit"]
    assert job["needs"] == "deploying" and "needs.deploying.outputs.busy != 'true'" in job["if"]
    assert "concurrency" not in jobs["deploying"] and jobs["deploying"]["permissions"] == {"actions": "read"}
    assert "infrastructure.yml" in jobs["deploying"]["steps"][0]["run"]


def test_resubmission_previews_then_gates_then_ups_only_the_jobs_the_gate_names():
    job = resubmit_job()
    runs = [str(s.get("run", "")) for s in job["steps"]]
    [preview] = [i for i, r in enumerate(runs) if "pulumi preview" in r]
    [gate] = [i for i, r in enumerate(runs) if "python -m operations.resubmit_gate" in r]
    [up] = [i for i, r in enumerate(runs) if "pulumi up" in r]
    assert preview < gate < up
    for flag in ("--refresh", "--json", "--policy-pack policy", "--stack ${{ matrix.stack }}"):
        assert flag in runs[preview]
    assert "uv run --locked python -m operations.resubmit_gate" in runs[gate]
    for flag in ("--refresh", "--policy-pack policy", "--target", "--stack ${{ matrix.stack }}"):
        assert flag in runs[up]
    assert "--target-dependents" not in runs[up] and "--skip-preview" not in runs[up]
    assert job["steps"][up]["if"] == "steps.gate.outputs.jobs != '0'"  # nothing to resubmit: no up
    assert job["steps"][gate]["id"] == "gate"
    # No step applies anything another way.
    assert all(s.get("with", {}).get("command") in (None,) for s in uses(job, "pulumi/actions"))
    assert sum("pulumi up" in r for r in runs) == 1


def test_resubmission_uses_the_same_credentials_backend_and_no_pr_rights():
    document = resubmit_workflow()
    job = document["jobs"]["resubmit"]
    assert job["permissions"] == {"contents": "read", "id-token": "write"}
    [auth] = uses(job, "google-github-actions/auth")
    assert auth["with"] == {
        "workload_identity_provider": "${{ vars.GCP_WORKLOAD_IDENTITY_PROVIDER }}",
        "service_account": "${{ vars.GCP_DEPLOYER_SERVICE_ACCOUNT }}",
    }
    assert document["env"]["PULUMI_BACKEND_URL"] == "${{ vars.PULUMI_BACKEND_URL }}"
    text = RESUBMIT.read_text()
    assert "credentials_json" not in text and "secrets." not in text


def run_step(step: dict, tmp_path, plan: str) -> tuple[subprocess.CompletedProcess, dict]:
    """Runs a resubmit.yml step's script as the runner would, with `uv` and `pulumi` stand-ins on PATH."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir(exist_ok=True)
    (bin_dir / "uv").write_text(
        '#!/bin/sh\n[ "$1" = run ] && [ "$2" = --locked ] && shift 2\n'
        f'[ "$1" = python ] && shift && exec "{sys.executable}" "$@"\nexit 99\n'
    )
    (bin_dir / "pulumi").write_text(f'#!/bin/sh\nfor a in "$@"; do echo "$a"; done > "{tmp_path}/pulumi-args"\n')
    for tool in ("uv", "pulumi"):
        (bin_dir / tool).chmod(0o755)
    (tmp_path / "plan.json").write_text((ROOT / "tests" / "previews" / f"{plan}.json").read_text())
    files = {name: tmp_path / name for name in ("summary.md", "output")}
    for path in files.values():
        path.touch()
    env = {
        **os.environ,
        "PATH": f"{bin_dir}{os.pathsep}{os.environ['PATH']}",
        "GITHUB_STEP_SUMMARY": str(files["summary.md"]),
        "GITHUB_OUTPUT": str(files["output"]),
        "PYTHONPATH": str(ROOT),
    }
    script = step["run"].replace("${{ matrix.stack }}", "dev")
    result = subprocess.run(["bash", "-e", "-c", script], cwd=tmp_path, env=env, capture_output=True, text=True)
    outputs = dict(line.split("=", 1) for line in files["output"].read_text().splitlines())
    return result, outputs


def resubmit_step(name: str) -> dict:
    [step] = [s for s in resubmit_job()["steps"] if s.get("name") == name]
    return step


def test_the_resubmit_steps_target_exactly_the_urns_the_gate_prints(tmp_path):
    from tests.test_resubmit_gate import JOB

    gate, outputs = run_step(resubmit_step("Gate"), tmp_path, "resubmission")
    assert gate.returncode == 0 and outputs["jobs"] == "1"
    up, _ = run_step(resubmit_step("Resubmit"), tmp_path, "resubmission")
    assert up.returncode == 0, up.stderr
    args = (tmp_path / "pulumi-args").read_text().splitlines()
    assert args[:2] == ["up", "--stack"] and args[args.index("--target") + 1] == JOB  # `$` and `::` intact
    assert args.count("--target") == 1


def test_the_resubmit_gate_step_fails_on_a_refused_plan_and_says_why_in_the_summary(tmp_path):
    from tests.test_resubmit_gate import BUCKET

    gate, outputs = run_step(resubmit_step("Gate"), tmp_path, "bucket_change")
    assert gate.returncode == 1 and outputs["jobs"] == "0"
    assert BUCKET in (tmp_path / "summary.md").read_text()


def test_an_empty_plan_leaves_nothing_to_up(tmp_path):
    gate, outputs = run_step(resubmit_step("Gate"), tmp_path, "empty")
    assert gate.returncode == 0 and outputs["jobs"] == "0"
    assert resubmit_step("Resubmit")["if"] == "steps.gate.outputs.jobs != '0'"


def test_every_pr_gets_the_change_in_price_per_hour_as_a_comment_per_stack():
    job = workflow()["jobs"]["checks"]
    assert job["permissions"] == {"contents": "read", "pull-requests": "write"}
    [step] = [s for s in job["steps"] if ".ci/price-comment" in s.get("run", "")]
    assert step["run"] == ".ci/price-comment ${{ matrix.stack }} ${{ github.event.pull_request.number }} origin/${{ github.base_ref }}"
    assert step["env"] == {"GH_TOKEN": "${{ github.token }}"}
    assert runs_unless_cancelled(step)


def test_the_price_comment_holds_the_diffs_price_section_and_without_a_token_is_printed(tmp_path):
    import shutil
    from pathlib import Path

    # `uv run --locked spot-training ...` as CI runs it, on this environment; any other uv command (the
    # training package's build) goes to uv itself, as an installed uv or `python3 -m uv`.
    real = shutil.which("uv") or f"{shutil.which('python3')} -m uv"
    shim = tmp_path / "uv"
    shim.write_text(f'#!/bin/sh\nif [ "$1" = run ]; then shift 2; exec "{Path(sys.executable).parent}/$@"; fi\nexec {real} "$@"\n')
    shim.chmod(0o755)
    env = {k: v for k, v in os.environ.items() if k not in ("GH_TOKEN", "GITHUB_REPOSITORY")}
    env["PATH"] = f"{tmp_path}:{env['PATH']}"
    done = subprocess.run([str(ROOT / ".ci" / "price-comment"), "dev", "1", "HEAD"], cwd=ROOT, env=env, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("<!-- spot-training price per hour: dev -->\n### dev: price per hour against HEAD")
    assert "\nprice per hour (USD" in done.stdout and "total of the jobs priced on both sides: ~$" in done.stdout
    assert "prices as of 2025-03-02" in done.stdout  # the table's date travels with the figures
    assert "resubmits" not in done.stdout  # the field-by-field diff stays in the job summary
