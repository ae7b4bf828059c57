"""`spot-training status / cancel / logs / sweep`: run as a user runs them (the console
script in a subprocess, its exit code and output), against the Vertex AI emulator.

The scene, in stack dev (stacks/Pulumi.dev.yaml: acme-ml-dev, us-central1), submitted
with the bodies the offline render prints, labels included:
- vision/resnet-smoke: its first attempt was preempted (FAILED, STOCKOUT), its
  second runs on STANDARD;
- vision/eval: queued;
- tabular/baseline: succeeded;
- a job of another stack in the same project and region: never shown, never touched.
"""

from __future__ import annotations

import json

import pytest

from components.spot_job.model import submission_labels
from tests.cli_runner import spot_training, spot_training_in_process
from tests.module_emulator import _emulator, bodies, emulator  # noqa: F401 (fixtures)

PARENT = "projects/acme-ml-dev/locations/us-central1"




def submit(body: dict, **label_changes: str) -> str:
    from components.spot_job.client import job_service

    body = json.loads(json.dumps(body))
    body["labels"].update(label_changes)
    service = job_service.JobService("us-central1")
    job = service.create(PARENT, body)
    return job["name"]


@pytest.fixture
def scene(emulator, bodies):
    first = submit(bodies["vision/resnet-smoke"])
    emulator.preempt(first)
    second_body = json.loads(json.dumps(bodies["vision/resnet-smoke"]))
    second_body["jobSpec"]["scheduling"]["strategy"] = "STANDARD"
    second = submit(second_body, spot_training_key="attempt-2")
    emulator.advance(second)
    emulator.advance(second)  # RUNNING
    evaluation = submit(bodies["vision/eval"])
    baseline = submit(bodies["tabular/baseline"])
    for _ in range(3):
        emulator.advance(baseline)  # SUCCEEDED
    other = submit(  # prod's vision/eval, in dev's project
        bodies["vision/eval"], spot_training_stack=submission_labels.stack_value("spot-training/prod"),
        spot_training_resource=submission_labels.resource_value("spot-training/prod/vision-eval"), spot_training_key="other",
    )
    emulator.reset_calls()
    return {"first": first, "second": second, "eval": evaluation, "baseline": baseline, "other": other}


def env(emulator) -> dict[str, str]:
    return {"AIPLATFORM_EMULATOR_HOST": emulator.address}


def rows(stdout: str) -> dict[str, list[list[str]]]:
    """The table's rows by its first column (team/job)."""
    found: dict[str, list[list[str]]] = {}
    for line in stdout.splitlines():
        cells = line.split()
        if cells and "/" in cells[0] and not cells[0].startswith("http"):
            found.setdefault(cells[0], []).append(cells)
    return found


def state_of(emulator, name: str) -> str:
    return emulator.job(name).state.name


def clean(done) -> None:
    assert "Traceback" not in done.stderr
    assert len(done.stderr.strip().splitlines()) == 1, done.stderr


# --- status -------------------------------------------------------------------------


def test_status_lists_the_stacks_jobs_with_state_attempt_strategy_and_console(emulator, scene):
    done = spot_training("status", "dev", env=env(emulator))
    assert done.returncode == 0, done.stderr
    table = rows(done.stdout)
    assert set(table) == {"vision/resnet-smoke", "vision/eval", "tabular/baseline"}
    resnet = sorted(table["vision/resnet-smoke"], key=lambda r: r[2])
    assert [r[1:4] for r in resnet] == [["JOB_STATE_FAILED", "1", "SPOT"], ["JOB_STATE_RUNNING", "2", "STANDARD"]]
    assert table["tabular/baseline"][0][1:4] == ["JOB_STATE_SUCCEEDED", "1", "SPOT"]
    assert table["vision/eval"][0][1:4] == ["JOB_STATE_QUEUED", "1", "SPOT"]
    second_id = scene["second"].rsplit("/", 1)[1]
    assert f"https://console.cloud.google.com/agent-platform/locations/us-central1/training/{second_id}?project=acme-ml-dev" in done.stdout
    assert scene["other"].rsplit("/", 1)[1] not in done.stdout  # another stack's job
    assert emulator.calls["CancelCustomJob"] == 0


