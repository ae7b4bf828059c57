"""`spot-training validate`: run as a user runs it (the console script, its exit code, its output)."""

from tests.cli_runner import spot_training, spot_training_in_process
from tests.test_render import BROKEN_STACK


def test_a_valid_stack_says_so_and_exits_0():
    done = spot_training("validate", "dev")
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("dev: valid (3 jobs of 2 teams: tabular, vision)")


def test_an_invalid_stack_lists_every_failure_by_path_without_a_traceback_and_exits_1(tmp_path):
    (tmp_path / "Pulumi.dev.yaml").write_text(BROKEN_STACK)
    done = spot_training("validate", "dev", stacks_dir=tmp_path)
    assert done.returncode == 1
    assert "Traceback" not in done.stderr and done.stdout == ""
    assert done.stderr.startswith("error: invalid stack config:")
    for path in ("scheduling.strategy", "scheduling.timeout", "workerPoolSpecs[0].replicaCount"):
        assert f"spot-training:teams.vision.jobs.smoke.{path}" in done.stderr


def test_an_unknown_stack_names_the_stacks_there_are_and_exits_2():
    done = spot_training_in_process("validate", "staging")
    assert done.returncode == 2
    assert "no stack 'staging'" in done.stderr and "(stacks: dev, prod)" in done.stderr


def test_no_verb_prints_the_verbs_and_exits_2():
    done = spot_training_in_process()
    assert done.returncode == 2
    assert "validate" in done.stdout


# The broken stack's team, with jobs that name a job to adopt (`import:`) in three ways.
_POOLS = '[{machineSpec: {machineType: n1-standard-4}, containerSpec: {imageUri: "us-docker.pkg.dev/acme/x/y@sha256:%s"}}]' % ("0" * 64)
IMPORTING_STACK = BROKEN_STACK.split("      jobs:\n")[0] + f"""\
      jobs:
        elsewhere:
          import: projects/acme-ml-dev/locations/europe-west4/customJobs/123
          workerPoolSpecs: {_POOLS}
        misnamed:
          import: customJobs/123
          workerPoolSpecs: {_POOLS}
        adopted:
          import: projects/acme-ml-dev/locations/us-central1/customJobs/456
          workerPoolSpecs: {_POOLS}
"""


def test_an_import_that_cannot_be_a_job_of_this_entry_is_an_error_by_path(tmp_path):
    (tmp_path / "Pulumi.dev.yaml").write_text(IMPORTING_STACK)
    done = spot_training("validate", "dev", stacks_dir=tmp_path)
    assert done.returncode == 1 and "Traceback" not in done.stderr
    assert "spot-training:teams.vision.jobs.elsewhere.import: the job is in acme-ml-dev / europe-west4" in done.stderr
    assert "spot-training:teams.vision.jobs.misnamed.import: 'customJobs/123' is not a CustomJob name" in done.stderr
    assert "jobs.adopted" not in done.stderr  # its shape and place are right: the engine's import checks the rest
