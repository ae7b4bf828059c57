"""The sandbox's JobService keeps its jobs in a journal: a service killed and started again still has
them, so the provider's next look by label finds the job and never submits it again."""

from __future__ import annotations

import grpc
from google.cloud import aiplatform_v1
from google.cloud.aiplatform_v1.services.job_service.transports import JobServiceGrpcTransport

from sandbox.jobservice.models import JobStore
from sandbox.jobservice.server import JobServiceServer, PortTaken

PARENT = "projects/acme-ml-dev/locations/us-central1"


def _client(address: str) -> aiplatform_v1.JobServiceClient:
    return aiplatform_v1.JobServiceClient(transport=JobServiceGrpcTransport(channel=grpc.insecure_channel(address)))


def _job() -> aiplatform_v1.CustomJob:
    return aiplatform_v1.CustomJob(
        display_name="tabular-baseline",
        labels={"spot_training_key": "k1"},
        job_spec=aiplatform_v1.CustomJobSpec(worker_pool_specs=[aiplatform_v1.WorkerPoolSpec(
            machine_spec=aiplatform_v1.MachineSpec(machine_type="n1-standard-4"), replica_count=1,
            container_spec=aiplatform_v1.ContainerSpec(image_uri="us-docker.pkg.dev/p/r/i@sha256:" + "0" * 64),
        )]),
    )


def test_jobs_outlive_the_service_through_the_journal(tmp_path):
    journal = tmp_path / "jobs.json"
    first = JobServiceServer(JobStore(journal=journal))
    created = _client(first.start()).create_custom_job(parent=PARENT, custom_job=_job())
    _client(first.address).cancel_custom_job(name=created.name)
    first.stop()

    second = JobServiceServer(JobStore(journal=journal))
    try:
        client = _client(second.start())
        found = list(client.list_custom_jobs(request={"parent": PARENT, "filter": "labels.spot_training_key=k1"}))
        again = client.get_custom_job(name=created.name)
    finally:
        second.stop()
    assert [j.name for j in found] == [created.name]
    assert again.state == aiplatform_v1.JobState.JOB_STATE_CANCELLING
    assert again.create_time == created.create_time and dict(again.labels) == {"spot_training_key": "k1"}


def test_a_damaged_journal_is_named_not_silently_emptied(tmp_path):
    journal = tmp_path / "jobs.json"
    journal.write_text("{not json")
    try:
        JobStore(journal=journal)
    except ValueError as problem:
        assert str(journal) in str(problem)
    else:
        raise AssertionError("a damaged journal was read as no jobs: the provider would submit every job again")


def test_a_taken_port_is_refused_by_name(tmp_path):
    holder = JobServiceServer()
    port = int(holder.start().rsplit(":", 1)[1])
    try:
        second = JobServiceServer()
        try:
            second.start(port=port)
        except PortTaken as problem:
            assert f"port {port}" in str(problem)
        else:
            second.stop()
            raise AssertionError("a second service bound a port already taken")
    finally:
        holder.stop()
