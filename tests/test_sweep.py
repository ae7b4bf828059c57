"""The orphan sweep against the emulator, over jobs that the dynamic provider host really
submitted: as a user runs it (`python -m operations.sweep`, a process) where the entry point
or the environment is what is tested, its main(argv) in this process elsewhere.

The scene, in stack dev of project spot-training (stacks/Pulumi.dev.yaml:
acme-ml-dev, us-central1):
- vision-resnet is in the state; it was preempted and resubmitted, so its id
  (the first attempt) and its jobName (the running one) differ;
- vision-bert was created by an `up` that was interrupted before the engine
  recorded it, then the stack was destroyed: no state points to it (ORPHANED);
- vision-archive was submitted with `onDelete: keep` and its resource is gone
  (RELEASED);
- prod's vision-resnet runs in the same project and region, labelled with
  another stack: never listed, never touched.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys

import grpc
import pytest

from operations import sweep as sweep_command
from tests.cli_runner import main_in_process
from tests.emulator import JobServiceEmulator
from tests.fixtures import docs_request_body
from tests.program import ROOT, render
from tests.provider_host import JOB_TYPE, ProviderHost, deserialize

CONFIG = {
    "gcp:project": "acme-ml-dev",
    "gcp:region": "us-central1",
    "spot-training:environment": "dev",
}
JOBS = {
    "resnet": docs_request_body()["jobSpec"],
    "bert": docs_request_body()["jobSpec"],
    "archive": {**docs_request_body()["jobSpec"], "onDelete": "keep"},
}


def urn(name: str, stack: str = "dev") -> str:
    return f"urn:pulumi:{stack}::spot-training::{JOB_TYPE}::{name}"


@pytest.fixture(scope="module")
def rendered():
    """What the program registers for each job, `__provider` blob included, per stack."""
    dev = render({**CONFIG, "spot-training:teams": {"vision": {"jobs": JOBS}}}, stack="dev")
    prod = render({**CONFIG, "spot-training:teams": {"vision": {"jobs": {"resnet": JOBS["resnet"]}}}}, stack="prod")
    return {
        "dev": {job.name: job.inputs for job in dev.of_type("SpotTrainingJob")},
        "prod": {job.name: job.inputs for job in prod.of_type("SpotTrainingJob")},
    }


def create(host: ProviderHost, stack: str, name: str, inputs: dict, **changes) -> tuple[dict, dict]:
    """check + create, as `pulumi up` does: (the checked inputs, the resource's state)."""
    checked = deserialize(host.check(urn(name, stack), {}, {**inputs, **changes}).inputs)
    created = host.create(urn(name, stack), checked)
    return checked, {"id": created.id, **deserialize(created.properties)}


def export(resources: list[tuple[str, dict, dict]], stack: str = "dev", **deployment) -> dict:
    """What `pulumi stack export` prints for a stack holding `resources` (name, inputs, state)."""
    root = {"urn": f"urn:pulumi:{stack}::spot-training::pulumi:pulumi:Stack::spot-training-{stack}",
            "type": "pulumi:pulumi:Stack", "custom": False}
    jobs = [
        {"urn": urn(name, stack), "custom": True, "id": state["id"], "type": JOB_TYPE, "inputs": inputs,
         "outputs": {k: v for k, v in state.items() if k != "id"}, "parent": root["urn"]}
        for name, inputs, state in resources
    ]
    return {"version": 3, "deployment": {"manifest": {"version": "v3.200.0"}, "resources": [root, *jobs], **deployment}}


@pytest.fixture(scope="module")
def shared():
    """One emulator and one provider host for the module: the host imports Google's
    client once (seconds) instead of once per test."""
    with JobServiceEmulator() as emu, ProviderHost({"AIPLATFORM_EMULATOR_HOST": emu.address}) as host:
        yield emu, host


@pytest.fixture
def emulator(shared, monkeypatch):
    """The module's emulator, emptied: each test starts with no job, no fault, no call counted."""
    emu, _ = shared
    for job in emu.jobs():
        emu.remove(job.name)
    emu.clear_faults()
    emu.reset_calls()
    monkeypatch.setenv("AIPLATFORM_EMULATOR_HOST", emu.address)
    return emu


@pytest.fixture
def host(shared, emulator):
    return shared[1]


@pytest.fixture
def scene(emulator, host, rendered, tmp_path):
    dev, prod = rendered["dev"], rendered["prod"]
    inputs, resnet = create(host, "dev", "vision-resnet", dev["vision-resnet"])
    emulator.preempt(resnet["id"])  # and the next `up` resubmits it
    refreshed = deserialize(host.read(urn("vision-resnet"), resnet["id"], resnet).properties)
    resnet = {"id": resnet["id"], **deserialize(host.update(urn("vision-resnet"), resnet["id"], refreshed, inputs).properties)}
    _, bert = create(host, "dev", "vision-bert", dev["vision-bert"])
    _, archive = create(host, "dev", "vision-archive", dev["vision-archive"])
    _, other = create(host, "prod", "vision-resnet", prod["vision-resnet"])
    assert resnet["jobName"] != resnet["id"] and resnet["history"][0]["jobId"] == resnet["id"].rsplit("/", 1)[1]
    state = tmp_path / "dev-state.json"
    state.write_text(json.dumps(export([("vision-resnet", inputs, resnet)])))
    emulator.reset_calls()
    return {"state": state, "resnet": resnet, "bert": bert["id"], "archive": archive["id"], "prod": other["id"]}


def sweep(*args: str, env: dict | None = None) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "operations.sweep", *args],
        cwd=ROOT, env={**os.environ, **(env or {})}, capture_output=True, text=True, timeout=120,
    )


