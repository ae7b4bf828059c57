"""`spot-training validate`: run as a user runs it (the console script, its exit code, its output)."""

import pytest

from tests.cli_runner import spot_training, spot_training_in_process
from tests.test_render import BROKEN_STACK


def test_a_valid_stack_says_so_and_exits_0():
    done = spot_training("validate", "dev")
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("dev: valid (3 jobs of 2 teams: tabular, vision)")


def test_an_invalid_stack_lists_every_failure_by_path_without_a_traceback_and_exits_1(tmp_path):
    (tmp_path / "Pulumi.dev.yaml").write_text(BROKEN_STACK)
    done = spot_training_in_process("validate", "dev", stacks_dir=tmp_path)
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
    done = spot_training_in_process("validate", "dev", stacks_dir=tmp_path)
    assert done.returncode == 1 and "Traceback" not in done.stderr
    assert "spot-training:teams.vision.jobs.elsewhere.import: the job is in acme-ml-dev / europe-west4" in done.stderr
    assert "spot-training:teams.vision.jobs.misnamed.import: 'customJobs/123' is not a CustomJob name" in done.stderr
    assert "jobs.adopted" not in done.stderr  # its shape and place are right: the engine's import checks the rest


# A valid one-job stack (BROKEN_STACK mended), to break one key at a time.
def _validate_dev_with(tmp_path, old: str, new: str):
    """`spot-training validate dev` of the dev stack with `old` written as `new`."""
    (tmp_path / "Pulumi.dev.yaml").write_text(_DEV.replace(old, new))
    return spot_training_in_process("validate", "dev", stacks_dir=tmp_path)


def _stack_with(job_lines: str = "", team_lines: str = "") -> str:
    from tests.test_render import fixed_stack

    stack = fixed_stack()
    stack = stack.replace("          scheduling: {strategy: SPOT}\n", "          scheduling: {strategy: SPOT}\n" + job_lines)
    return stack.replace("      members: [group:vision-ml@acme.example]\n", "      members: [group:vision-ml@acme.example]\n" + team_lines)


@pytest.mark.parametrize(
    "typo, meant",
    [("waitfor: running", "waitFor"), ('rerunn: "2"', "rerun"), ("resubmision: {maxResubmissions: 2}", "resubmission"),
     ("ondelete: keep", "onDelete"), ("waitTimout: 600s", "waitTimeout"), ("displayname: x", "displayName"),
     ("imprt: customJobs/1", "import"), ("labes: {a: b}", "labels"), ("servceAccount: a@b.iam.gserviceaccount.com", "serviceAccount")],
)
def test_a_typo_of_a_job_key_gets_a_did_you_mean_over_every_key_a_job_takes(tmp_path, typo, meant):
    (tmp_path / "Pulumi.dev.yaml").write_text(_stack_with(f"          {typo}\n"))
    done = spot_training_in_process("validate", "dev", stacks_dir=tmp_path)
    assert done.returncode == 1
    key = typo.split(":")[0]
    lines = [x for x in done.stderr.splitlines() if "jobs.smoke." in x]
    assert lines == [f"  spot-training:teams.vision.jobs.smoke.{key}: unknown field; did you mean {meant!r}?"], done.stderr


def test_a_job_key_like_nothing_lists_every_key_a_job_takes(tmp_path):
    (tmp_path / "Pulumi.dev.yaml").write_text(_stack_with("          zzz: 1\n"))
    done = spot_training_in_process("validate", "dev", stacks_dir=tmp_path)
    line = next(x for x in done.stderr.splitlines() if "jobs.smoke.zzz" in x)
    for key in ("workerPoolSpecs", "displayName", "labels", "waitFor", "rerun", "resubmission", "onDelete", "import"):
        assert key in line, line


@pytest.mark.parametrize("typo, meant", [("memebers: []", "members"), ("packges: {}", "packages"), ("bucket: {versionning: true}", "versioning")])
def test_a_typo_of_a_team_key_gets_a_did_you_mean(tmp_path, typo, meant):
    (tmp_path / "Pulumi.dev.yaml").write_text(_stack_with(team_lines=f"      {typo}\n"))
    done = spot_training_in_process("validate", "dev", stacks_dir=tmp_path)
    assert done.returncode == 1
    assert f"did you mean {meant!r}?" in done.stderr, done.stderr


# Issue 30.3: the first cause only; nothing derived from it, no suggestion a rule refuses.
_DEV = (__import__("pathlib").Path(__file__).resolve().parent.parent / "stacks" / "Pulumi.dev.yaml").read_text()


