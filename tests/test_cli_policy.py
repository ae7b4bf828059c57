"""`spot-training policy`: the policy pack over a stack's rendered resources, run as a user runs it."""

import pytest

from tests.cli_runner import spot_training, spot_training_in_process
from tests.test_cli_render import LADDER_STACK

UNPINNED = "us-central1-docker.pkg.dev/acme-ml-dev/vision/trainer:latest"


@pytest.mark.parametrize("stack", ["dev", "prod"])
def test_the_stacks_pass_and_exit_0(stack):
    done = spot_training("policy", stack)
    assert done.returncode == 0, done.stdout + done.stderr
    last = done.stdout.splitlines()[-1]
    assert last.startswith(f"{stack}: no violations in ") and "resources" in last, done.stdout


def test_a_mandatory_violation_prints_the_policy_its_level_the_resource_and_the_full_message_and_exits_1(tmp_path):
    stack = LADDER_STACK.replace("us-docker.pkg.dev/vertex-ai/training/pytorch-gpu.2-4.py310:latest", UNPINNED)
    (tmp_path / "Pulumi.dev.yaml").write_text(stack)
    done = spot_training_in_process("policy", "dev", stacks_dir=tmp_path)
    assert done.returncode == 1, done.stdout + done.stderr
    assert "Traceback" not in done.stderr
    assert "job-image-pinned (mandatory)" in done.stdout
    assert "::vision-l4" in done.stdout and "urn:pulumi:dev::spot-training::" in done.stdout
    # The whole message, to its last word: nothing cut to fit a terminal.
    assert (
        # Named by its config path: the job is an entry of the stack file, where it is fixed (issue 30.4).
        f'spot-training:teams.vision.jobs.l4.workerPoolSpecs[0].containerSpec.imageUri is "{UNPINNED}", not pinned by digest'
        in done.stdout
        and "{us,europe,asia}-docker.pkg.dev/vertex-ai/training/<name>:<tag>, are exempt as written)" in done.stdout
    )
    assert done.stdout.splitlines()[-1].startswith("dev: 1 violation (1 mandatory, 0 advisory) in ")


def test_advisories_only_are_printed_and_exit_0(tmp_path):
    # STANDARD is not among the strategies this stack allows: the cost policy is advisory.
    stack = LADDER_STACK.replace("allowedStrategies: [SPOT, FLEX_START, STANDARD]", "allowedStrategies: [SPOT, FLEX_START]")
    (tmp_path / "Pulumi.dev.yaml").write_text(stack)
    done = spot_training_in_process("policy", "dev", stacks_dir=tmp_path)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "job-spot-strategy (advisory)" in done.stdout and "::vision-standard" in done.stdout
    assert "allowedStrategies" in done.stdout
    # Each by the config path of the stack file's job entry, where it is fixed (issue 30.4).
    assert "spot-training:teams.vision.jobs.standard.scheduling.strategy is STANDARD" in done.stdout
    assert "spot-training:teams.vision.jobs.l4.resubmission.fallback[1].strategy is STANDARD" in done.stdout
    assert done.stdout.splitlines()[-1].startswith("dev: 2 violations (0 mandatory, 2 advisory) in ")


def test_an_invalid_stack_is_one_clean_message_and_exit_1(tmp_path):
    from tests.test_render import BROKEN_STACK

    (tmp_path / "Pulumi.dev.yaml").write_text(BROKEN_STACK)
    done = spot_training_in_process("policy", "dev", stacks_dir=tmp_path)
    assert done.returncode == 1
    assert "Traceback" not in done.stderr and done.stdout == ""
    assert done.stderr.startswith("error: invalid stack config:")


def test_an_unknown_stack_exits_2():
    done = spot_training_in_process("policy", "staging")
    assert done.returncode == 2
    assert "no stack 'staging'" in done.stderr


def test_without_the_packs_environment_it_says_what_to_run(tmp_path):
    (tmp_path / "PulumiPolicy.yaml").write_text("runtime: python\n")
    done = spot_training_in_process("policy", "dev", env={"SPOT_TRAINING_POLICY_DIR": str(tmp_path)})
    assert done.returncode == 2
    assert "Traceback" not in done.stderr
    assert "uv sync --locked --directory policy" in done.stderr


def test_policy_from_a_subdirectory_reads_the_stacks_paths_against_the_project():
    from tests.cli_runner import ROOT

    done = spot_training("policy", "dev", cwd=ROOT / "docs")
    assert done.returncode == 0, done.stdout + done.stderr
    assert done.stdout.splitlines()[-1].startswith("dev: no violations in ")