def sweep_here(capsys, *args: str) -> tuple[int, str, str]:
    """The command's main(argv) in this process (the emulator's address is in its
    environment): the same code as the command line, without importing Google's
    client again in a new process. (exit code, stdout, stderr)"""
    done = main_in_process(sweep_command.main, list(args), capsys)
    return done.returncode, done.stdout, done.stderr


def state_of(emulator, name: str) -> str:
    return emulator.job(name).state.name


def rows(output: str) -> dict[str, list[str]]:
    """The table's rows by job name: each line that names a job, split on its columns."""
    return {line.split()[1]: line.split() for line in output.splitlines() if "/customJobs/" in line and line.split()[0] in ("ORPHANED", "RELEASED")}


def test_lists_the_orphan_and_the_released_job_then_cancels_exactly_the_orphan(emulator, scene, capsys):
    result = sweep("dev", "--state", str(scene["state"]))
    assert result.returncode == 1, result.stderr
    listed = rows(result.stdout)
    assert set(listed) == {scene["bert"], scene["archive"]}
    bert = listed[scene["bert"]]
    assert bert[:4] == ["ORPHANED", scene["bert"], "vision-bert", "JOB_STATE_QUEUED"]
    assert bert[-1] == f"https://console.cloud.google.com/agent-platform/locations/us-central1/training/{scene['bert'].rsplit('/', 1)[1]}?project=acme-ml-dev"
    assert listed[scene["archive"]][:4] == ["RELEASED", scene["archive"], "vision-archive", "JOB_STATE_QUEUED"]
    assert scene["resnet"]["jobName"] not in result.stdout and scene["prod"] not in result.stdout
    command = f"uv run python -m operations.sweep dev --state {scene['state']} --cancel"
    assert command in result.stdout
    assert emulator.calls["CancelCustomJob"] == 0  # listing changes nothing

    code, out, err = sweep_here(capsys, *command.split()[5:])  # what it said to run
    assert code == 0, err
    assert f"cancelled {scene['bert']}" in out
    assert state_of(emulator, scene["bert"]) in ("JOB_STATE_CANCELLING", "JOB_STATE_CANCELLED")
    # The released job, the state's job and the other stack's job are untouched.
    assert state_of(emulator, scene["archive"]) == "JOB_STATE_QUEUED"
    assert state_of(emulator, scene["resnet"]["jobName"]) == "JOB_STATE_QUEUED"
    assert state_of(emulator, scene["prod"]) == "JOB_STATE_QUEUED"
    assert emulator.calls["CancelCustomJob"] == 1
    assert "--include-released" in out  # how to stop the released one too

    code, out, _ = sweep_here(capsys, "dev", "--state", str(scene["state"]))
    assert code == 0
    assert set(rows(out)) == {scene["archive"]}  # released ones are still shown, and are no alarm


