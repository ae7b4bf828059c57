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
import threading
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, cast

import grpc
from google.api_core import exceptions
from google.api_core import retry as retries
from google.protobuf import json_format

from components.spot_job.client import gapic_import, quota_pacing, read_coalescer
from components.spot_job.model import states, submission_labels

if TYPE_CHECKING:  # the real classes, for the annotations; at run time they come through gapic_import
    from google.cloud.aiplatform_v1 import CustomJob, JobServiceClient
    from google.cloud.aiplatform_v1.services.job_service.transports.grpc import (
        JobServiceGrpcTransport as GrpcTransport,
    )

from components.spot_job.model.errors import UserError
from components.spot_job.model.job_name import JobName, project_of

log = logging.getLogger("spot-training")

# JobServiceClient, JobServiceGrpcTransport and CustomJob, without the ~40 other clients (see gapic_import).
aiplatform_v1 = gapic_import.job_service()
JobServiceGrpcTransport = aiplatform_v1.JobServiceGrpcTransport

# The convention of PUBSUB_EMULATOR_HOST and STORAGE_EMULATOR_HOST: host:port
# of a plaintext gRPC JobService, used with no credentials at all.
EMULATOR_HOST_ENV = "AIPLATFORM_EMULATOR_HOST"

# An endpoint that does not answer fails in this many seconds, naming itself,
# instead of after minutes of retries; SPOT_TRAINING_CONNECT_TIMEOUT overrides it.
CONNECT_TIMEOUT = 15.0
CONNECT_TIMEOUT_ENV = "SPOT_TRAINING_CONNECT_TIMEOUT"
CALL_TIMEOUT = 60.0  # one RPC
READ_DEADLINE = 120.0  # a read, across its retries
# Submissions share a 60-per-minute regional quota: give a burst more than a
# minute of backoff before calling RESOURCE_EXHAUSTED final.
SUBMIT_DEADLINE = 300.0


@dataclass(frozen=True)
class Backoff:
    """Exponential backoff, in seconds (google-api-core jitters each sleep)."""

    initial: float
    maximum: float
    multiplier: float

    def retry(
        self, *errors: type[Exception], timeout: float, on_error: Callable[[Exception], None] | None = None
    ) -> retries.Retry:
        """google-api-core's Retry at this pace, of `errors`, for `timeout` seconds in all."""
        return retries.Retry(
            predicate=retries.if_exception_type(*errors),
            initial=self.initial,
            maximum=self.maximum,
            multiplier=self.multiplier,
            timeout=timeout,
            on_error=on_error,
        )


BACKOFF = Backoff(initial=1.0, maximum=32.0, multiplier=2.0)  # after a transient error
# While waiting on a job: quick at first, then every 15 s, well inside the
# 600 requests per minute per region that JobService allows.
POLL = Backoff(initial=1.0, maximum=15.0, multiplier=1.5)

# Errors after which the same read may well succeed. Submissions are not retried
# with them: submission.py decides what follows an unknown outcome.
_TRANSIENT = (
    exceptions.ServiceUnavailable,
    exceptions.InternalServerError,
    exceptions.ResourceExhausted,
    exceptions.DeadlineExceeded,
    exceptions.Aborted,
)


class VertexError(UserError, RuntimeError):
    """A call Vertex AI refused for good, with what to do about it."""


class _StillActive(Exception):
    """Raised while polling: the job has not reached a terminal state yet."""


def _log_retry(error: Exception) -> None:
    log.warning("Vertex AI call failed, retrying: %s", error)


def _transient_retry(deadline: float) -> retries.Retry:
    return BACKOFF.retry(*_TRANSIENT, timeout=deadline, on_error=_log_retry)


# With the emulator, regions may be served at addresses of their own:
# "us-east1=host:port,europe-west4=host:port" (the emulator serves every region at
# one address; tests point one region at an address that does not answer). Read
# only with AIPLATFORM_EMULATOR_HOST set, like pacing's time scale: no real stack
# can be sent elsewhere by it.
EMULATOR_REGION_HOSTS_ENV = "SPOT_TRAINING_EMULATOR_REGION_HOSTS"


def endpoint(location: str) -> str:
    emulator = os.environ.get(EMULATOR_HOST_ENV)
    if not emulator:
        return f"{location}-aiplatform.googleapis.com"
    return _emulator_region_hosts().get(location, emulator)


