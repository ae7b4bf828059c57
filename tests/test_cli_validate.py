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
    assert "validate" in done.stderr  # a usage error: the help, on stderr as click prints it


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


def test_validate_from_a_subdirectory_resolves_the_stacks_paths_against_the_project_as_pulumi_does():
    """Pulumi runs the program in the project's directory whatever directory it is run from; the
    dev stack's package and image paths (training/..., ./images/eval) are relative to it."""
    from tests.cli_runner import ROOT

    for where in (ROOT / "docs", ROOT / "training" / "tabular-trainer"):
        done = spot_training("validate", "dev", cwd=where)
        assert done.returncode == 0, f"from {where}: {done.stderr}"
        assert done.stdout.startswith("dev: valid (3 jobs of 2 teams: tabular, vision)")


def test_render_from_a_subdirectory_writes_out_relative_to_where_it_is_run(tmp_path):
    """The stack's paths are the project's; a path the user types (--out) is the user's."""
    work = tmp_path / "work"
    work.mkdir()
    done = spot_training("render", "dev", "--out", "bodies", cwd=work)
    assert done.returncode == 0, done.stderr
    assert (work / "bodies" / "tabular-baseline.json").is_file()


def _stack_with_job(key: str, extra: str = "") -> str:
    """BROKEN_STACK's team with one valid job under `key` (written into the YAML as it is)."""
    pools = '[{machineSpec: {machineType: n1-standard-4}, containerSpec: {imageUri: "us-docker.pkg.dev/acme/x/y@sha256:%s"}}]' % ("0" * 64)
    return BROKEN_STACK.split("      jobs:\n")[0] + f"      jobs:\n        {key}:\n          workerPoolSpecs: {pools}\n{extra}"


def test_a_job_name_cancel_and_logs_cannot_address_is_refused_by_path_with_a_name_that_works(tmp_path):
    """`Eval Job/1` would be a Pulumi resource, a display name and a gs:// prefix, but TEAM/JOB
    (cancel, logs) cannot name it and `render --out` cannot write its file."""
    (tmp_path / "Pulumi.dev.yaml").write_text(_stack_with_job('"Eval Job/1"'))
    done = spot_training("validate", "dev", stacks_dir=tmp_path)
    assert done.returncode == 1 and done.stdout == ""
    assert "spot-training:teams.vision.jobs.Eval Job/1: job names are 1-63 lowercase letters" in done.stderr, done.stderr
    assert "for example 'eval-job-1'" in done.stderr
    assert "Traceback" not in done.stderr


def test_a_valid_job_name_is_one_every_verb_takes(tmp_path):
    """The longest and oddest name the rule allows renders, and is what TEAM/JOB takes."""
    name = "a_" + "b-" * 30 + "c"
    assert len(name) == 63
    (tmp_path / "Pulumi.dev.yaml").write_text(_stack_with_job(name))
    done = spot_training("validate", "dev", stacks_dir=tmp_path)
    assert done.returncode == 0, done.stderr
    rendered = spot_training("render", "dev", f"vision/{name}", "--summary", stacks_dir=tmp_path)
    assert rendered.returncode == 0, rendered.stderr
    assert name in rendered.stdout


def test_a_too_long_job_name_is_one_error_not_one_more_for_the_display_name_made_from_it(tmp_path):
    (tmp_path / "Pulumi.dev.yaml").write_text(_stack_with_job("x" * 130))
    done = spot_training_in_process("validate", "dev", stacks_dir=tmp_path)
    assert done.returncode == 1
    assert "jobs." + "x" * 130 + ": job names are 1-63" in done.stderr
    assert "displayName" not in done.stderr, done.stderr


def test_a_number_as_a_job_name_is_refused_by_path(tmp_path):
    (tmp_path / "Pulumi.dev.yaml").write_text(_stack_with_job("2024"))
    done = spot_training_in_process("validate", "dev", stacks_dir=tmp_path)
    assert done.returncode == 1
    assert "spot-training:teams.vision.jobs.2024: job names are" in done.stderr, done.stderr
    assert "for example 'job-2024'" in done.stderr


def _stack_with_images(images: str, packages: str = "") -> str:
    pools = '[{machineSpec: {machineType: n1-standard-4}, containerSpec: {imageUri: "us-docker.pkg.dev/acme/x/y@sha256:%s"}}]' % ("0" * 64)
    return BROKEN_STACK.split("      jobs:\n")[0] + f"      images:\n{images}{packages}      jobs:\n        smoke:\n          workerPoolSpecs: {pools}\n"


def test_an_image_name_or_tag_docker_refuses_is_refused_by_path_at_validate(tmp_path):
    """A name or tag that validates and fails at `up`, after the buckets and accounts exist."""
    images = (
        '        trainer: {name: "Trainer Image", tag: "v1"}\n'
        '        spaced: {name: trainer, tag: "v 1"}\n'
        '        dashed: {name: trainer, tag: "-rc1"}\n'
        "        Eval: {build: {context: ./images/eval}}\n"
        '        "my image": {name: ok, tag: v1}\n'
    )
    (tmp_path / "Pulumi.dev.yaml").write_text(_stack_with_images(images, '      packages:\n        "my pkg": {source: training/spot-runtime}\n'))
    done = spot_training("validate", "dev", stacks_dir=tmp_path)
    assert done.returncode == 1 and "Traceback" not in done.stderr
    err = done.stderr
    assert "spot-training:teams.vision.images.trainer.name: 'Trainer Image' is not an image name" in err, err
    assert "spot-training:teams.vision.images.spaced.tag: 'v 1' is not an image tag" in err
    assert "spot-training:teams.vision.images.dashed.tag: '-rc1' is not an image tag" in err
    assert "spot-training:teams.vision.images.Eval: the image is named by its key, 'Eval', which is not an image name" in err
    assert "spot-training:teams.vision.images.my image: a job names an image by ${images.KEY}" in err
    assert "spot-training:teams.vision.packages.my pkg: a job names a package by ${packages.KEY}" in err


def test_image_names_with_a_path_and_tags_of_every_allowed_character_validate(tmp_path):
    images = '        trainer: {name: "ml/trainer_v2.gpu", tag: "2026-11-30_rc.1"}\n        eval: {build: {context: ./images/eval}, name: eval-image}\n'
    (tmp_path / "Pulumi.dev.yaml").write_text(_stack_with_images(images))
    done = spot_training_in_process("validate", "dev", stacks_dir=tmp_path)
    assert done.returncode == 0, done.stderr


def test_a_built_images_key_no_reference_can_name_is_said_once(tmp_path):
    (tmp_path / "Pulumi.dev.yaml").write_text(_stack_with_images('        "Eval Image": {build: {context: ./images/eval}}\n'))
    done = spot_training_in_process("validate", "dev", stacks_dir=tmp_path)
    assert done.returncode == 1
    assert done.stderr.count("images.Eval Image") == 1, done.stderr