def test_status_shows_each_attempts_checkpointed_steps_from_the_training_progress_record(emulator, scene, bodies, gcs):
    """The record spot_runtime keeps in the job's AIP_CHECKPOINT_DIR, read once for both attempts."""
    from tests.attempt import train

    output = bodies["vision/resnet-smoke"]["jobSpec"]["baseOutputDirectory"]["outputUriPrefix"]
    gcs.bucket(output.removeprefix("gs://").split("/")[0])
    train(output, scene["first"], 250)  # checkpoints at 100 and 200, then preempted
    train(output, scene["second"], 150)  # resumes at 200, checkpoints at 300, still running
    done = spot_training_in_process("status", "dev", env=env(emulator))
    assert done.returncode == 0 and done.stderr == "", done.stderr
    table = rows(done.stdout)
    resnet = sorted(table["vision/resnet-smoke"], key=lambda r: r[2])
    assert [" ".join(r[7:-1]) for r in resnet] == ["0→200 of 1000", "200→300 of 1000"]
    assert [r[7] for r in table["vision/eval"] + table["tabular/baseline"]] == ["-", "-"]  # no record there


def test_status_of_a_stack_with_no_job_says_so(emulator):
    done = spot_training_in_process("status", "dev", env=env(emulator))
    assert done.returncode == 0, done.stderr
    assert "no job of stack dev" in done.stdout.lower()


def test_status_of_an_unknown_stack_is_one_error_and_exit_2(emulator):
    done = spot_training_in_process("status", "staging", env=env(emulator))
    assert done.returncode == 2
    assert "no stack 'staging'" in done.stderr
    clean(done)


def test_a_stack_file_whose_top_is_not_a_mapping_is_one_error_and_exit_2(emulator, tmp_path):
    (tmp_path / "Pulumi.staging.yaml").write_text("- gcp:project: acme-ml-dev\n")
    done = spot_training_in_process("status", "staging", stacks_dir=tmp_path, env=env(emulator))
    assert done.returncode == 2
    assert "Pulumi.staging.yaml sets no gcp:project" in done.stderr
    clean(done)


def test_a_vertex_error_is_one_message_and_exit_2(emulator):
    import grpc

    emulator.inject("ListCustomJobs", grpc.StatusCode.PERMISSION_DENIED, times=5)
    done = spot_training_in_process("status", "dev", env=env(emulator))
    assert done.returncode == 2 and done.stdout == ""
    assert "projects/acme-ml-dev" in done.stderr
    clean(done)


def test_without_credentials_it_says_so_in_one_message(tmp_path):
    done = spot_training_in_process("status", "dev", env={"GOOGLE_APPLICATION_CREDENTIALS": str(tmp_path / "missing.json")})
    assert done.returncode == 2
    assert "credentials" in done.stderr.lower()
    clean(done)


def test_without_any_credentials_the_message_reads_as_one_sentence_then_the_fix(tmp_path):
    # google-auth's own message ends with a full stop; ours must not add a second.
    env = {"CLOUDSDK_CONFIG": str(tmp_path), "HOME": str(tmp_path), "NO_GCE_CHECK": "True"}
    done = spot_training_in_process("status", "dev", env=env)
    assert done.returncode == 2
    [line] = done.stderr.strip().splitlines()
    assert line.startswith("error: no usable Google credentials: ") and ".." not in line, line
    assert line.endswith(". Sign in with `gcloud auth application-default login` (or set GOOGLE_APPLICATION_CREDENTIALS)"), line


# --- cancel -------------------------------------------------------------------------


def test_cancel_stops_the_jobs_active_job_only_and_says_which(emulator, scene):
    done = spot_training("cancel", "dev", "vision/resnet-smoke", env=env(emulator))
    assert done.returncode == 0, done.stderr
    assert f"cancelled {scene['second']}" in done.stdout
    assert state_of(emulator, scene["second"]) in ("JOB_STATE_CANCELLING", "JOB_STATE_CANCELLED")
    assert state_of(emulator, scene["first"]) == "JOB_STATE_FAILED"
    assert state_of(emulator, scene["eval"]) == state_of(emulator, scene["other"]) == "JOB_STATE_QUEUED"
    assert emulator.calls["CancelCustomJob"] == 1


