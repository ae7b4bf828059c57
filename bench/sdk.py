"""The baseline of the emulator benchmarks: Google's high-level Vertex AI SDK
(`google.cloud.aiplatform`), pointed at the local JobService emulator.

What is patched, and why: the SDK builds every GAPIC client with the default
gRPC transport, whose channel comes from `google.api_core.grpc_helpers.create_channel`
(TLS to `<region>-aiplatform.googleapis.com:443`, with credentials). The
emulator speaks plaintext gRPC on 127.0.0.1, so `point_at` replaces that one
function, in this process only, by one that returns
`grpc.insecure_channel(<emulator address>)`. That is the transport and nothing
else: the SDK's own logic (resource objects, request building, its retry and
LRO handling, a new client per call) runs unchanged. `aiplatform.init` is given
a project, a location, `AnonymousCredentials` (no Google credentials exist
here, and the insecure channel never uses them) and a staging bucket (the
CustomJob constructor insists on one; nothing is uploaded to it, since
`base_output_dir` is always given).

Imported by the benchmarks, and by the fresh process of the cold-start
baseline (`python -c "import bench.sdk ..."`), so it imports only what the
SDK itself needs.
"""

from __future__ import annotations

import logging
from typing import Any

import grpc
from google.api_core import grpc_helpers
from google.auth.credentials import AnonymousCredentials
from google.cloud import aiplatform, aiplatform_v1
from google.protobuf import json_format

PROJECT = "acme-ml-dev"
LOCATION = "us-central1"


def point_at(address: str) -> None:
    """Patch the SDK's channel factory to the plaintext emulator, and init the SDK."""
    grpc_helpers.create_channel = lambda target, *args, **kwargs: grpc.insecure_channel(address)
    aiplatform.init(
        project=PROJECT,
        location=LOCATION,
        credentials=AnonymousCredentials(),
        staging_bucket="gs://bench-staging",
    )
    # The SDK logs every create and delete at INFO, to stdout, from a logger per module that sets its
    # own level; the benchmarks print tables (and the cold child reports on stdout).
    for name, logger in list(logging.root.manager.loggerDict.items()):
        if name.startswith("google.cloud.aiplatform") and isinstance(logger, logging.Logger):
            logger.setLevel(logging.WARNING)


def job_args(body: dict[str, Any]) -> tuple[dict[str, Any], dict[str, Any]]:
    """(CustomJob constructor kwargs, submit() kwargs) for a REST `request.json` body: the same job,
    said in the SDK's public arguments (service account and Spot strategy are submit()'s)."""
    job = aiplatform_v1.CustomJob.wrap(json_format.ParseDict(body, aiplatform_v1.CustomJob.pb()()))
    constructor = {
        "display_name": job.display_name,
        "worker_pool_specs": list(job.job_spec.worker_pool_specs),
        "base_output_dir": job.job_spec.base_output_directory.output_uri_prefix,
        "labels": dict(job.labels),
    }
    submit_args = {
        "service_account": job.job_spec.service_account or None,
        "scheduling_strategy": job.job_spec.scheduling.strategy,
    }
    return constructor, submit_args


def submit(constructor: dict[str, Any], submit_args: dict[str, Any]) -> aiplatform.CustomJob:
    """`aiplatform.CustomJob(...).submit()`: returns once Vertex accepted the job."""
    job = aiplatform.CustomJob(**constructor)
    job.submit(**submit_args)
    return job
