"""JobStore: the emulated JobService's jobs, operations, call counts and quotas, and the CustomJob state
machine, under one lock.

What it emulates of Vertex besides the API: the per-region quotas (quota.py), a list that shows a job
only some time after it landed (list_lag), a create that lands after its caller was told it failed
(create_later), Spot capacity running out in a region (spot_stockouts). With a `journal` file the jobs
outlive the process: every change is written to it whole (a temporary file renamed over it), and a new
store reads it back, so a sandbox that was killed finds its jobs, and never submits one again because
it forgot it. Operations, call counts and landings still pending are not kept: they are the moment's.
"""

import heapq
import itertools
import json
import os
import random
import threading
import time
from collections import Counter, deque
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import datetime, timedelta, timezone
from pathlib import Path

import grpc
from google.cloud import aiplatform_v1
from google.longrunning import operations_pb2
from google.protobuf import any_pb2, empty_pb2, json_format
from google.rpc import status_pb2

from sandbox.jobservice.errors import ApiError, invalid
from sandbox.jobservice.filters import compile_filter
from sandbox.jobservice.interposer import CallDelay, CallFault, Interposer, NoInterposer
from sandbox.jobservice.lifecycle import PREEMPTION, STOCKOUT_ERROR, JobError, State, Step
from sandbox.jobservice.quota import CRUD_RPCS, SUBMITTING_RPCS, SubmissionQuota, crud_exceeded, exceeded
from sandbox.jobservice.validation import PARENT, check_custom_job, check_parent

CustomJob = aiplatform_v1.CustomJob
S = aiplatform_v1.JobState
TERMINAL = frozenset(
    {S.JOB_STATE_SUCCEEDED, S.JOB_STATE_FAILED, S.JOB_STATE_CANCELLED, S.JOB_STATE_EXPIRED, S.JOB_STATE_PARTIALLY_SUCCEEDED}
)
_NEXT = {S.JOB_STATE_QUEUED: S.JOB_STATE_PENDING, S.JOB_STATE_PENDING: S.JOB_STATE_RUNNING, S.JOB_STATE_RUNNING: S.JOB_STATE_SUCCEEDED}
_SERVER_FIELDS = ("name", "state", "create_time", "start_time", "end_time", "update_time", "error", "web_access_uris")
DEFAULT_PAGE_SIZE = 100


def _copy(job: CustomJob) -> CustomJob:
    # Responses are serialized after the lock is released, so never hand out the stored object.
    copied: CustomJob = CustomJob.deserialize(CustomJob.serialize(job))
    return copied


def _now() -> datetime:
    return datetime.now(timezone.utc)


@dataclass(order=True)
class _Landing:
    """A CreateCustomJob the client was told failed, that the backend carries out at `due` (monotonic)."""

    due: float
    order: int  # ties land in the order they were accepted
    create_time: datetime = field(compare=False)
    parent: str = field(compare=False)
    job: CustomJob = field(compare=False)