def test_cancel_of_a_job_with_nothing_active_exits_1(emulator, scene):
    done = spot_training_in_process("cancel", "dev", "tabular/baseline", env=env(emulator))
    assert done.returncode == 1
    assert "no active job" in done.stderr and "tabular/baseline" in done.stderr
    clean(done)
    assert emulator.calls["CancelCustomJob"] == 0


def test_cancel_checks_the_stack_label_too_not_only_the_resource_label(emulator, bodies):
    """The resource label is a hash that names the stack already; a job that carries it with another
    stack's label is not the stack's, and is never cancelled (as a create never adopts one)."""
    other = submit(bodies["vision/eval"], spot_training_stack=submission_labels.stack_value("spot-training/prod"))
    done = spot_training_in_process("cancel", "dev", "vision/eval", env=env(emulator))
    assert done.returncode == 1
    assert state_of(emulator, other) == "JOB_STATE_QUEUED"


@pytest.mark.parametrize("job", ["resnet-smoke", "vision/", "/x", "a/b/c"])
def test_cancel_of_a_malformed_job_is_a_usage_error(emulator, job):
    done = spot_training_in_process("cancel", "dev", job, env=env(emulator))
    assert done.returncode == 2
    assert "TEAM/JOB" in done.stderr
    clean(done)
    assert sum(emulator.calls.values()) == 0


# --- logs ---------------------------------------------------------------------------


def test_logs_prints_the_query_and_the_gcloud_commands_of_the_newest_attempt(emulator, scene):
    done = spot_training("logs", "dev", "vision/resnet-smoke", env=env(emulator))
    assert done.returncode == 0, done.stderr
    job_id = scene["second"].rsplit("/", 1)[1]
    assert f'resource.type="ml_job" AND resource.labels.job_id="{job_id}"' in done.stdout
    assert f"gcloud ai custom-jobs stream-logs {job_id} --project=acme-ml-dev --region=us-central1" in done.stdout
    assert (
        f"gcloud logging read 'resource.type=\"ml_job\" AND resource.labels.job_id=\"{job_id}\"' --project=acme-ml-dev"
        in done.stdout
    )
    assert scene["first"].rsplit("/", 1)[1] in done.stdout  # the earlier attempt is named too
    assert emulator.calls["CancelCustomJob"] == 0


def test_logs_of_a_job_never_submitted_exits_1(emulator):
    done = spot_training_in_process("logs", "dev", "vision/eval", env=env(emulator))
    assert done.returncode == 1
    assert "no job of vision/eval was submitted" in done.stderr
    clean(done)


@pytest.mark.parametrize("verb", ["cancel", "logs"])
def test_a_job_the_stack_does_not_have_is_refused_before_credentials_with_a_did_you_mean(verb, tmp_path):
    """No credentials at all: the argument is checked against the stack first, so a typo is
    told as a typo, not as a missing sign-in."""
    done = spot_training_in_process(verb, "dev", "vision/resnet-smok", env={"GOOGLE_APPLICATION_CREDENTIALS": str(tmp_path / "missing.json")})
    assert done.returncode == 2
    assert "vision/resnet-smok is not a job of stack dev" in done.stderr, done.stderr
    assert "did you mean vision/resnet-smoke?" in done.stderr
    assert "credentials" not in done.stderr.lower()
    clean(done)


@pytest.mark.parametrize("verb", ["cancel", "logs"])
def test_a_job_name_no_stack_can_have_is_refused_before_credentials(verb, tmp_path):
    done = spot_training_in_process(verb, "dev", "vision/Eval Job", env={"GOOGLE_APPLICATION_CREDENTIALS": str(tmp_path / "missing.json")})
    assert done.returncode == 2
    assert "'vision/Eval Job'" in done.stderr and "lowercase letters" in done.stderr, done.stderr
    assert "credentials" not in done.stderr.lower()
    clean(done)


# --- sweep --------------------------------------------------------------------------


def export(*names: str) -> dict:
    root = "urn:pulumi:dev::spot-training::pulumi:pulumi:Stack::spot-training-dev"
    jobs = [
        {"urn": f"urn:pulumi:dev::spot-training::pulumi-python:dynamic/spot-training:SpotTrainingJob::job{i}",
         "custom": True, "id": name, "type": "pulumi-python:dynamic/spot-training:SpotTrainingJob", "inputs": {},
         "outputs": {"project": "acme-ml-dev", "location": "us-central1", "jobName": name}, "parent": root}
        for i, name in enumerate(names)
    ]
    return {"version": 3, "deployment": {"manifest": {}, "resources": [{"urn": root, "type": "pulumi:pulumi:Stack"}, *jobs]}}


