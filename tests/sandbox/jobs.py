"""What the sandbox tests share: a workspace of their own, the services started in it, the example
trainer's packages in its bucket, and a pythonPackageSpec job submitted through the real client."""

from __future__ import annotations

import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import grpc
from google.auth.credentials import AnonymousCredentials
from google.cloud import aiplatform_v1, storage
from google.cloud.aiplatform_v1.services.job_service.transports import JobServiceGrpcTransport

from components.training_package import build_sdist, tree_hash
from sandbox import services
from sandbox.workspace import ROOT, Workspace

PARENT = "projects/acme-ml-dev/locations/us-central1"
BUCKET = "acme-ml-dev-tabular-staging"
TERMINAL = {"JOB_STATE_SUCCEEDED", "JOB_STATE_FAILED", "JOB_STATE_CANCELLED"}


@contextmanager
def running(root: Path, stack: str = "t", run_for: float = 30.0) -> Iterator[tuple[Workspace, services.Services]]:
    workspace = Workspace(stack, root / stack)
    started = services.ensure(workspace, run_for=run_for)
    try:
        yield workspace, started
    finally:
        services.stop(workspace)


def client(address: str) -> aiplatform_v1.JobServiceClient:
    return aiplatform_v1.JobServiceClient(transport=JobServiceGrpcTransport(channel=grpc.insecure_channel(address)))


def upload_trainer(storage_url: str) -> list[str]:
    """The example trainer's two packages (the runtime first), in the sandbox's bucket: their gs:// URIs."""
    gcs = storage.Client(project="sandbox", credentials=AnonymousCredentials(), client_options={"api_endpoint": storage_url})
    bucket = gcs.bucket(BUCKET)
    if not bucket.exists():
        bucket = gcs.create_bucket(BUCKET)
    uris = []
    for source in ("training/spot-runtime", "training/tabular-trainer"):
        sdist = build_sdist(ROOT / source, tree_hash(ROOT / source))
        name = f"packages/{tree_hash(ROOT / source)[:16]}/{sdist.name}"
        bucket.blob(name).upload_from_filename(str(sdist))
        uris.append(f"gs://{BUCKET}/{name}")
    return uris


def trainer_job(uris: list[str], output: str, args: list[str], strategy: str = "SPOT", display: str = "tabular-baseline") -> aiplatform_v1.CustomJob:
    return aiplatform_v1.CustomJob(
        display_name=display,
        job_spec=aiplatform_v1.CustomJobSpec(
            worker_pool_specs=[aiplatform_v1.WorkerPoolSpec(
                machine_spec=aiplatform_v1.MachineSpec(machine_type="n1-standard-4"), replica_count=1,
                python_package_spec=aiplatform_v1.PythonPackageSpec(
                    executor_image_uri="us-docker.pkg.dev/vertex-ai/training/sklearn-cpu.1-6:latest",
                    package_uris=uris, python_module="tabular_trainer.task", args=args,
                ),
            )],
            base_output_directory=aiplatform_v1.GcsDestination(output_uri_prefix=output),
            scheduling=aiplatform_v1.Scheduling(strategy=aiplatform_v1.Scheduling.Strategy[strategy]),
        ),
    )


def wait_for(jobs: aiplatform_v1.JobServiceClient, name: str, states: set[str], timeout: float = 240) -> aiplatform_v1.CustomJob:
    deadline = time.monotonic() + timeout
    while True:
        job = jobs.get_custom_job(name=name)
        if job.state.name in states:
            return job
        if time.monotonic() > deadline:
            raise AssertionError(f"{name} still {job.state.name} after {timeout} s, waiting for {sorted(states)}")
        time.sleep(0.2)