def test_include_released_cancels_the_released_job_too(emulator, scene, capsys):
    code, _, err = sweep_here(capsys, "dev", "--state", str(scene["state"]), "--cancel", "--include-released")
    assert code == 0, err
    for name in (scene["bert"], scene["archive"]):
        assert state_of(emulator, name) in ("JOB_STATE_CANCELLING", "JOB_STATE_CANCELLED")
    assert state_of(emulator, scene["resnet"]["jobName"]) == state_of(emulator, scene["prod"]) == "JOB_STATE_QUEUED"


def test_include_released_without_cancel_is_a_usage_error(emulator, tmp_path, capsys):
    code, _, err = sweep_here(capsys, "dev", "--state", str(tmp_path / "state.json"), "--include-released")
    assert code == 2 and "--include-released only goes with --cancel" in err
    assert sum(emulator.calls.values()) == 0


def test_a_job_in_another_region_is_found_with_location(emulator, host, rendered, tmp_path, capsys):
    _, bert = create(host, "dev", "vision-bert", rendered["dev"]["vision-bert"], location="europe-west4")
    state = tmp_path / "empty.json"  # destroyed: nothing left in state
    state.write_text(json.dumps(export([])))
    code, out, _ = sweep_here(capsys, "dev", "--state", str(state))
    assert code == 0
    assert out.startswith("No job of stack dev") and "projects/acme-ml-dev/locations/us-central1" in out
    code, out, _ = sweep_here(capsys, "dev", "--state", str(state), "--location", "europe-west4")
    assert code == 1 and set(rows(out)) == {bert["id"]}
    assert "--location europe-west4 --cancel" in out


def test_a_stack_never_deployed_has_nothing_to_sweep(emulator, tmp_path, capsys):
    state = tmp_path / "empty.json"
    state.write_text(json.dumps({"version": 3, "deployment": {"manifest": {}}}))  # no `resources` at all
    code, out, _ = sweep_here(capsys, "dev", "--state", str(state))
    assert code == 0 and out.startswith("No job of stack dev (spot-training) outside its state")


def test_a_region_of_a_job_in_state_is_searched_too(emulator, host, rendered, tmp_path, capsys):
    inputs, kept = create(host, "dev", "vision-resnet", rendered["dev"]["vision-resnet"], location="europe-west4")
    _, bert = create(host, "dev", "vision-bert", rendered["dev"]["vision-bert"], location="europe-west4")
    state = tmp_path / "state.json"
    state.write_text(json.dumps(export([("vision-resnet", inputs, kept)])))
    code, out, _ = sweep_here(capsys, "dev", "--state", str(state))
    assert code == 1 and set(rows(out)) == {bert["id"]}


def test_without_state_it_runs_pulumi_stack_export(emulator, scene, tmp_path):
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    pulumi = bin_dir / "pulumi"  # stands in for the CLI: prints the export, notes its arguments
    pulumi.write_text(f"#!/bin/sh\necho \"$@\" > {tmp_path / 'args'}\ncat {scene['state']}\n")
    pulumi.chmod(0o755)
    result = sweep("dev", env={"PATH": f"{bin_dir}:{os.environ['PATH']}"})
    assert result.returncode == 1, result.stderr
    assert (tmp_path / "args").read_text().split() == ["stack", "export", "--stack", "dev"]
    assert set(rows(result.stdout)) == {scene["bert"], scene["archive"]}


