"""JobServiceEmulator: the sandbox's JobService (sandbox/jobservice/) with the tests' controls over it:
faults, late answers and landings (faults.py), quotas, list lag, forced states."""

from collections import Counter
from collections.abc import Iterable

import grpc
from google.cloud import aiplatform_v1
from google.protobuf import json_format

from sandbox.jobservice.clock import scaled_clock
from sandbox.jobservice.lifecycle import StepSpec, parse_steps
from sandbox.jobservice.models import JobStore
from sandbox.jobservice.provider import RPCS
from sandbox.jobservice.quota import SubmissionQuota
from sandbox.jobservice.server import JobServiceServer
from tests.emulator.faults import FaultPlan


class JobServiceEmulator(JobServiceServer):
    """A local google.cloud.aiplatform.v1.JobService; point a JobServiceClient's channel at `address`."""

    def __init__(self) -> None:
        super().__init__(JobStore(interposer=FaultPlan))
        self._store: JobStore = self.store

    def __enter__(self) -> "JobServiceEmulator":
        self.start()
        return self

    def __exit__(self, *exc) -> None:
        self.stop()

    @property
    def calls(self) -> Counter:
        return self._store.calls

    @property
    def failures(self) -> Counter:
        """(rpc, status code name such as "UNAVAILABLE") -> errors answered: injected, quota or the store's own."""
        return self._store.failures

    def reset_calls(self) -> None:
        """Zero `calls` and `failures`; call numbers in inject() and delay() count from here again."""
        self._store.reset_calls()

    def reset(self) -> None:
        """As new, on the same address: no jobs, pending landings, calls, faults, quota, list lag or
        switches. Lets tests share one emulator (and one provider host pointed at it) without seeing
        each other's jobs."""
        self._store.reset()

    def inject(
        self,
        rpc: str,
        code: grpc.StatusCode,
        *,
        calls: Iterable[int] | None = None,
        times: int | None = None,
        message: str | None = None,
        after_apply: bool = False,
    ) -> None:
        """Fail calls of `rpc` with `code`: the 1-based call numbers in `calls` (as counted by `calls[rpc]`),
        or the next `times` calls; exactly one of the two. `message` defaults to Google's text for the code.
        after_apply=True carries the request out and then fails it, as when the answer is lost on the way.
        Where several faults match a call the earliest injected one wins."""
        _check_rpc(rpc)
        with self._store.lock:
            self._faults().inject(rpc, code, calls, times, message, after_apply)

    def delay(
        self,
        rpc: str,
        seconds: float,
        *,
        calls: Iterable[int] | None = None,
        times: int | None = None,
        after_apply: bool = True,
    ) -> None:
        """Answer calls of `rpc` `seconds` late: those in `calls`, the next `times`, or with neither every call.
        after_apply=True carries the request out before the wait, so a client that gives up meanwhile
        still leaves its effect behind; False waits first. stop() ends every pending wait at once."""
        _check_rpc(rpc)
        with self._store.lock:
            self._faults().delay(rpc, seconds, calls, times, after_apply)

    def create_lands_late(
        self,
        seconds: float,
        *,
        code: grpc.StatusCode = grpc.StatusCode.DEADLINE_EXCEEDED,
        calls: Iterable[int] | None = None,
        times: int | None = None,
    ) -> None:
        """Answer CreateCustomJob calls with `code` at once, with nothing to see yet, and land each job
        `seconds` later: Google's front end timing out while the backend goes on. Applies to the 1-based
        call numbers in `calls`, the next `times` calls, or with neither to every call; competes with
        inject()'s faults on CreateCustomJob as one of them (the earliest added wins).
        The request is checked as any create is (a project denied, the quota, an invalid job answer their
        own error and land nothing). The job that lands is exactly the one asked for (labels, spec), with
        createTime the landing time; seconds=0 lands it before the error is answered, as
        inject(after_apply=True) does. Time is real time, as delay()'s: a landing is carried out by
        the first call or test look-up (jobs(), job(), ...) at or after its time, with createTime
        still its own time. reset() cancels every pending landing, including one whose call is in flight;
        clear_faults() drops only those not yet called, and stop() none (the backend goes on)."""
        with self._store.lock:
            self._faults().lands_late("CreateCustomJob", seconds, code, calls, times)

    def list_lag(self, seconds: float) -> None:
        """ListCustomJobs shows a job only `seconds` after it landed (created, landed late, or restored);
        GetCustomJob, CancelCustomJob and DeleteCustomJob see it at once. The model is kept simple: the lag
        is on a job's appearance only; once it is listed, its later state changes show in the list at once,
        and a job deleted or removed leaves the list at once. The lag applies to jobs already held
        (changing it re-reads every job's landing time); 0 turns it off, reset() too."""
        if seconds < 0:
            raise ValueError(f"a list lag cannot be negative, got {seconds}")
        with self._store.lock:
            self._store.list_lag = float(seconds)

    def clear_faults(self) -> None:
        """Drop every injected fault and delay; the quotas stay."""
        with self._store.lock:
            self._store.faults.clear()

    def submission_quota(self, per_minute: int | None = 60, *, time_scale: float = 1.0) -> None:
        """Cap job submissions, CreateCustomJob and DeleteCustomJob (Google's page counts deleting a custom
        job as one), at `per_minute` per region in any sliding 60 s, as Vertex does; None lifts it.
        The window runs on an emulated clock `time_scale` times faster than real time. Calls the quota
        rejects do not count against it, but an admitted one counts even if it then fails validation, as
        Google meters requests before the service reads them. Enabling it again starts an empty window."""
        quota = None if per_minute is None else SubmissionQuota(per_minute, scaled_clock(time_scale))
        with self._store.lock:
            self._store.quota = quota

    def crud_quota(self, per_minute: int | None = 600, *, time_scale: float = 1.0) -> None:
        """Cap every other call (GetCustomJob, ListCustomJobs, CancelCustomJob, GetOperation), Vertex's
        resource management (CRUD) requests, at `per_minute` per region in any sliding 60 s; None lifts it.
        Metered as submission_quota is, on its own emulated clock."""
        quota = None if per_minute is None else SubmissionQuota(per_minute, scaled_clock(time_scale))
        with self._store.lock:
            self._store.crud_quota = quota

    def deny_project(self, project: str, code: grpc.StatusCode = grpc.StatusCode.PERMISSION_DENIED) -> None:
        """Fail every call on `project` with `code` and Google's wording: NOT_FOUND for a deleted project,
        PERMISSION_DENIED for one the caller may not use (or that may not exist, as Google words it)."""
        with self._store.lock:
            self._store.denied_projects[project] = code

    @property
    def ignore_filter(self) -> bool:
        """While True ListCustomJobs returns every job of the parent, whatever the filter says."""
        return self._store.ignore_filter

    @ignore_filter.setter
    def ignore_filter(self, value: bool) -> None:
        self._store.ignore_filter = value

    @property
    def hold_cancelling(self) -> bool:
        """While True a cancelled job stays CANCELLING however often it is polled."""
        return self._store.hold_cancelling

    @hold_cancelling.setter
    def hold_cancelling(self, value: bool) -> None:
        self._store.hold_cancelling = value

    @property
    def cancel_polls(self) -> int:
        """GetCustomJob calls that still see CANCELLING; the next Get flips the job to CANCELLED."""
        return self._store.cancel_polls

    @cancel_polls.setter
    def cancel_polls(self, value: int) -> None:
        self._store.cancel_polls = value

    def jobs(self) -> list[aiplatform_v1.CustomJob]:
        return self._store.jobs()

    def job(self, name: str) -> aiplatform_v1.CustomJob:
        return self._store.job(name)

    def restore(self, job: dict) -> None:
        """Hold a CustomJob given as its REST dict (as a recorded state fixture keeps it), exactly as given."""
        message = json_format.ParseDict(job, aiplatform_v1.CustomJob.pb()())
        self._store.restore(aiplatform_v1.CustomJob.wrap(message))

    def set_state(self, name: str, state: str, error: tuple[int, str] | None = None) -> None:
        """Force a state; `error` is (code, message) and is cleared when omitted."""
        self._store.set_state(name, state, error)

    def set_times(self, name: str, *, create: str | None = None, start: str | None = None, end: str | None = None) -> None:
        """Set the job's createTime, startTime and endTime (RFC 3339, "2026-12-01T10:00:00Z"), as Vertex
        recorded them: what `report` prices a run by. A time left None is left as it is; "" clears it."""
        self._store.set_times(name, create=create, start=start, end=end)

    def advance(self, name: str) -> None:
        """One step along QUEUED -> PENDING -> RUNNING -> SUCCEEDED."""
        self._store.advance(name)

    def preempt(self, name: str) -> None:
        """End a live job FAILED with STOCKOUT_ERROR, as Vertex does once Spot VM preemptions outlast its
        restarts; a job preempted before it was seen running gets a start_time too. ValueError if it ended."""
        self._store.preempt(name)

    def spot_stockout(self, location: str, out: bool = True) -> None:
        """While `out`, `location` has no Spot capacity: each live SPOT job there (`scheduling.strategy: SPOT`)
        ends FAILED with STOCKOUT_ERROR at its next GetCustomJob, as a job preempted past its restarts does.
        Other regions, and jobs on other strategies, run as usual. The emulator serves every region on one
        address: a job's region is the location in its name."""
        with self._store.lock:
            (self._store.spot_stockouts.add if out else self._store.spot_stockouts.discard)(location)

    def script(self, *steps: StepSpec) -> None:
        """Queue a lifecycle for the next job created (scripts go to jobs in creation order). Each step is a
        state name, (state name, (code, message)), or "STOCKOUT"; every GetCustomJob of the job first takes
        one step. Once the steps run out, or the job is cancelled, it behaves like any other job."""
        self._store.script(parse_steps(steps))

    def remove(self, name: str) -> None:
        """Delete out of band, as if from the console."""
        self._store.remove(name)


    def _faults(self) -> FaultPlan:
        plan = self._store.faults
        assert isinstance(plan, FaultPlan)
        return plan


def _check_rpc(rpc: str) -> None:
    if rpc not in RPCS:
        raise ValueError(f"unknown rpc {rpc!r}; expected one of {sorted(RPCS)}")