@pytest.mark.parametrize(
    "old, new, cause",
    [
        ("  spot-training:environment: dev\n", "", "spot-training:environment: is required"),
        ("spot-training:environment: dev", "spot-training:environment: Dev_Env", "spot-training:environment: 'Dev_Env' is not"),
        ("    tabular:\n", "    Tabular_Team:\n", "spot-training:teams.Tabular_Team: team names are"),
        ("    vision:\n", "    Data Science:\n", "spot-training:teams.Data Science: team names are"),
        ("gcp:project: acme-ml-dev", "gcp:project: Acme_ML", "gcp:project: 'Acme_ML' is not a project id"),
    ],
)
def test_a_bad_setting_is_one_error_not_followed_by_errors_derived_from_it(tmp_path, old, new, cause):
    assert old in _DEV
    done = _validate_dev_with(tmp_path, old, new)
    assert done.returncode == 1
    lines = done.stderr.splitlines()[1:]
    assert len(lines) == 1 and lines[0].strip().startswith(cause), done.stderr
    assert "NoneType" not in done.stderr


@pytest.mark.parametrize(
    "name, suggestion", [("Tabular_Team", "tabular-team"), ("Data Science", "data-science"), ("data_science", "data-science"), ("9lives", None)]
)
def test_a_bad_team_name_is_offered_only_a_name_the_team_rule_takes(tmp_path, name, suggestion):
    import re

    (tmp_path / "Pulumi.dev.yaml").write_text(_DEV.replace("    tabular:\n", f"    {name}:\n"))
    done = spot_training_in_process("validate", "dev", stacks_dir=tmp_path)
    offered = re.findall(r"write e\.g\. '([^']*)'", done.stderr)
    assert offered == ([suggestion] if suggestion else []), done.stderr
    assert all(re.fullmatch(r"[a-z][a-z0-9-]{0,19}", s) for s in offered)


def test_a_bad_environment_is_offered_only_a_name_the_environment_rule_takes(tmp_path):
    (tmp_path / "Pulumi.dev.yaml").write_text(_DEV.replace("spot-training:environment: dev", "spot-training:environment: Dev_Env"))
    done = spot_training_in_process("validate", "dev", stacks_dir=tmp_path)
    assert "write e.g. 'dev-env'" in done.stderr and "dev_env" not in done.stderr, done.stderr


@pytest.mark.parametrize(
    "old, new, path, hint",
    [
        ("          workerPoolSpecs:\n", "          workerPoolSpec:\n", "resnet-smoke.workerPoolSpec", "did you mean 'workerPoolSpecs'?"),
        ("acceleratorType: NVIDIA_TESLA_T4", "acceleratorType: NVIDIA_TESLA_T5", "resnet-smoke.workerPoolSpecs[0].machineSpec.acceleratorType", "did you mean 'NVIDIA_TESLA_T4'?"),
        ("strategy: SPOT, timeout: 7200s", "strategy: spot, timeout: 7200s", "resnet-smoke.scheduling.strategy", "did you mean 'SPOT'?"),
    ],
)
def test_a_typo_is_one_error_with_its_did_you_mean_and_no_error_derived_from_it(tmp_path, old, new, path, hint):
    assert old in _DEV
    (tmp_path / "Pulumi.dev.yaml").write_text(_DEV.replace(old, new, 1))
    done = spot_training_in_process("validate", "dev", stacks_dir=tmp_path)
    lines = [x.strip() for x in done.stderr.splitlines() if "jobs.resnet-smoke" in x]
    assert len(lines) == 1 and lines[0].startswith(f"spot-training:teams.vision.jobs.{path}: "), done.stderr
    assert hint in lines[0], lines[0]


def test_a_valid_stack_says_that_the_policy_pack_has_more_to_say():
    done = spot_training_in_process("validate", "dev")
    assert done.returncode == 0
    assert "note: the policy pack checks more" in done.stderr and "spot-training policy dev" in done.stderr


@pytest.mark.parametrize(
    "old, new, path, hint",
    [
        ("          rerun: \"1\"\n", "          rerun: \"1\"\n          resubmission: {maxResubmissions: 2, fallback: [{afterStockout: 1, strategy: STANDARD}]}\n",
         "spot-training:teams.vision.jobs.resnet-smoke.resubmission.fallback[0].afterStockout", "did you mean 'afterStockouts'?"),
        ("machineSpec: {machineType: n1-standard-8", "machineSpec: {machinetype: n1-standard-8",
         "spot-training:teams.vision.jobs.resnet-smoke.workerPoolSpecs[0].machineSpec.machinetype", "did you mean 'machineType'?"),
        ("          waitTimeout: 900s\n", "          waitTimeout: 900s\n          onDelete: kep\n",
         "spot-training:teams.vision.jobs.resnet-smoke.onDelete", "did you mean 'keep'?"),
        ("  spot-training:environment: dev\n", "  spot-training:environment: dev\n  spot-training:quotas: {submissionPerMinute: 5}\n",
         "spot-training:quotas.submissionPerMinute", "did you mean 'submissionsPerMinute'?"),
        ("        runtime: {source: training/spot-runtime}", "        runtime: {sorce: training/spot-runtime}",
         "spot-training:teams.tabular.packages.runtime", "did you mean 'source'?"),
        ('        trainer: {name: trainer, tag: "2026-11-30"}', '        trainer: {nam: trainer, tag: "2026-11-30"}',
         "spot-training:teams.vision.images.trainer", "did you mean 'name'?"),
    ],
)
def test_a_nested_typo_is_one_error_with_its_did_you_mean(tmp_path, old, new, path, hint):
    assert old in _DEV
    (tmp_path / "Pulumi.dev.yaml").write_text(_DEV.replace(old, new, 1))
    done = spot_training_in_process("validate", "dev", stacks_dir=tmp_path)
    lines = [x.strip() for x in done.stderr.splitlines()[1:]]
    assert len(lines) == 1 and lines[0].startswith(path), done.stderr
    assert hint in lines[0], lines[0]