def test_without_the_pulumi_cli_it_says_to_pass_state(emulator, tmp_path, capsys, monkeypatch):
    monkeypatch.setenv("PATH", str(tmp_path))  # no `pulumi` there
    code, _, err = sweep_here(capsys, "dev")
    assert code == 2
    assert "--state" in err and "pulumi stack export --stack dev" in err
    assert len(err.strip().splitlines()) == 1


def test_a_failing_pulumi_cli_is_one_error_with_its_message(emulator, tmp_path, capsys, monkeypatch):
    (tmp_path / "pulumi").write_text("#!/bin/sh\necho 'error: no stack named dev found' >&2\nexit 255\n")
    (tmp_path / "pulumi").chmod(0o755)
    monkeypatch.setenv("PATH", f"{tmp_path}:{os.environ['PATH']}")
    code, _, err = sweep_here(capsys, "dev")
    assert code == 2 and "no stack named dev found" in err


@pytest.mark.parametrize(
    "content, says",
    [
        (None, "cannot read"),
        ("{not json", "not the JSON of `pulumi stack export`"),
        ('{"resources": []}', "no `deployment`"),
        ('{"version": 2, "deployment": {}}', "version 2"),
    ],
)
def test_an_unreadable_state_file_is_one_error_naming_it(emulator, tmp_path, content, says, capsys):
    path = tmp_path / "state.json"
    if content is not None:
        path.write_text(content)
    code, out, err = sweep_here(capsys, "dev", "--state", str(path))
    assert code == 2, out
    assert str(path) in err and says in err
    assert len(err.strip().splitlines()) == 1
    assert sum(emulator.calls.values()) == 0


def test_the_state_of_another_stack_is_refused_before_anything_is_cancelled(emulator, tmp_path, capsys):
    path = tmp_path / "prod.json"
    path.write_text(json.dumps(export([], stack="prod")))
    code, _, err = sweep_here(capsys, "dev", "--state", str(path), "--cancel")
    assert code == 2
    assert "stack prod" in err and "not dev" in err
    assert sum(emulator.calls.values()) == 0


def test_an_unknown_stack_is_one_error_naming_it(emulator, tmp_path, capsys):
    code, _, err = sweep_here(capsys, "staging", "--state", str(tmp_path / "x.json"))
    assert code == 2
    assert "staging" in err and "stacks/Pulumi.staging.yaml" in err and "dev, prod" in err


def test_a_vertex_error_is_one_message_and_exit_2(emulator, tmp_path, capsys):
    path = tmp_path / "empty.json"
    path.write_text(json.dumps(export([])))
    emulator.inject("ListCustomJobs", grpc.StatusCode.PERMISSION_DENIED, times=1)
    code, out, err = sweep_here(capsys, "dev", "--state", str(path))
    assert code == 2 and out == ""
    assert "roles/aiplatform.viewer" in err and "projects/acme-ml-dev" in err
    assert len(err.strip().splitlines()) == 1


def test_pending_operations_in_state_are_pointed_out(emulator, scene, tmp_path, capsys):
    """An update running now (or interrupted) records its creates as pending: their jobs show as orphans."""
    exported = json.loads(scene["state"].read_text())
    exported["deployment"]["pending_operations"] = [
        {"resource": {"urn": urn("vision-bert"), "type": JOB_TYPE, "custom": True}, "type": "creating"}
    ]
    path = tmp_path / "pending.json"
    path.write_text(json.dumps(exported))
    code, _, err = sweep_here(capsys, "dev", "--state", str(path))
    assert code == 1
    assert urn("vision-bert") in err and "(creating)" in err and "run the sweep once it ends" in err


# --- the records of ended jobs -------------------------------------------------------------


