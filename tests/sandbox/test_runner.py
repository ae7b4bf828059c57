"""A job in the sandbox runs its code: the example trainer, installed from the job's packageUris,
trains to SUCCEEDED with the environment Vertex gives it, is preempted and restarted, and resumes."""

from __future__ import annotations

import json
from collections.abc import Iterator

import pytest
from google.auth.credentials import AnonymousCredentials
from google.cloud import storage

from sandbox.jobservice import developer_api
from sandbox.services import Services
from sandbox.workspace import Workspace
from tests.sandbox.jobs import BUCKET, PARENT, TERMINAL, client, running, trainer_job, upload_trainer, wait_for
from tests.sandbox.walk import wait


@pytest.fixture(scope="module")
def sandbox(tmp_path_factory) -> Iterator[tuple[Workspace, Services, list[str]]]:
    """One sandbox for the module, the trainer's packages uploaded once: each test makes jobs of its
    own, with outputs of their own, and finds them by name (a sandbox's start is a second of CPU)."""
    with running(tmp_path_factory.mktemp("sandbox")) as (workspace, started):
        yield workspace, started, upload_trainer(started.endpoints.storage)


def _model(storage_url: str, prefix: str) -> dict[str, bytes]:
    gcs = storage.Client(project="sandbox", credentials=AnonymousCredentials(), client_options={"api_endpoint": storage_url})
    return {b.name.removeprefix(prefix): b.download_as_bytes() for b in gcs.list_blobs(BUCKET, prefix=prefix)}


def test_a_python_package_job_trains_to_succeeded_with_vertex_s_environment(sandbox):
    workspace, started, uris = sandbox
    jobs = client(started.endpoints.jobservice)
    output = f"gs://{BUCKET}/outputs/run-1"
    job = jobs.create_custom_job(parent=PARENT, custom_job=trainer_job(uris, output, ["--steps=2000"]))
    done = wait_for(jobs, job.name, TERMINAL)
    job_id = job.name.rsplit("/", 1)[1]
    log = (workspace.replica_log(job_id, 1, 0, 0)).read_text()
    assert done.state.name == "JOB_STATE_SUCCEEDED", (done.error, log)
    assert "no checkpoint: starting at step 0/2000" in log and "trained 2000 steps" in log, log
    model = _model(started.endpoints.storage, "outputs/run-1/model/")
    assert set(model) >= {"model.npz", "metrics.json"}, sorted(model)
    record = json.loads(_model(started.endpoints.storage, "outputs/run-1/checkpoints/progress.json")[""])
    assert record["jobId"] == job_id and record["step"] == 2000


def test_a_failing_trainer_fails_the_job_with_its_exit_status_and_last_lines(sandbox):
    workspace, started, uris = sandbox
    jobs = client(started.endpoints.jobservice)
    job = jobs.create_custom_job(parent=PARENT, custom_job=trainer_job(uris, f"gs://{BUCKET}/outputs/bad", ["--steps=0"]))
    done = wait_for(jobs, job.name, TERMINAL)
    assert done.state.name == "JOB_STATE_FAILED"
    assert "workerpool0-0 exited with a non-zero status of 2" in done.error.message, done.error.message
    assert "--steps" in done.error.message  # argparse's complaint, from the log's last lines


