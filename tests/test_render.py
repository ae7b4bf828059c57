"""The offline render prints what the provider submits: checked against the emulator."""

import json
import os
import shutil
import subprocess
import sys

import pytest

from components.spot_job.client import job_service
from components.spot_job.provider import SpotTrainingJobProvider
from offline import render as offline_render
from offline.mocks import OfflineMocks
from offline.program import ROOT, run, stack_config
from tests.cli_runner import main_in_process

STACKS = ["dev", "prod"]


def submitted_request(emulator, job_name: str):
    """The job as the emulator received it, server-set fields cleared: the request's CustomJob."""
    job = emulator.job(job_name)
    pb = type(job).pb(job)
    for field in ("name", "state", "create_time", "update_time", "start_time", "end_time"):
        pb.ClearField(field)
    return job


@pytest.mark.parametrize("stack", STACKS)
def test_each_printed_body_is_exactly_what_the_provider_submits(stack, emulator, fast_pace, tmp_path, capsys):
    assert offline_render.main([stack, "--out", str(tmp_path)]) == 0
    printed_out = capsys.readouterr().out
    assert f"{tmp_path}/vision-" in printed_out and "curl" not in printed_out  # each file named, no command that submits it
    mocks = run(stack_config(stack), stack, OfflineMocks())  # the same program, the same mocks
    jobs = mocks.of_type("SpotTrainingJob")
    assert len(jobs) == len(list(tmp_path.glob("*.json"))) >= 2
    provider = SpotTrainingJobProvider()
    for _ in jobs:
        emulator.script("JOB_STATE_RUNNING")  # for a job that waits for it (dev's resnet-smoke)
    for resource in jobs:
        created = provider.create({k: v for k, v in resource.inputs.items() if not k.startswith("__")})
        printed = json.loads((tmp_path / f"{resource.name}.json").read_text())
        assert job_service.to_proto(printed) == submitted_request(emulator, created.id), resource.name


def test_the_summary_table_names_machines_accelerators_strategy_and_image():
    table = offline_render.summary(offline_render.render("prod")).splitlines()
    assert table[0].split() == ["TEAM", "JOB", "MACHINES", "ACCELERATORS", "STRATEGY", "IMAGE"]
    resnet = next(line for line in table if line.startswith("vision"))
    assert "1x a2-highgpu-1g + 3x a2-highgpu-1g + 1x n1-standard-8" in resnet
    assert "4x NVIDIA_TESLA_A100" in resnet and "SPOT" in resnet and "trainer:2026-11-30" in resnet
    baseline = next(line for line in table if line.startswith("tabular"))
    assert "1x n1-highmem-8" in baseline and " - " in baseline and "(tabular_trainer.task)" in baseline


def test_values_only_a_deploy_knows_are_named():
    notes = offline_render.deploy_time_values(offline_render.render("dev"))
    assert any("vision/eval pool 0" in n and "built and pushed by the deploy" in n for n in notes)
    assert any("vision/resnet-smoke pool 0" in n and "trainer:" in n and "digest its tag points to" in n for n in notes)