def statuses(output: str) -> dict[str, str]:
    """The table's STATUS column by job name, for every kind the sweep reports."""
    return {
        line.split()[1]: line.split()[0] for line in output.splitlines()
        if "/customJobs/" in line and line.split()[0] in ("ORPHANED", "RELEASED", "CANCELLING", "ENDED")
    }


@pytest.fixture
def ended(emulator, host, scene, rendered):
    """The scene once its jobs ended, plus two more submissions of vision-bert (reruns) that no
    state points to either: one CANCELLED, one still CANCELLING. vision-resnet's first attempt
    (FAILED, in the state's history) and prod's job ended too."""
    dev = rendered["dev"]
    emulator.set_state(scene["bert"], "JOB_STATE_SUCCEEDED")
    _, cancelled = create(host, "dev", "vision-bert", dev["vision-bert"], rerun="1")
    emulator.set_state(cancelled["id"], "JOB_STATE_CANCELLED")
    _, stopping = create(host, "dev", "vision-bert", dev["vision-bert"], rerun="2")
    emulator.set_state(stopping["id"], "JOB_STATE_CANCELLING")
    emulator.set_state(scene["archive"], "JOB_STATE_FAILED")
    emulator.set_state(scene["prod"], "JOB_STATE_SUCCEEDED")
    emulator.reset_calls()
    return {**scene, "cancelled": cancelled["id"], "stopping": stopping["id"]}


def test_ended_records_no_state_points_to_are_listed_with_the_command_that_deletes_them(emulator, ended, capsys):
    code, out, err = sweep_here(capsys, "dev", "--state", str(ended["state"]))
    assert code == 0, err  # nothing bills: no CI step fails on records
    assert statuses(out) == {
        ended["bert"]: "ENDED", ended["cancelled"]: "ENDED", ended["stopping"]: "CANCELLING", ended["archive"]: "RELEASED",
    }
    first_attempt = f"projects/acme-ml-dev/locations/us-central1/customJobs/{ended['resnet']['history'][0]['jobId']}"
    assert emulator.job(first_attempt).state.name == "JOB_STATE_FAILED"
    assert first_attempt not in out and ended["prod"] not in out
    assert f"uv run python -m operations.sweep dev --state {ended['state']} --delete-ended" in out
    assert "run the sweep again" in out  # for the one still stopping
    assert emulator.calls["DeleteCustomJob"] == emulator.calls["CancelCustomJob"] == 0


def test_delete_ended_deletes_exactly_the_ended_records_and_says_to_come_back_for_the_cancelling_one(emulator, ended, capsys):
    code, out, err = sweep_here(capsys, "dev", "--state", str(ended["state"]), "--delete-ended")
    assert code == 3, err  # done what it could; a record is still stopping
    for name in (ended["bert"], ended["cancelled"]):
        assert f"deleted {name}" in out
    remaining = {job.name for job in emulator.jobs()}
    assert not {ended["bert"], ended["cancelled"]} & remaining
    assert {ended["stopping"], ended["archive"], ended["prod"], ended["resnet"]["jobName"]} <= remaining
    assert len(ended["resnet"]["history"]) == 1 and len(remaining) == 5  # and vision-resnet's first attempt
    assert f"{ended['stopping']} is still JOB_STATE_CANCELLING" in out and "run the sweep again" in out

    emulator.set_state(ended["stopping"], "JOB_STATE_CANCELLED")  # it stopped
    code, out, err = sweep_here(capsys, "dev", "--state", str(ended["state"]), "--delete-ended")
    assert code == 0, err
    assert f"deleted {ended['stopping']}" in out and ended["stopping"] not in {job.name for job in emulator.jobs()}
    assert statuses(out) == {ended["stopping"]: "ENDED", ended["archive"]: "RELEASED"}
    assert "--include-released" in out  # how to delete the released record too

    code, out, err = sweep_here(capsys, "dev", "--state", str(ended["state"]), "--delete-ended", "--include-released")
    assert code == 0, err
    assert f"deleted {ended['archive']}" in out
    assert {job.name for job in emulator.jobs()} == {ended["prod"], ended["resnet"]["jobName"], ended["resnet"]["id"]}