def _emulator_region_hosts() -> dict[str, str]:
    raw = os.environ.get(EMULATOR_REGION_HOSTS_ENV) or ""
    hosts = {}
    for entry in filter(None, (part.strip() for part in raw.split(","))):
        region, _, address = entry.partition("=")
        if not region or not address:
            raise VertexError(f"{EMULATOR_REGION_HOSTS_ENV}={raw!r}: {entry!r} is not region=host:port")
        hosts[region.strip()] = address.strip()
    return hosts


def job_service_client(location: str) -> JobServiceClient:
    client: JobServiceClient
    if os.environ.get(EMULATOR_HOST_ENV):
        channel = grpc.insecure_channel(endpoint(location))
        client = aiplatform_v1.JobServiceClient(transport=JobServiceGrpcTransport(channel=channel))
    else:
        client = aiplatform_v1.JobServiceClient(client_options={"api_endpoint": endpoint(location)})
    return client


def connect_timeout() -> float:
    raw = os.environ.get(CONNECT_TIMEOUT_ENV)
    try:
        return float(raw) if raw else CONNECT_TIMEOUT
    except ValueError:
        raise VertexError(f"{CONNECT_TIMEOUT_ENV}={raw!r} is not a number of seconds") from None


def to_proto(body: dict[str, Any]) -> CustomJob:
    message = json_format.ParseDict(body, aiplatform_v1.CustomJob.pb()())
    job: CustomJob = aiplatform_v1.CustomJob.wrap(message)
    return job


def to_dict(job: CustomJob) -> dict[str, Any]:
    found: dict[str, Any] = json_format.MessageToDict(aiplatform_v1.CustomJob.pb(job))
    return found


# One connected client per endpoint for the life of the process (the provider
# host serves a whole `pulumi up`): a gRPC channel and the GAPIC client on it are
# safe to share between the host's threads, and making one per call cost a
# connect, and closing it ~200 ms (the channel joins its connectivity poller).
# Kept here, never on the provider object (a channel cannot be pickled). Keyed by
# endpoint, so the emulator's address or another region gets its own.
_CLIENTS: dict[str, JobServiceClient] = {}
# One lock per endpoint, held across its connect: the host's threads that all start
# at once make one connect per endpoint, and an endpoint that does not answer (up
# to the connect bound) holds up only the calls to that endpoint. The process-wide
# lock is held only to find an endpoint's lock, never across a connect.
_CONNECTING: dict[str, threading.Lock] = {}
_CONNECTING_LOCK = threading.Lock()


def shared_client(location: str) -> JobServiceClient:
    """This process's connected client for `location`'s endpoint, made (and connected,
    within the connect bound) on first use; VertexError if it cannot connect."""
    target = endpoint(location)
    client = _CLIENTS.get(target)
    if client is not None:
        return client
    with _CONNECTING_LOCK:
        connecting = _CONNECTING.setdefault(target, threading.Lock())
    with connecting:
        client = _CLIENTS.get(target)
        if client is None:
            client = _connected(target, job_service_client(location))
            _CLIENTS[target] = client
    return client


def _connected(target: str, client: JobServiceClient) -> JobServiceClient:
    # Connect first, within a bound: a wrong or unreachable endpoint is one
    # clear error here, not every call retrying UNAVAILABLE for minutes.
    timeout = connect_timeout()
    transport = cast("GrpcTransport", client.transport)  # a gRPC client's, made above
    try:
        grpc.channel_ready_future(transport.grpc_channel).result(timeout=timeout)
    except grpc.FutureTimeoutError:
        transport.close()  # type: ignore[no-untyped-call]  # google's generated transport leaves it unannotated
        raise VertexError(
            f"Vertex AI is unreachable: no connection to {target} within {timeout:.0f}s. Check the "
            f"job's location, the network or proxy between here and Google, or {EMULATOR_HOST_ENV} if it is "
            f"set; {CONNECT_TIMEOUT_ENV} sets this bound in seconds."
        ) from None
    return client


