"""Vertex AI's JobService as the SpotTrainingJob provider uses it.

A thin adapter over the `aiplatform_v1` GAPIC client: it picks the regional
endpoint (or the emulator), gives every call the retry and timeout the client
lacks by default, and speaks REST-shaped dicts so the provider never touches
protos. No Pulumi here. Imported only inside provider methods: the client
takes seconds to import, and a client or channel must never be pickled.
"""

from __future__ import annotations

import logging
import os
from dataclasses import dataclass
from typing import Any, Callable

import grpc
from google.api_core import exceptions
from google.api_core import retry as retries
from google.cloud import aiplatform_v1
from google.cloud.aiplatform_v1.services.job_service.transports import JobServiceGrpcTransport
from google.protobuf import json_format

from .spec import SUBMISSION_LABEL

log = logging.getLogger("spot-training")

# The convention of PUBSUB_EMULATOR_HOST and STORAGE_EMULATOR_HOST: host:port
# of a plaintext gRPC JobService, used with no credentials at all.
EMULATOR_HOST_ENV = "AIPLATFORM_EMULATOR_HOST"

CALL_TIMEOUT = 60.0  # one RPC
READ_DEADLINE = 120.0  # a read, across its retries
# Submissions share a 60-per-minute regional quota: give a burst more than a
# minute of backoff before calling RESOURCE_EXHAUSTED final.
SUBMIT_DEADLINE = 300.0


@dataclass(frozen=True)
class Pace:
    """Exponential backoff, in seconds (google-api-core jitters each sleep)."""

    initial: float
    maximum: float
    multiplier: float


BACKOFF = Pace(initial=1.0, maximum=32.0, multiplier=2.0)  # after a transient error
# While waiting on a job: quick at first, then every 15 s, well inside the
# 600 requests per minute per region that JobService allows.
POLL = Pace(initial=1.0, maximum=15.0, multiplier=1.5)

ACTIVE_STATES = frozenset(
    {"JOB_STATE_QUEUED", "JOB_STATE_PENDING", "JOB_STATE_RUNNING", "JOB_STATE_PAUSED", "JOB_STATE_UPDATING"}
)
TERMINAL_STATES = frozenset(
    {
        "JOB_STATE_SUCCEEDED",
        "JOB_STATE_FAILED",
        "JOB_STATE_CANCELLED",
        "JOB_STATE_EXPIRED",
        "JOB_STATE_PARTIALLY_SUCCEEDED",
    }
)

# Errors after which the same request may well succeed. A submission that hit
# one may or may not have landed; `submit` looks before it tries again.
_TRANSIENT = (
    exceptions.ServiceUnavailable,
    exceptions.InternalServerError,
    exceptions.ResourceExhausted,
    exceptions.DeadlineExceeded,
    exceptions.Aborted,
)


class VertexError(RuntimeError):
    """A call Vertex AI refused for good, with what to do about it."""


class _StillActive(Exception):
    """Raised while polling: the job has not reached a terminal state yet."""


def _log_retry(error: Exception) -> None:
    log.warning("Vertex AI call failed, retrying: %s", error)


def _transient_retry(deadline: float) -> retries.Retry:
    return retries.Retry(
        predicate=retries.if_exception_type(*_TRANSIENT),
        initial=BACKOFF.initial,
        maximum=BACKOFF.maximum,
        multiplier=BACKOFF.multiplier,
        timeout=deadline,
        on_error=_log_retry,
    )


def job_service_client(location: str) -> aiplatform_v1.JobServiceClient:
    emulator = os.environ.get(EMULATOR_HOST_ENV)
    if emulator:
        channel = grpc.insecure_channel(emulator)
        return aiplatform_v1.JobServiceClient(transport=JobServiceGrpcTransport(channel=channel))
    return aiplatform_v1.JobServiceClient(client_options={"api_endpoint": f"{location}-aiplatform.googleapis.com"})


def console_url(name: str) -> str:
    """The Cloud console page of a job, linked as the Vertex AI SDK (2.x) links it."""
    parts = name.split("/")  # projects/P/locations/L/customJobs/ID
    project, location, job_id = parts[1], parts[3], parts[5]
    return f"https://console.cloud.google.com/agent-platform/locations/{location}/training/{job_id}?project={project}"


def to_proto(body: dict[str, Any]) -> aiplatform_v1.CustomJob:
    message = json_format.ParseDict(body, aiplatform_v1.CustomJob.pb()())
    return aiplatform_v1.CustomJob.wrap(message)


def to_dict(job: aiplatform_v1.CustomJob) -> dict[str, Any]:
    return json_format.MessageToDict(aiplatform_v1.CustomJob.pb(job))