def test_a_bad_team_name_is_not_offered_the_name_of_another_team(tmp_path):
    (tmp_path / "Pulumi.dev.yaml").write_text(_DEV.replace("    tabular:\n", "    Vision:\n"))
    done = spot_training_in_process("validate", "dev", stacks_dir=tmp_path)
    line = next(x for x in done.stderr.splitlines() if "teams.Vision: team names are" in x)
    assert "'vision'" not in line, line


@pytest.mark.parametrize("old, new", [("gcp:region: us-central1", "gcp:regoin: us-central1"), ("gcp:project: acme-ml-dev", "gcp:projet: acme-ml-dev")])
def test_a_misspelt_gcp_key_is_named_where_its_missing_key_is(tmp_path, old, new):
    done = _validate_dev_with(tmp_path, old, new)
    lines = [x.strip() for x in done.stderr.splitlines()[1:]]
    meant, typo = old.split(":", 2)[:2], new.split(":", 2)[:2]
    assert lines == [f"{':'.join(meant)}: is required; {':'.join(typo)} is set: did you mean {':'.join(meant)}?"], done.stderr


@pytest.mark.parametrize(
    "old, new, path",
    [
        ("          labels: {purpose: smoke}", "          labels: {purpose: null}", "spot-training:teams.vision.jobs.resnet-smoke.labels.purpose: must be a string, got null"),
        ("      members: [group:vision-ml@acme.example]", "      members: [null]", "spot-training:teams.vision.members[0]: null is not an IAM member"),
        ("          labels: {purpose: smoke}", "          labels: {purpose: 3}", "spot-training:teams.vision.jobs.resnet-smoke.labels.purpose: must be a string, got a number"),
    ],
)
def test_a_null_or_a_number_is_named_as_yaml_writes_it_not_as_a_python_type(tmp_path, old, new, path):
    done = _validate_dev_with(tmp_path, old, new)
    assert path in done.stderr, done.stderr
    assert "NoneType" not in done.stderr and "None " not in done.stderr


@pytest.mark.parametrize(
    "old, new, line",
    [
        ("        cleanupDryRun: true", "        cleanupDryRun: null", "spot-training:teams.vision.repository.cleanupDryRun: must be true or false, got null"),
        ("        cleanupDryRun: true", '        cleanupDryRun: "yes"', "spot-training:teams.vision.repository.cleanupDryRun: must be true or false, got 'yes'"),
        ("gcp:project: acme-ml-dev", "gcp:project: 12", "gcp:project: 12 is not a project id"),
        ("gcp:region: us-central1", "gcp:region: 5", "gcp:region: 5 is not a region"),
    ],
)
def test_a_value_of_the_wrong_kind_is_named_as_written_not_as_missing(tmp_path, old, new, line):
    done = _validate_dev_with(tmp_path, old, new)
    assert line in done.stderr, done.stderr
    assert "is required" not in done.stderr


def test_validate_from_a_subdirectory_resolves_the_stacks_paths_against_the_project_as_pulumi_does():
    """Pulumi runs the program in the project's directory whatever directory it is run from; the
    dev stack's package and image paths (training/..., ./images/eval) are relative to it."""
    from tests.cli_runner import ROOT

    # One directory as a process of its own (what the user's shell starts there), the other in-process
    # from there: the code reads the working directory the same way.
    for where, run in ((ROOT / "docs", spot_training), (ROOT / "training" / "tabular-trainer", spot_training_in_process)):
        done = run("validate", "dev", cwd=where)
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
    done = spot_training_in_process("validate", "dev", stacks_dir=tmp_path)
    assert done.returncode == 1 and done.stdout == ""
    assert "spot-training:teams.vision.jobs.Eval Job/1: job names are 1-63 lowercase letters" in done.stderr, done.stderr
    assert "for example 'eval-job-1'" in done.stderr
    assert "Traceback" not in done.stderr


def test_a_valid_job_name_is_one_every_verb_takes(tmp_path):
    """The longest and oddest name the rule allows renders, and is what TEAM/JOB takes."""
    name = "a_" + "b-" * 30 + "c"
    assert len(name) == 63
    (tmp_path / "Pulumi.dev.yaml").write_text(_stack_with_job(name))
    done = spot_training_in_process("validate", "dev", stacks_dir=tmp_path)
    assert done.returncode == 0, done.stderr
    rendered = spot_training_in_process("render", "dev", f"vision/{name}", "--summary", stacks_dir=tmp_path)
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
    done = spot_training_in_process("validate", "dev", stacks_dir=tmp_path)
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