class JobService:
    """One region's JobService, on the process's shared client for that region."""

    def __init__(self, location: str, quotas: Mapping[str, Any] | None = None) -> None:
        self._endpoint = endpoint(location)
        self._client = shared_client(location)
        # Every call waits for a slot of the region's quota first (client/quota_pacing.py); `quotas`
        # is the job input of that name, for projects whose quotas were raised.
        self._pacer = quota_pacing.for_location(location, quotas)

    def jobs_of(
        self, parent: str, filter_: str, pick: Callable[[Mapping[str, str]], bool] | None = None
    ) -> list[dict[str, Any]]:
        """Every job of a resource in `parent`, as the protocol's `filter_` finds them: one
        ListCustomJobs call, more only past a page of 100. Given `pick`, only the jobs whose labels
        it accepts are converted to dicts: other resources' jobs the filter matches are skipped unread."""
        return list(self._listing("list the resource's jobs", parent, filter_, pick))

    def labelled(self, parent: str, label: str, value: str) -> list[dict[str, Any]]:
        """Every job in `parent` whose label `label` is `value`."""
        return list(self._labelled(f"list the jobs labelled {label}", parent, label, value))

    def _labelled(self, action: str, parent: str, label: str, value: str) -> Iterator[dict[str, Any]]:
        """The jobs the label filter finds that carry the label: the filter is a search, this the check."""
        return self._listing(action, parent, f'labels.{label}="{value}"', lambda labels: labels.get(label) == value)

    def _listing(
        self, action: str, parent: str, filter_: str, pick: Callable[[Mapping[str, str]], bool] | None = None
    ) -> Iterator[dict[str, Any]]:
        """Every job the filter matches whose labels `pick` accepts, as GetCustomJob shapes it, page by
        page: the GAPIC client's pager asks for each next page (with the same retry) as the last is used
        up; each page, and each retry of one, waits for its slot of the region's quota first. A job
        `pick` refuses is never converted. The one listing: the protocol's, `labelled` and the refresh's."""
        method = "list_custom_jobs"

        def paced_retry(error: Exception) -> None:  # called before each retry's backoff sleep
            _log_retry(error)
            self._pacer.wait(method)

        retry = BACKOFF.retry(*_TRANSIENT, timeout=READ_DEADLINE, on_error=paced_retry)
        with self._refusals(action, method, parent):
            self._pacer.wait(method)
            pager = self._client.list_custom_jobs(
                request={"parent": parent, "filter": filter_, "page_size": 100}, retry=retry, timeout=CALL_TIMEOUT
            )
            for page in pager.pages:
                yield from (to_dict(job) for job in page.custom_jobs if pick is None or pick(job.labels))
                if page.next_page_token:
                    self._pacer.wait(method)  # the pager fetches the next page when the loop asks for it

    def create(self, parent: str, body: dict[str, Any]) -> dict[str, Any]:
        """One CreateCustomJob call, never retried here: whether a failed one landed is for
        submission.py to find out (CreateCustomJob has no request id)."""
        job = self._call(
            "submit the job",
            self._client.create_custom_job,
            parent=parent,
            custom_job=to_proto(body),
            retry=None,
            timeout=CALL_TIMEOUT,
        )
        return to_dict(job)

    def get(self, name: str) -> dict[str, Any] | None:
        """The job, or None if it no longer exists (its project and location do)."""
        try:
            job = self._call(
                "read the job", self._client.get_custom_job, name=name,
                retry=_transient_retry(READ_DEADLINE), timeout=CALL_TIMEOUT,
            )
        except exceptions.NotFound:
            # NOT_FOUND names the job, or its project or location: only the
            # first means the job is gone. Asking the parent tells them apart
            # (and raises, naming it, when the parent is what is missing).
            self._call(
                "list jobs in the job's project and location",
                self._client.list_custom_jobs,
                request={"parent": JobName.parse(name).parent, "page_size": 1},
                retry=_transient_retry(READ_DEADLINE),
                timeout=CALL_TIMEOUT,
            )
            return None
        return to_dict(job)

    def read(self, name: str, stack: str) -> dict[str, Any] | None:
        """What `get(name)` answers: from the listing of the stack's jobs that the reads arriving
        together share (client/read_coalescer.py), else, for a job that listing does not show, its
        own GetCustomJob. `stack` is "project/stack" (submission_labels.stack_scope); empty (a state
        older than the stack label): its own Get."""
        if stack:
            job = JobName.parse(name)
            value = submission_labels.stack_value(stack)
            found = read_coalescer.COALESCER.listed(
                (job.project, job.location, value), name, lambda: self.stack_jobs(job.parent, value)
            )
            if found is not None:
                return found
        return self.get(name)

    def stack_jobs(self, parent: str, value: str) -> Iterator[dict[str, Any]]:
        """Every job in `parent` that carries the stack label `value`, lazily, page by page (_listing)."""
        return self._labelled("list the stack's jobs", parent, submission_labels.STACK_LABEL, value)

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

        backoff = POLL.retry(_StillActive, timeout=timeout)
        try:
            job = backoff(poll)()
        except exceptions.RetryError:
            return seen.get("job"), False
        return job, True

    def wait_until_terminal(self, name: str, timeout: float) -> dict[str, Any] | None:
        """Polls until the job is terminal (or gone); TimeoutError after `timeout` seconds."""
        job, finished = self.watch(name, lambda j: j.get("state") in states.ENDED, timeout)
        if not finished:
            raise TimeoutError(f"{name} is still {(job or {}).get('state')} after {timeout:.0f}s")
        return job

    def stop(self, name: str, timeout: float) -> dict[str, Any] | None:
        """Cancels the job if it is active and waits until it is terminal; the record stays."""
        job = self.get(name)
        if job is None:
            return None
        if job.get("state") in states.ACTIVE:
            self.cancel(name)
        if job.get("state") in states.ENDED:
            return job
        return self.wait_until_terminal(name, timeout)

    def delete(self, name: str, timeout: float) -> None:
        """Cancels the job if it is active, waits until it is terminal, deletes it."""
        if self.stop(name, timeout) is not None:
            self.delete_record(name, timeout)

    def delete_record(self, name: str, timeout: float) -> None:
        """Deletes the record of a job already seen terminal (no look first), waiting for the deletion."""
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
        target = kwargs.get("name") or kwargs.get("parent") or (kwargs.get("request") or {}).get("parent", "")
        retry = kwargs.pop("retry", None)

        def attempt() -> Any:  # each attempt, retries included, waits for its quota slot
            self._pacer.wait(method.__name__)
            return method(retry=None, **kwargs)

        with self._refusals(action, method.__name__, target):
            return retry(attempt)() if retry is not None else attempt()

    @contextmanager
    def _refusals(self, action: str, method: str, target: str) -> Iterator[None]:
        """Vertex's final refusals of a call, as errors that say what to do."""
        try:
            yield
        except (exceptions.PermissionDenied, exceptions.Unauthenticated) as error:
            raise VertexError(_access_denied(action, method, target, error)) from error
        except exceptions.InvalidArgument as error:
            raise VertexError(f"Vertex AI rejected the request to {action}: {error.message}") from error
        except exceptions.NotFound as error:
            # On a call that names only the parent, NOT_FOUND means the parent itself.
            if method in ("create_custom_job", "list_custom_jobs"):
                raise VertexError(
                    f"Vertex AI could not {action}: {error.message}. {target} does not exist or the Vertex AI "
                    "API is not enabled there: check gcp:project and gcp:region (or the job's project and "
                    "location), and run: gcloud services enable aiplatform.googleapis.com"
                ) from error
            raise
        except exceptions.RetryError as error:
            raise VertexError(
                f"Vertex AI did not answer the request to {action} at {self._endpoint}: {error.cause or error}"
            ) from error