class JobStore:
    def __init__(self, interposer: Callable[[], Interposer] = NoInterposer, journal: Path | None = None):
        self._interposer = interposer  # made anew by reset(): the tests' fault plan, or none
        self._journal = journal
        self.lock = threading.Lock()
        self.generation = 0  # bumped by reset(), so a call begun before it cannot land a job after it
        self._clear()
        if journal is not None and journal.exists():
            self._read_journal(journal)

    def _clear(self) -> None:
        self.calls: Counter[str] = Counter()
        self.failures: Counter[tuple[str, str]] = Counter()  # (rpc, status code name) of every error answered
        self.faults: Interposer = self._interposer()
        self.quota: SubmissionQuota | None = None  # job submissions: CreateCustomJob, DeleteCustomJob
        self.crud_quota: SubmissionQuota | None = None  # every other call
        self.hold_cancelling = False
        self.cancel_polls = 1
        self.denied_projects: dict[str, grpc.StatusCode] = {}  # project -> the code every call on it gets
        self.ignore_filter = False  # list everything, as a filter Vertex read differently would
        self.spot_stockouts: set[str] = set()  # regions whose Spot capacity is gone: their SPOT jobs are preempted
        self._jobs: dict[str, CustomJob] = {}
        self._seq: dict[str, int] = {}  # creation order; page tokens point into it so paging survives inserts
        self._counter = itertools.count(1)
        self._cancel_gets: dict[str, int] = {}
        self._operations: dict[str, operations_pb2.Operation] = {}
        self._queued_scripts: deque[tuple[Step, ...]] = deque()  # for the next jobs created, in order
        self._scripts: dict[str, deque[Step]] = {}
        self._random = random.Random()  # private, so a test seeding `random` cannot make ids collide
        self._landings: list[_Landing] = []  # a heap: creates answered with an error that land later
        self._landed: dict[str, float] = {}  # name -> monotonic time it landed, for list_lag
        self.list_lag = 0.0  # ListCustomJobs shows a job only this many seconds after it landed
        self._dirty = False  # a job changed since the journal was last written

    # --- call bookkeeping, for the servicer's dispatch ------------------------------------

    def begin(self, rpc: str) -> tuple[CallFault | None, CallDelay | None, int]:
        """Count the call, then what the fault plan has in store for that call number, and the
        generation (see reset) the call belongs to."""
        with self.lock:
            self.calls[rpc] += 1
            return (*self.faults.take(rpc, self.calls[rpc]), self.generation)

    def meter(self, rpc: str, resource: str) -> None:
        """Charge one call of `rpc` on `resource` (a parent, or a job's or operation's name) to its
        region's quota, or raise the quota error."""
        match = PARENT.match(resource)
        with self.lock:
            # A malformed name is left to the rpc to reject, as Vertex names it rather than the quota.
            if match is None:
                return
            if rpc in SUBMITTING_RPCS and self.quota is not None and not self.quota.admit(match["location"]):
                raise exceeded(match["project"])
            if rpc in CRUD_RPCS and self.crud_quota is not None and not self.crud_quota.admit(match["location"]):
                raise crud_exceeded(match["project"])

    def failed(self, rpc: str, code: grpc.StatusCode) -> None:
        with self.lock:
            self.failures[rpc, code.name] += 1

    def check_project(self, resource: str) -> None:
        """Answer for a project that is deleted, mistyped or closed to the caller as Google does."""
        project = resource.split("/")[1] if resource.startswith("projects/") else ""
        with self.lock:
            code = self.denied_projects.get(project)
        if code == grpc.StatusCode.NOT_FOUND:
            raise ApiError(code, f"Project '{project}' not found or deleted.")
        if code is not None:
            raise ApiError(
                code,
                f"Permission 'aiplatform.customJobs.list' denied on resource '//aiplatform.googleapis.com/projects/{project}/locations/-' (or it may not exist).",
            )

    # --- RPCs: raise ApiError -------------------------------------------------------------

    def create(self, parent: str, job: CustomJob) -> CustomJob:
        check_parent(parent)
        check_custom_job(job)
        with self._current():
            return _copy(self._land(parent, job, _now(), time.monotonic()))

    def create_later(self, parent: str, job: CustomJob, seconds: float, generation: int) -> None:
        """Accept a create that lands `seconds` from now; nothing of it shows until then. A call of an
        earlier generation (one begun before a reset) lands nothing."""
        check_parent(parent)
        check_custom_job(job)
        with self._current():
            if generation != self.generation:
                return
            landing = _Landing(time.monotonic() + seconds, next(self._counter), _now() + timedelta(seconds=seconds), parent, _copy(job))
            heapq.heappush(self._landings, landing)
            self._land_due()  # a landing 0 s away is there before the client hears its error

    def get(self, name: str) -> CustomJob:
        with self._current():
            job = self._find(name)
            if name in self._scripts:
                self._step(job)
            elif self._out_of_spot(job):
                self._preempt(job)
            elif job.state == S.JOB_STATE_CANCELLING and not self.hold_cancelling:
                seen = self._cancel_gets.get(name, 0)
                if seen >= self.cancel_polls:
                    self._transition(job, S.JOB_STATE_CANCELLED, (1, "CANCELLED"))
                else:
                    self._cancel_gets[name] = seen + 1
            return _copy(job)

    def list_page(self, parent: str, filter_text: str, page_size: int, page_token: str) -> tuple[list[CustomJob], str]:
        check_parent(parent)
        matches = compile_filter(filter_text)
        if self.ignore_filter:
            matches = lambda job: True  # noqa: E731
        if page_size < 0:
            raise invalid("page_size must not be negative")
        page_size = page_size or DEFAULT_PAGE_SIZE
        try:
            before = int(page_token) if page_token else None
        except ValueError:
            raise invalid(f"invalid page_token {page_token!r}") from None
        prefix = parent + "/customJobs/"
        with self._current():
            listed_before = time.monotonic() - self.list_lag
            hits = [
                n for n in reversed(self._jobs)  # insertion order is creation order
                if n.startswith(prefix) and (before is None or self._seq[n] < before)
                and self._landed[n] <= listed_before and matches(self._jobs[n])
            ]
            page = hits[:page_size]
            token = str(self._seq[page[-1]]) if len(hits) > page_size else ""
            return [_copy(self._jobs[n]) for n in page], token

    def cancel(self, name: str) -> None:
        with self._current():
            job = self._find(name)
            if job.state in TERMINAL:
                raise ApiError(grpc.StatusCode.FAILED_PRECONDITION, f"The CustomJob {name} is already in state {job.state.name} and cannot be cancelled")
            self._scripts.pop(name, None)  # the cancel overrides whatever the script had planned
            if job.state != S.JOB_STATE_CANCELLING:
                self._transition(job, S.JOB_STATE_CANCELLING)

    def delete(self, name: str) -> operations_pb2.Operation:
        with self._current():
            job = self._find(name)
            if job.state not in TERMINAL:
                raise ApiError(grpc.StatusCode.FAILED_PRECONDITION, f"The CustomJob cannot be deleted while it is in state {job.state.name}")
            self._drop(name)
            now = _now()
            metadata = any_pb2.Any()
            metadata.Pack(aiplatform_v1.DeleteOperationMetadata.pb(aiplatform_v1.DeleteOperationMetadata(
                generic_metadata=aiplatform_v1.GenericOperationMetadata(create_time=now, update_time=now)
            )))
            op_name = f"{name}/operations/{next(self._counter)}"
            running = operations_pb2.Operation(name=op_name, done=False, metadata=metadata)
            # The deletion already happened, so the first poll finds the operation finished.
            finished = operations_pb2.Operation(name=op_name, done=True, metadata=metadata)
            finished.response.Pack(empty_pb2.Empty())
            self._operations[op_name] = finished
            return running

    def get_operation(self, name: str) -> operations_pb2.Operation:
        with self.lock:
            if name not in self._operations:
                raise ApiError(grpc.StatusCode.NOT_FOUND, f"Operation {name} not found")
            op = operations_pb2.Operation()
            op.CopyFrom(self._operations[name])
            return op

    # --- test control: raise KeyError / ValueError ----------------------------------------

    def jobs(self) -> list[CustomJob]:
        with self._current():
            return [_copy(j) for j in self._jobs.values()]

    def job(self, name: str) -> CustomJob:
        with self._current():
            return _copy(self._jobs[name])

    def restore(self, job: CustomJob) -> None:
        """Hold `job` exactly as given, name, labels and state included (a job an older version submitted)."""
        with self._current():
            if job.name in self._jobs:
                raise ValueError(f"{job.name} already exists")
            self._jobs[job.name] = _copy(job)
            self._seq[job.name] = next(self._counter)
            self._landed[job.name] = time.monotonic()
            self._dirty = True

    def move(self, name: str, expected: State, state: State, error: JobError | None = None) -> bool:
        """Put the job in `state` if it is still in `expected`: the sandbox's runner moves a job along
        only from the state it saw, so a cancel that came in meanwhile wins. False if it was not."""
        with self._current():
            job = self._jobs.get(name)
            if job is None or job.state != expected:
                return False
            self._transition(job, state, error)
            return True

    def set_state(self, name: str, state: str | State, error: JobError | None = None) -> None:
        value: State = S.__members__[state] if isinstance(state, str) else S(state)
        with self._current():
            self._transition(self._jobs[name], value, error)

    def set_times(self, name: str, **times: str | None) -> None:
        with self._current():
            job = self._jobs[name]
            for field, value in times.items():
                if value == "":
                    job._pb.ClearField(f"{field}_time")
                elif value is not None:
                    setattr(job, f"{field}_time", datetime.fromisoformat(value.replace("Z", "+00:00")))
            self._dirty = True

    def advance(self, name: str) -> None:
        with self._current():
            job = self._jobs[name]
            if job.state not in _NEXT:
                raise ValueError(f"{name} is {job.state.name}; advance() only walks QUEUED -> PENDING -> RUNNING -> SUCCEEDED")
            self._transition(job, _NEXT[job.state])

    def preempt(self, name: str) -> None:
        with self._current():
            job = self._jobs[name]
            if job.state in TERMINAL:
                raise ValueError(f"{name} already ended {job.state.name}; only a live job can be preempted")
            self._scripts.pop(name, None)
            self._preempt(job)

    def script(self, steps: tuple[Step, ...]) -> None:
        with self._current():
            self._queued_scripts.append(steps)

    def remove(self, name: str) -> None:
        with self._current():
            self._jobs[name]  # KeyError for an unknown job, like job()
            self._drop(name)

    def reset_calls(self) -> None:
        with self.lock:
            self.calls.clear()
            self.failures.clear()

    def reset(self) -> None:
        """Back to a new store: no jobs, pending landings, calls, faults, quota or switches (the servicer
        keeps this object, and the lock stays the one every waiting call holds a reference to)."""
        with self.lock:
            self._clear()
            self.generation += 1

    # --- landing; the lock is held --------------------------------------------------------

    @contextmanager
    def _current(self) -> Iterator[None]:
        """Hold the lock with every landing that is due carried out, so whatever a call or a test sees
        is the store as of now, whichever call happens to come first after a landing's time."""
        with self.lock:
            self._land_due()
            try:
                yield
            finally:
                self._write_journal()

    def _land_due(self) -> None:
        now = time.monotonic()
        while self._landings and self._landings[0].due <= now:
            landing = heapq.heappop(self._landings)
            self._land(landing.parent, landing.job, landing.create_time, landing.due)

    def _land(self, parent: str, job: CustomJob, create_time: datetime, landed: float) -> CustomJob:
        stored = _copy(job)
        pb = CustomJob.pb(stored)
        for server_field in _SERVER_FIELDS:
            pb.ClearField(server_field)
        name = self._new_name(parent)
        stored.name = name
        stored.state = S(S.JOB_STATE_QUEUED)
        stored.create_time = create_time
        stored.update_time = create_time
        self._jobs[name] = stored
        self._seq[name] = next(self._counter)
        self._landed[name] = landed
        self._dirty = True
        if self._queued_scripts:
            self._scripts[name] = deque(self._queued_scripts.popleft())
        return stored

    # --- the journal; the lock is held ----------------------------------------------------

    def _write_journal(self) -> None:
        if self._journal is None or not self._dirty:
            return
        body = [json_format.MessageToDict(CustomJob.pb(job)) for job in self._jobs.values()]  # creation order
        partial = self._journal.with_name(self._journal.name + ".partial")
        partial.write_text(json.dumps({"version": 1, "jobs": body}, indent=1))
        os.replace(partial, self._journal)  # whole or not at all, whenever the process dies
        self._dirty = False

    def _read_journal(self, journal: Path) -> None:
        try:
            body = json.loads(journal.read_text())
            jobs = [CustomJob.wrap(json_format.ParseDict(entry, CustomJob.pb()())) for entry in body["jobs"]]
        except (OSError, ValueError, KeyError, TypeError, json_format.ParseError) as problem:
            raise ValueError(f"{journal} is not a job journal this sandbox wrote: {problem}") from None
        landed = time.monotonic()
        for job in jobs:
            self._jobs[job.name] = job
            self._seq[job.name] = next(self._counter)
            self._landed[job.name] = landed

    # --- helpers; the lock is held --------------------------------------------------------

    def _find(self, name: str) -> CustomJob:
        if name not in self._jobs:
            raise ApiError(grpc.StatusCode.NOT_FOUND, f"The CustomJob {name} does not exist")
        return self._jobs[name]

    def _drop(self, name: str) -> None:
        self._dirty = True
        del self._jobs[name], self._seq[name], self._landed[name]
        self._cancel_gets.pop(name, None)
        self._scripts.pop(name, None)

    def _new_name(self, parent: str) -> str:
        while True:
            name = f"{parent}/customJobs/{self._random.randrange(10**18, 10**19)}"
            if name not in self._jobs:
                return name

    def _out_of_spot(self, job: CustomJob) -> bool:
        """A live SPOT job in a region whose Spot capacity is gone (spot_stockout)."""
        named = PARENT.match(job.name)  # every stored job's name is one (_new_name)
        location = named["location"] if named else ""
        return (
            location in self.spot_stockouts
            and job.state not in TERMINAL
            and job.state not in (S.JOB_STATE_CANCELLING,)
            and job.job_spec.scheduling.strategy == aiplatform_v1.Scheduling.Strategy.SPOT
        )

    def _step(self, job: CustomJob) -> None:
        script = self._scripts[job.name]
        step = script.popleft()
        if not script:
            del self._scripts[job.name]  # exhausted: from here on the job behaves like any other
        if step == PREEMPTION:
            self._preempt(job)
        else:
            self._transition(job, *step)

    def _preempt(self, job: CustomJob) -> None:
        self._transition(job, S.JOB_STATE_FAILED, STOCKOUT_ERROR)
        if not job.start_time:  # Spot VMs are only reclaimed from a job that was running on them
            job.start_time = job.end_time

    def _transition(self, job: CustomJob, state: State, error: JobError | None = None) -> None:
        self._dirty = True
        now = _now()
        job.state = S(state)
        job.update_time = now
        if state == S.JOB_STATE_RUNNING:
            job.start_time = now
        if state in TERMINAL:
            job.end_time = now
        if error is None:
            CustomJob.pb(job).ClearField("error")
        else:
            code, message = error
            job.error = status_pb2.Status(code=code, message=message)
        self._cancel_gets.pop(job.name, None)  # a fresh CANCELLING starts its poll count again