def test_sweep_lists_orphans_says_how_to_cancel_them_then_cancels(emulator, scene, tmp_path):
    state = tmp_path / "dev-state.json"
    state.write_text(json.dumps(export(scene["first"], scene["second"])))  # vision/eval is not in state
    done = spot_training("sweep", "dev", "--state", str(state), env=env(emulator))
    assert done.returncode == 1, done.stderr
    assert "ORPHANED" in done.stdout and scene["eval"] in done.stdout and scene["other"] not in done.stdout
    command = f"spot-training sweep dev --state {state} --cancel"
    assert command in done.stdout
    assert emulator.calls["CancelCustomJob"] == 0

    done = spot_training_in_process(*command.split()[1:], env=env(emulator))
    assert done.returncode == 0, done.stderr
    assert f"cancelled {scene['eval']}" in done.stdout
    assert state_of(emulator, scene["eval"]) in ("JOB_STATE_CANCELLING", "JOB_STATE_CANCELLED")
    assert state_of(emulator, scene["second"]) == "JOB_STATE_RUNNING"
    assert state_of(emulator, scene["other"]) == "JOB_STATE_QUEUED"


def test_sweep_deletes_ended_records_no_state_points_to_and_comes_back_for_a_stopping_one(emulator, scene, tmp_path):
    state = tmp_path / "dev-state.json"
    state.write_text(json.dumps(export(scene["first"], scene["second"])))  # eval and baseline are not in state
    done = spot_training_in_process("sweep", "dev", "--state", str(state), env=env(emulator))
    assert done.returncode == 1, done.stderr  # eval is active: it bills
    lines = {line.split()[1]: line.split()[0] for line in done.stdout.splitlines() if "/customJobs/" in line}
    assert lines == {scene["eval"]: "ORPHANED", scene["baseline"]: "ENDED"}  # the first attempt is in state
    command = f"spot-training sweep dev --state {state} --delete-ended"
    assert command in done.stdout

    done = spot_training_in_process(*command.split()[1:], "--cancel", env=env(emulator))
    assert done.returncode == 3, done.stderr  # eval was cancelled, and is still stopping
    assert f"deleted {scene['baseline']}" in done.stdout and f"cancelled {scene['eval']}" in done.stdout
    assert f"{scene['eval']} is still JOB_STATE_CANCELLING: run the sweep again later" in done.stdout
    assert {j.name for j in emulator.jobs()} == {scene["first"], scene["second"], scene["eval"], scene["other"]}

    emulator.set_state(scene["eval"], "JOB_STATE_CANCELLED")  # it stopped
    done = spot_training_in_process(*command.split()[1:], env=env(emulator))
    assert done.returncode == 0, done.stderr
    assert f"deleted {scene['eval']}" in done.stdout
    assert {j.name for j in emulator.jobs()} == {scene["first"], scene["second"], scene["other"]}
    done = spot_training_in_process(*command.split()[1:], env=env(emulator))
    assert done.returncode == 0 and done.stdout.startswith("No job of stack dev (spot-training) outside its state")


def test_sweep_include_released_without_cancel_is_a_usage_error(emulator, tmp_path):
    done = spot_training_in_process("sweep", "dev", "--state", str(tmp_path / "x.json"), "--include-released", env=env(emulator))
    assert done.returncode == 2 and "--include-released only goes with --cancel or --delete-ended" in done.stderr
    clean(done)


def test_sweep_with_an_unreadable_state_is_one_error_and_exit_2(emulator, tmp_path):
    done = spot_training_in_process("sweep", "dev", "--state", str(tmp_path / "missing.json"), env=env(emulator))
    assert done.returncode == 2 and "cannot read" in done.stderr
    clean(done)


# --- the verbs' docs ----------------------------------------------------------------


def test_every_operations_verb_is_listed_by_help_and_documented():
    from pathlib import Path

    docs = (Path(__file__).resolve().parent.parent / "docs" / "cli.md").read_text()
    done = spot_training("--help")
    assert done.returncode == 0
    for verb in ("validate", "render", "policy", "diff", "status", "report", "cancel", "logs", "sweep"):
        assert verb in done.stdout
        assert f"## `spot-training {verb} STACK" in docs, f"docs/cli.md has no section for {verb}"