class JobService:
    """One region's JobService for the span of one provider call."""

    def __init__(self, location: str) -> None:
        self._client = job_service_client(location)

    def __enter__(self) -> "JobService":
        return self

    def __exit__(self, *_: object) -> None:
        self._client.transport.close()

    def find(self, parent: str, key: str) -> dict[str, Any] | None:
        """The job submitted under submission key `key`, if Vertex holds one."""
        pager = self._call(
            "look up the job's submission label",
            self._client.list_custom_jobs,
            request={"parent": parent, "filter": f'labels.{SUBMISSION_LABEL}="{key}"', "page_size": 10},
            retry=_transient_retry(READ_DEADLINE),
            timeout=CALL_TIMEOUT,
        )
        jobs = list(pager)
        return to_dict(jobs[0]) if jobs else None

    def submit(self, parent: str, body: dict[str, Any], key: str) -> tuple[dict[str, Any], bool]:
        """Submits `body`, labelled with submission key `key`, once: (the job,
        whether an earlier submission was adopted).

        CreateCustomJob has no request id, so it is never retried blindly: every
        attempt first looks for a job carrying the submission key, which also
        covers an earlier `pulumi up` that died before it recorded the job.
        """

        def adopt_or_create() -> tuple[dict[str, Any], bool]:
            found = self.find(parent, key)
            if found is not None:
                return found, True
            job = self._call(
                "submit the job",
                self._client.create_custom_job,
                parent=parent,
                custom_job=to_proto(body),
                retry=None,
                timeout=CALL_TIMEOUT,
            )
            return to_dict(job), False

        return _transient_retry(SUBMIT_DEADLINE)(adopt_or_create)()

    def get(self, name: str) -> dict[str, Any] | None:
        """The job, or None if it no longer exists."""
        try:
            job = self._client.get_custom_job(name=name, retry=_transient_retry(READ_DEADLINE), timeout=CALL_TIMEOUT)
        except exceptions.NotFound:
            return None
        return to_dict(job)

    def cancel(self, name: str) -> None:
        try:
            self._call(
                "cancel the job",
                self._client.cancel_custom_job,
                name=name,
                retry=_transient_retry(READ_DEADLINE),
                timeout=CALL_TIMEOUT,
            )
        except (exceptions.NotFound, exceptions.FailedPrecondition):
            pass  # gone, or finished meanwhile: either way nothing is left to cancel

    def watch(
        self,
        name: str,
        done: Callable[[dict[str, Any]], bool],
        timeout: float,
        on_change: Callable[[dict[str, Any]], None] = lambda job: None,
    ) -> tuple[dict[str, Any] | None, bool]:
        """Polls the job until `done(job)`, it is gone, or `timeout` seconds pass.

        Returns the job as last seen (None once it is gone) and whether `done`
        held; `on_change` sees every state the job is found in.
        """
        seen: dict[str, Any] = {}

        def poll() -> dict[str, Any] | None:
            job = self.get(name)
            if job is not None and job.get("state") != seen.get("job", {}).get("state"):
                on_change(job)
            seen["job"] = job
            if job is not None and not done(job):
                raise _StillActive(job.get("state"))
            return job

        backoff = retries.Retry(
            predicate=retries.if_exception_type(_StillActive),
            initial=POLL.initial,
            maximum=POLL.maximum,
            multiplier=POLL.multiplier,
            timeout=timeout,
        )
        try:
            job = backoff(poll)()
        except exceptions.RetryError:
            return seen.get("job"), False
        return job, True

    def wait_until_terminal(self, name: str, timeout: float) -> dict[str, Any] | None:
        """Polls until the job is terminal (or gone); TimeoutError after `timeout` seconds."""
        job, finished = self.watch(name, lambda j: j.get("state") in TERMINAL_STATES, timeout)
        if not finished:
            raise TimeoutError(f"{name} is still {job.get('state')} after {timeout:.0f}s")
        return job

    def stop(self, name: str, timeout: float) -> dict[str, Any] | None:
        """Cancels the job if it is active and waits until it is terminal; the record stays."""
        job = self.get(name)
        if job is None:
            return None
        if job.get("state") in ACTIVE_STATES:
            self.cancel(name)
        if job.get("state") in TERMINAL_STATES:
            return job
        return self.wait_until_terminal(name, timeout)

    def delete(self, name: str, timeout: float) -> None:
        """Cancels the job if it is active, waits until it is terminal, deletes it."""
        if self.stop(name, timeout) is None:
            return
        try:
            operation = self._call(
                "delete the job",
                self._client.delete_custom_job,
                name=name,
                retry=_transient_retry(READ_DEADLINE),
                timeout=CALL_TIMEOUT,
            )
            operation.result(timeout=timeout)
        except exceptions.NotFound:
            pass

    def _call(self, action: str, method: Callable[..., Any], **kwargs: Any) -> Any:
        try:
            return method(**kwargs)
        except exceptions.PermissionDenied as error:
            raise VertexError(
                f"Vertex AI refused to {action}: {error.message}. The identity running `pulumi up` needs "
                "roles/aiplatform.user on the project and, for the job's serviceAccount, "
                "roles/iam.serviceAccountUser (actAs) on that service account."
            ) from error
        except exceptions.InvalidArgument as error:
            raise VertexError(f"Vertex AI rejected the request to {action}: {error.message}") from error
        except exceptions.NotFound as error:
            # On a call that names only the parent, NOT_FOUND means the parent itself.
            if method in (self._client.create_custom_job, self._client.list_custom_jobs):
                raise VertexError(
                    f"Vertex AI could not {action}: {error.message}. Check the project and location, and that the "
                    "API is enabled: gcloud services enable aiplatform.googleapis.com"
                ) from error
            raise