def test_it_runs_without_credentials_or_the_pulumi_cli():
    env = {k: v for k, v in os.environ.items() if not k.startswith(("GOOGLE_", "CLOUDSDK_", "PULUMI_", "AIPLATFORM_"))}
    uv = os.environ.get("UV") or shutil.which("uv")  # it builds the package directories the stacks name
    env["PATH"] = os.pathsep.join([os.path.dirname(sys.executable), os.path.dirname(uv), "/usr/bin", "/bin"])
    assert shutil.which("pulumi", path=env["PATH"]) is None
    done = subprocess.run([sys.executable, "-m", "offline.render", "dev"], cwd=ROOT, env=env, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("TEAM")
    assert "# vision/resnet-smoke: POST https://us-central1-aiplatform.googleapis.com/v1/projects/acme-ml-dev/locations/us-central1/customJobs" in done.stdout


def test_an_unknown_stack_is_named_with_the_ones_there_are(capsys):
    with pytest.raises(SystemExit) as exited:
        offline_render.main(["staging"])
    assert exited.value.code == 2
    err = capsys.readouterr().err
    assert "no stack 'staging'" in err and "(stacks: dev, prod)" in err


@pytest.fixture
def render_here(monkeypatch, capsys):
    """`python -m offline.render STACK` against the stack files in `stacks_dir`, its main(argv) in
    this process (a process of its own is test_it_runs_without_credentials_or_the_pulumi_cli's)."""

    def render(stacks_dir, stack: str = "dev") -> subprocess.CompletedProcess:
        monkeypatch.setenv("SPOT_TRAINING_STACKS_DIR", str(stacks_dir))
        return main_in_process(offline_render.main, [stack], capsys)

    return render


BROKEN_STACK = """\
config:
  gcp:project: acme-ml-dev
  gcp:region: us-central1
  spot-training:environment: dev
  spot-training:teams:
    vision:
      members: [group:vision-ml@acme.example]
      jobs:
        smoke:
          workerPoolSpecs:
            - machineSpec: {machineType: n1-standard-4}
              replicaCount: 2
              containerSpec: {imageUri: "us-docker.pkg.dev/acme/x/y@sha256:%s"}
          scheduling: {strategy: SOMETIMES, timeout: 2h}
""" % ("0" * 64)


def test_a_config_error_is_one_clean_message_listing_every_failure_by_path(tmp_path, render_here):
    (tmp_path / "Pulumi.dev.yaml").write_text(BROKEN_STACK)
    done = render_here(tmp_path)
    assert done.returncode == 1
    assert "Traceback" not in done.stderr and done.stdout == ""
    assert done.stderr.startswith("error: invalid stack config:")
    for path in ("scheduling.strategy", "scheduling.timeout", "workerPoolSpecs[0].replicaCount"):
        assert f"spot-training:teams.vision.jobs.smoke.{path}" in done.stderr, done.stderr


def test_a_duplicate_key_in_the_stack_file_is_an_error_naming_its_line(tmp_path, render_here):
    # PyYAML (and so Pulumi's Python config before this) keeps the last `smoke:`: the first job would vanish.
    duplicated = BROKEN_STACK.replace("      jobs:\n", "      jobs:\n        smoke: {workerPoolSpecs: []}\n")
    (tmp_path / "Pulumi.dev.yaml").write_text(duplicated)
    done = render_here(tmp_path)
    assert done.returncode == 1
    assert "Traceback" not in done.stderr
    assert "Pulumi.dev.yaml:10: duplicate key 'smoke', first set on line 9" in done.stderr, done.stderr


def test_merge_keys_are_not_duplicates():
    from stack_config import stack_file

    assert stack_file.load_yaml("x: &x {p: 1, q: 1}\ny: {<<: *x, p: 2}") == {"x": {"p": 1, "q": 1}, "y": {"p": 2, "q": 1}}


def test_the_program_itself_refuses_a_duplicate_key_with_a_run_error(tmp_path, monkeypatch):
    """Under `pulumi preview`/`up` __main__.py reads the stack file too; a RunError is what the language host prints without a traceback."""
    import pulumi

    from stack_config.stack_file import StackFileError

    (tmp_path / "Pulumi.dev.yaml").write_text(BROKEN_STACK.replace("      jobs:\n", "      jobs:\n        smoke: {}\n"))
    monkeypatch.setenv("SPOT_TRAINING_STACKS_DIR", str(tmp_path))
    with pytest.raises(StackFileError, match=r"Pulumi.dev.yaml:10: duplicate key 'smoke'") as raised:
        run({"gcp:project": "acme-ml-dev"}, "dev", OfflineMocks())
    assert isinstance(raised.value, pulumi.RunError)


def fixed_stack() -> str:
    """BROKEN_STACK with its two faults mended: a valid stack whose image tests swap in."""
    return BROKEN_STACK.replace("replicaCount: 2", "replicaCount: 1").replace("strategy: SOMETIMES, timeout: 2h", "strategy: SPOT")


def test_googles_spot_example_image_passes_validation_as_written(tmp_path, render_here):
    # https://cloud.google.com/vertex-ai/docs/training/use-spot-vms: a prebuilt training container in containerSpec.imageUri
    google = "us-docker.pkg.dev/vertex-ai/training/tf-cpu.2-17.py310:latest"
    stack = fixed_stack()
    (tmp_path / "Pulumi.dev.yaml").write_text(stack.replace("us-docker.pkg.dev/acme/x/y@sha256:" + "0" * 64, google))
    done = render_here(tmp_path)
    assert done.returncode == 0, done.stderr
    assert f'"imageUri": "{google}"' in done.stdout
    assert "note:" not in done.stderr  # submitted as written: no digest to resolve at deploy time


def test_a_literal_tagged_image_is_said_to_be_submitted_as_written_not_pinned(tmp_path, render_here):
    # Only ${images.*} references are resolved to a digest at deploy time (issue 11.20);
    # a tag written in imageUri goes to Vertex as it is.
    literal = "us-docker.pkg.dev/acme/x/y:v3"
    stack = fixed_stack()
    (tmp_path / "Pulumi.dev.yaml").write_text(stack.replace("us-docker.pkg.dev/acme/x/y@sha256:" + "0" * 64, literal))
    done = render_here(tmp_path)
    assert done.returncode == 0, done.stderr
    note = next(line for line in done.stderr.splitlines() if literal in line)
    assert "submitted as written" in note and "not pinned" in note and "${images." in note, note
    assert "digest its tag points to" not in done.stderr


def test_a_bad_project_and_region_stop_the_offline_render_naming_each_key(tmp_path, render_here):
    fixed = fixed_stack()
    (tmp_path / "Pulumi.dev.yaml").write_text(fixed.replace("acme-ml-dev", "Acme_ML").replace("us-central1", "us central"))
    done = render_here(tmp_path)
    assert done.returncode == 1 and "Traceback" not in done.stderr
    assert "gcp:project: 'Acme_ML' is not a project id" in done.stderr, done.stderr
    # Google's table: https://cloud.google.com/vertex-ai/docs/general/locations
    assert "gcp:region: 'us central' is not a region Vertex AI custom training runs in; did you mean us-central1?" in done.stderr
    assert "spot-training:extraRegions" in done.stderr