# The role each kind of call needs (https://cloud.google.com/vertex-ai/docs/general/access-control).
_ROLES = {
    "get_custom_job": "roles/aiplatform.viewer",
    "list_custom_jobs": "roles/aiplatform.viewer",
    "create_custom_job": "roles/aiplatform.user",
    "cancel_custom_job": "roles/aiplatform.user",
    "delete_custom_job": "roles/aiplatform.user",
}


def _access_denied(action: str, method: str, target: str, error: exceptions.GoogleAPICallError) -> str:
    who = _caller()
    named = project_of(target)
    project = f"projects/{named}" if named else "the job's project"
    if isinstance(error, exceptions.Unauthenticated):
        return (
            f"Vertex AI did not accept the credentials of {who} to {action} ({target}): {error.message}. "
            "Sign in again (gcloud auth application-default login), or check the workload identity CI uses."
        )
    role = _ROLES.get(method, "roles/aiplatform.user")
    act_as = (
        " It also needs roles/iam.serviceAccountUser (actAs) on the job's serviceAccount, which the stack "
        "grants to its deployers and the team's members."
        if method == "create_custom_job"
        else ""
    )
    return (
        f"Vertex AI refused {who} permission to {action} ({target}): {error.message}. That identity needs "
        f"{role} (or a role with its permissions) on {project}; if the project was deleted or its id is "
        f"mistyped, Google answers the same way.{act_as} Nothing was changed in Pulumi's state."
    )


def _caller() -> str:
    """Who is calling, as far as the credentials tell (best effort, for the error message)."""
    if os.environ.get(EMULATOR_HOST_ENV):
        return "the caller"
    try:
        import google.auth

        credentials, _ = google.auth.default()
    except Exception:  # noqa: BLE001 - only an error message's wording depends on it
        return "the identity running Pulumi"
    email = getattr(credentials, "service_account_email", None)
    return email if isinstance(email, str) and "@" in email else "the identity running Pulumi (your application-default credentials)"