def test_preempted_restarted_and_resumed_then_stockout_for_good(sandbox):
    workspace, started, uris = sandbox
    jobs = client(started.endpoints.jobservice)
    address = started.endpoints.jobservice
    job = jobs.create_custom_job(
        parent=PARENT, custom_job=trainer_job(uris, f"gs://{BUCKET}/outputs/spot", ["--steps=400000", "--checkpoint-interval=2000"])
    )
    job_id = job.name.rsplit("/", 1)[1]
    wait_for(jobs, job.name, {"JOB_STATE_RUNNING"})
    first = workspace.replica_log(job_id, 1, 0, 0)
    wait(lambda: "checkpoint" in first.read_text() if first.exists() else False, "a first checkpoint")
    said = developer_api.call(address, "Preempt", {"job": job.name, "grace": 30})
    assert "restart 1 of 6" in said["message"]
    second = workspace.replica_log(job_id, 2, 0, 0)
    wait(lambda: second.exists() and "resumed from step" in second.read_text(), "attempt 2 resuming")
    assert "resumed from step 0/" not in second.read_text()
    assert jobs.get_custom_job(name=job.name).state.name == "JOB_STATE_RUNNING"

    said = developer_api.call(address, "Preempt", {"job": job.name, "grace": 0, "forGood": True})
    assert "STOCKOUT" in said["message"]
    done = wait_for(jobs, job.name, TERMINAL)
    assert done.state.name == "JOB_STATE_FAILED" and done.error.code == 8 and "STOCKOUT" in done.error.message
    described = {j["name"]: j for j in developer_api.call(address, "Describe", {})["jobs"]}
    assert described[job.name]["replicas"] == []  # nothing left running


def test_a_preemption_of_a_job_that_is_not_running_or_not_on_spot_is_refused(sandbox):
    _, started, uris = sandbox
    jobs = client(started.endpoints.jobservice)
    standard = jobs.create_custom_job(
        parent=PARENT, custom_job=trainer_job(uris, f"gs://{BUCKET}/outputs/std", ["--steps=400000"], strategy="STANDARD")
    )
    with pytest.raises(developer_api.DeveloperError, match="not RUNNING"):  # still queued
        developer_api.call(started.endpoints.jobservice, "Preempt", {"job": standard.name})
    wait_for(jobs, standard.name, {"JOB_STATE_RUNNING"})
    with pytest.raises(developer_api.DeveloperError, match="not SPOT"):
        developer_api.call(started.endpoints.jobservice, "Preempt", {"job": standard.name})
    jobs.cancel_custom_job(name=standard.name)
    assert wait_for(jobs, standard.name, TERMINAL).state.name == "JOB_STATE_CANCELLED"



def test_chaos_preempts_a_running_spot_job_by_itself_and_vertex_restarts_it_until_turned_off(sandbox):
    workspace, started, uris = sandbox
    jobs = client(started.endpoints.jobservice)
    address = started.endpoints.jobservice
    spot = jobs.create_custom_job(
        parent=PARENT, custom_job=trainer_job(uris, f"gs://{BUCKET}/outputs/chaos", ["--steps=2000000", "--checkpoint-interval=2000"])
    )
    standard = jobs.create_custom_job(
        parent=PARENT, custom_job=trainer_job(uris, f"gs://{BUCKET}/outputs/standard", ["--steps=2000000"], strategy="STANDARD", display="on-demand"),
    )
    wait_for(jobs, spot.name, {"JOB_STATE_RUNNING"})
    spot_id, standard_id = spot.name.rsplit("/", 1)[1], standard.name.rsplit("/", 1)[1]
    try:
        said = developer_api.call(address, "Chaos", {"every": 1, "seed": 7, "grace": 0})
        assert said["message"] == "chaos: every running SPOT job preempted about every 1 s"
        wait(lambda: workspace.replica_log(spot_id, 3, 0, 0).exists(), "two preemptions nobody typed, two restarts", timeout=120)
    finally:  # the module's later tests share this sandbox
        assert developer_api.call(address, "Chaos", {"every": 0})["message"] == "chaos: off"
    assert jobs.get_custom_job(name=spot.name).state.name == "JOB_STATE_RUNNING"  # restarted, not ended
    assert not workspace.replica_log(standard_id, 2, 0, 0).exists()  # on-demand VMs are not reclaimed
    jobs.cancel_custom_job(name=spot.name)
    jobs.cancel_custom_job(name=standard.name)
    wait_for(jobs, spot.name, TERMINAL)
    wait_for(jobs, standard.name, TERMINAL)