def test_status_reads_the_stack_where_the_offline_verbs_do(emulator, tmp_path):
    # SPOT_TRAINING_STACKS_DIR moves the stack files for validate, render and diff; the verbs that ask Vertex follow it.
    from tests.program import STACKS

    (tmp_path / "Pulumi.staging.yaml").write_text((STACKS / "Pulumi.dev.yaml").read_text())
    done = spot_training_in_process("status", "staging", stacks_dir=tmp_path, env=env(emulator))
    assert done.returncode == 0, done.stderr
    assert "no stack" not in done.stderr


# --- a job a region ladder moved ----------------------------------------------------


def test_status_and_cancel_find_an_attempt_a_region_ladder_moved_to_another_region(emulator, bodies, tmp_path):
    import yaml

    from tests.program import STACKS

    stack = yaml.safe_load((STACKS / "Pulumi.dev.yaml").read_text())
    stack["config"]["spot-training:teams"]["vision"]["jobs"]["resnet-smoke"]["resubmission"] = {
        "fallback": [{"afterStockouts": 1, "location": "us-east1"}]
    }
    (tmp_path / "Pulumi.dev.yaml").write_text(yaml.safe_dump(stack, allow_unicode=True))
    first = submit(bodies["vision/resnet-smoke"])
    emulator.preempt(first)
    from components.spot_job.client import job_service

    moved_body = json.loads(json.dumps(bodies["vision/resnet-smoke"]))
    moved_body["labels"][submission_labels.SUBMISSION_LABEL] = "attempt-2"
    service = job_service.JobService("us-east1")
    moved = service.create("projects/acme-ml-dev/locations/us-east1", moved_body)
    emulator.advance(moved["name"])

    done = spot_training_in_process("status", "dev", stacks_dir=tmp_path, env=env(emulator))
    assert done.returncode == 0, done.stderr
    attempts = sorted(rows(done.stdout)["vision/resnet-smoke"], key=lambda r: r[2])
    assert [(r[2], r[4]) for r in attempts] == [("1", "us-central1"), ("2", "us-east1")]

    done = spot_training_in_process("cancel", "dev", "vision/resnet-smoke", stacks_dir=tmp_path, env=env(emulator))
    assert done.returncode == 0, done.stderr
    assert f"cancelled {moved['name']}" in done.stdout
    assert state_of(emulator, moved["name"]) in ("JOB_STATE_CANCELLING", "JOB_STATE_CANCELLED")


def test_help_shows_no_type_for_a_flag_and_an_example_for_every_verb():
    done = spot_training_in_process("--help")
    assert done.returncode == 0 and "<bool>" not in done.stdout and "--version" in done.stdout
    for verb in ("validate", "render", "policy", "diff", "status", "report", "cancel", "logs", "sweep"):
        helped = spot_training_in_process(verb, "--help")
        assert helped.returncode == 0
        assert "<bool>" not in helped.stdout, helped.stdout
        assert f"spot-training {verb} dev" in helped.stdout, f"{verb} --help shows no example"


def test_dash_h_is_help_too():
    for args in (["-h"], ["render", "-h"]):
        done = spot_training_in_process(*args)
        assert done.returncode == 0 and done.stdout.startswith("Usage: "), done.stdout + done.stderr


def test_version_prints_the_installed_version():
    from importlib.metadata import version

    done = spot_training("--version")
    assert done.returncode == 0
    assert done.stdout.strip() == f"spot-training {version('spot-training')}"


@pytest.mark.parametrize("verb", [["status"], ["report"], ["cancel", "vision/eval"], ["logs", "vision/eval"], ["sweep"]])
def test_a_location_that_is_no_region_is_refused_before_credentials(verb, tmp_path):
    done = spot_training_in_process(verb[0], "dev", *verb[1:], "--location", "us-centrall1", env={"GOOGLE_APPLICATION_CREDENTIALS": str(tmp_path / "missing.json")})
    assert done.returncode == 2, done.stdout + done.stderr
    assert "--location: 'us-centrall1' is not a region" in done.stderr and "did you mean us-central1?" in done.stderr, done.stderr
    assert "credentials" not in done.stderr.lower()
    clean(done)