def test_cancel_with_delete_ended_deletes_an_orphan_that_stopped_at_once(emulator, scene, capsys, monkeypatch):
    monkeypatch.setattr(emulator, "cancel_polls", 0)  # the first read after a cancel sees it CANCELLED
    code, out, err = sweep_here(capsys, "dev", "--state", str(scene["state"]), "--cancel", "--delete-ended")
    assert code == 0, err
    assert f"cancelled {scene['bert']}" in out and f"deleted {scene['bert']}" in out
    assert scene["bert"] not in {job.name for job in emulator.jobs()}
    assert state_of(emulator, scene["archive"]) == "JOB_STATE_QUEUED"  # released: neither cancelled nor deleted


def test_an_orphan_cancelled_now_but_still_stopping_is_left_for_the_next_sweep(emulator, scene, capsys, monkeypatch):
    monkeypatch.setattr(emulator, "cancel_polls", 5)
    code, out, err = sweep_here(capsys, "dev", "--state", str(scene["state"]), "--cancel", "--delete-ended")
    assert code == 3, err
    assert f"cancelled {scene['bert']}" in out and "run the sweep again" in out
    assert state_of(emulator, scene["bert"]) == "JOB_STATE_CANCELLING" and emulator.calls["DeleteCustomJob"] == 0


def test_delete_ended_with_active_orphans_left_exits_1_and_deletes_only_ended_records(emulator, scene, capsys):
    emulator.set_state(scene["archive"], "JOB_STATE_SUCCEEDED")
    code, out, err = sweep_here(capsys, "dev", "--state", str(scene["state"]), "--delete-ended", "--include-released")
    assert code == 1, err  # the orphan still bills: that is what a CI step should fail on
    assert f"deleted {scene['archive']}" in out and state_of(emulator, scene["bert"]) == "JOB_STATE_QUEUED"
    assert "--cancel" in out


def test_a_younger_copy_of_a_released_jobs_key_is_an_orphan_not_released():
    """A destroy under `onDelete: keep` keeps the oldest job of the key running; a copy of that key no
    list showed then is a duplicate (submission.py's invariant): ORPHANED, cancelled by --cancel."""
    from types import SimpleNamespace

    from components.spot_job.model import submission_labels as job_labels
    from operations.sweep import Status, unaccounted

    released = {job_labels.SUBMISSION_LABEL: "k1", job_labels.RELEASE_LABEL: job_labels.RELEASED}
    parent = "projects/acme-ml-dev/locations/us-central1/customJobs"
    jobs = [
        {"name": f"{parent}/2", "state": "JOB_STATE_RUNNING", "labels": released, "createTime": "2026-12-04T10:00:05Z"},
        {"name": f"{parent}/1", "state": "JOB_STATE_RUNNING", "labels": released, "createTime": "2026-12-04T10:00:04.5Z"},
        {"name": f"{parent}/3", "state": "JOB_STATE_SUCCEEDED", "labels": released, "createTime": "2026-12-04T10:00:06Z"},
    ]
    found = {f.job["name"]: f.status for f in unaccounted(jobs, SimpleNamespace(job_names=set()))}
    assert found == {f"{parent}/1": Status.RELEASED, f"{parent}/2": Status.ORPHANED, f"{parent}/3": Status.RELEASED}
    # The kept job still in state (its resource not destroyed yet): a younger copy is an orphan all the same.
    found = {f.job["name"]: f.status for f in unaccounted(jobs, SimpleNamespace(job_names={f"{parent}/1"}))}
    assert found == {f"{parent}/2": Status.ORPHANED, f"{parent}/3": Status.RELEASED}
