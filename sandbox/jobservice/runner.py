"""Runner: moves the sandbox's jobs along their lifecycle, running their code, as Vertex does.

QUEUED for a moment, PENDING while the replicas' environment is made (a
pythonPackageSpec job's packages are installed: environments.py), RUNNING while
they run, then SUCCEEDED when the chief (workerpool0, replica 0) exits 0, or
FAILED when any replica exits otherwise, with its exit status and its last log
lines in `error`, as Vertex words it. A cancelled job's replicas get SIGTERM,
then SIGKILL after CANCEL_GRACE seconds, and the job ends CANCELLED once they
are gone.

A containerSpec job's image is not run (no container engine is used): its
lifecycle is simulated, RUNNING for `run_for` seconds then SUCCEEDED, and every
output the sandbox gives says "simulated" (docs/sandbox.md).

Preemption (preempt()) is what a Spot reclaim does to a VM: SIGTERM to each of
the job's replicas, SIGKILL after the grace period (Compute Engine's Spot
shutdown period is 30 s). Vertex then restarts the job's workers, up to
MAX_RESTARTS times (the source page, "Use Spot VMs for training": Compute
Engine restarts it up to six times), and after that, or at once `for_good`,
ends the job FAILED with STOCKOUT. The sandbox restarts every replica of the
job on a preemption (Vertex restarts only the reclaimed VM's unless
restartJobOnWorkerRestart); each start of the job's replicas is one attempt,
with log files of its own. A sandbox that was itself restarted finds a RUNNING
job without replicas and starts it again, as Vertex does after a host failure:
that counts as a restart too.

Invariant: at most one set of replicas runs per job, and only while the job is
RUNNING (or being cancelled); every transition the runner makes is a `move`
from the state it saw, so a cancel that comes in meanwhile wins.
"""

from __future__ import annotations

import logging
import os
import signal
import threading
import time
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from google.cloud import aiplatform_v1
from google.protobuf import json_format

from sandbox.jobservice import environments
from sandbox.jobservice.lifecycle import State, stockout_error
from sandbox.jobservice.models import JobStore
from sandbox.jobservice.replicas import Place, Replica, cluster_environment, free_hosts, places

S = aiplatform_v1.JobState
log = logging.getLogger("spot-training.sandbox")

QUEUED_SECONDS = 1.0
TICK_SECONDS = 0.2
RESTART_DELAY = 1.0  # between a preempted replica's end and its restart
CANCEL_GRACE = 10.0
MAX_RESTARTS = 6
SPOT_GRACE = 30.0  # Compute Engine's Spot shutdown period: https://cloud.google.com/compute/docs/instances/spot#preemption
# Of the runner's own environment, what a replica inherits: the rest is Vertex's (replicas.py). The numeric
# libraries' settings too: OPENBLAS_CORETYPE picks other kernels, so without it the same trainer makes other
# floats here than run directly on this machine (a drill, or a test comparing with a direct run, sees it).
INHERITED = ("PATH", "HOME", "LANG", "LC_ALL", "TMPDIR", "TZ", "SYSTEMROOT")
INHERITED_PREFIXES = ("OPENBLAS_", "OMP_", "MKL_", "GOTO_")


class PreemptRefused(ValueError):
    """A preemption the job cannot take (not running, not on Spot): the message says why."""


@dataclass
class Run:
    """The replicas of one job, in its current attempt."""

    name: str
    job_id: str
    spec: dict[str, Any]
    attempt: int
    simulated: bool
    replicas: list[Replica] = field(default_factory=list)
    ends_at: float | None = None  # simulated: when it succeeds
    restart_at: float | None = None  # preempted: when the next attempt starts
    for_good: bool = False
    kill_at: float | None = None  # SIGKILL once this passes (a preemption's or a cancel's grace)
    cancelled: bool = False  # its replicas were told to stop by a cancel

    def alive(self) -> list[Replica]:
        return [r for r in self.replicas if r.poll() is None]


class Runner:
    def __init__(self, store: JobStore, runs: Path, mark: str, run_for: float = 30.0, extra_env: dict[str, str] | None = None) -> None:
        self._store = store
        self._runs_dir = runs
        self._mark = mark
        self.run_for = run_for
        self._extra_env = dict(extra_env or {})
        self._runs: dict[str, Run] = {}
        self._preparing: dict[str, Future[Path | None]] = {}
        self._pythons: dict[str, Path | None] = {}  # job -> the python its replicas run: made once, for every restart
        self._lock = threading.RLock()
        self._pool = ThreadPoolExecutor(max_workers=2, thread_name_prefix="sandbox-prepare")
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._loop, name="sandbox-runner", daemon=True)

    def start(self) -> None:
        self._thread.start()

    def stop(self) -> None:
        """Stop the loop, and every replica with it (SIGKILL: the sandbox is going away)."""
        self._stop.set()
        self._thread.join(timeout=5)
        with self._lock:
            for run in self._runs.values():
                for replica in run.replicas:
                    replica.signal(signal.SIGKILL)
        self._pool.shutdown(wait=False, cancel_futures=True)

    # --- what a user asks of it: the developer API ----------------------------------------

    def preempt(self, name: str, place: Place | None = None, grace: float = SPOT_GRACE, for_good: bool = False) -> str:
        """Reclaim the job's Spot VMs: the replica `place` (default: every replica), SIGTERM then SIGKILL after
        `grace` seconds (0: at once). What happened, in a sentence; PreemptRefused if it cannot be."""
        job = self._job(name)
        if job is None:
            raise PreemptRefused(f"no job {name} in the sandbox")
        if job.state != S.JOB_STATE_RUNNING:
            raise PreemptRefused(f"{name} is {job.state.name.removeprefix('JOB_STATE_')}, not RUNNING: only a running job's VMs can be reclaimed")
        if job.job_spec.scheduling.strategy != aiplatform_v1.Scheduling.Strategy.SPOT:
            strategy = job.job_spec.scheduling.strategy.name
            raise PreemptRefused(f"{name} runs on {strategy}, not SPOT: only Spot VMs are preempted")
        with self._lock:
            run = self._runs.get(name)
            if run is None or run.restart_at is not None:
                raise PreemptRefused(f"{name} is between attempts (restarting): preempt it once it runs again")
            targets = [r for r in run.replicas if place is None or r.place == place]
            if place is not None and not targets and not run.simulated:
                known = ", ".join(f"{r.place.pool}:{r.place.index}" for r in run.replicas)
                raise PreemptRefused(f"{name} has no replica {place.pool}:{place.index} (its replicas: {known})")
            restarts = run.attempt - 1
            run.for_good = for_good or restarts >= MAX_RESTARTS
            for replica in targets:
                replica.preempted = True
                replica.signal(signal.SIGKILL if grace <= 0 else signal.SIGTERM)
            run.kill_at = time.monotonic() + max(grace, 0)
            if run.simulated:
                run.ends_at = None
                run.restart_at = None if run.for_good else time.monotonic() + RESTART_DELAY
            how = "SIGKILL at once" if grace <= 0 else f"SIGTERM, SIGKILL after {grace:g} s"
            then = "then FAILED with STOCKOUT" if run.for_good else f"then restart {restarts + 1} of {MAX_RESTARTS}"
            what = "simulated replicas" if run.simulated else ", ".join(r.place.name for r in targets)
            return f"preempted {name} attempt {run.attempt} ({what}): {how}; {then}"

    def replicas(self, name: str) -> list[tuple[str, int]]:
        """(replica, pid) of the job's running replicas: what a drill or a test looks at."""
        with self._lock:
            run = self._runs.get(name)
            return [(r.place.name, r.process.pid) for r in run.alive()] if run else []

    # --- the loop -------------------------------------------------------------------------

    def _loop(self) -> None:
        while not self._stop.wait(TICK_SECONDS):
            try:
                self.tick()
            except Exception:  # noqa: BLE001 - the loop must outlive one job's surprise; the log says what
                log.exception("the sandbox's runner failed a tick")

    def tick(self) -> None:
        now = time.time()
        for job in self._store.jobs():
            with self._lock:
                self._step(job, now)

    def _step(self, job: aiplatform_v1.CustomJob, now: float) -> None:
        name, state = job.name, job.state
        run = self._runs.get(name)
        if state == S.JOB_STATE_QUEUED:
            if now - job.create_time.timestamp() >= QUEUED_SECONDS:
                self._store.move(name, S.JOB_STATE_QUEUED, S.JOB_STATE_PENDING)
        elif state == S.JOB_STATE_PENDING:
            self._prepare(job)
        elif state == S.JOB_STATE_RUNNING:
            if run is None:  # the sandbox restarted under it: a host failure, Vertex starts it again
                self._launch(job, self._prepared(job))
            else:
                self._watch(job, run)
        elif state == S.JOB_STATE_CANCELLING:
            self._cancel(name, run)
        elif run is not None:  # ended by something else (a stockout of the region, a forced state)
            for replica in run.alive():
                replica.signal(signal.SIGKILL)
            if not run.alive():
                del self._runs[name]

    def _prepare(self, job: aiplatform_v1.CustomJob) -> None:
        name = job.name
        future = self._preparing.get(name)
        if future is None:
            self._preparing[name] = self._pool.submit(self._environment, _rest(job))
            return
        if not future.done():
            return
        del self._preparing[name]
        try:
            python = self._pythons[name] = future.result()
        except environments.PackageError as problem:
            self._store.move(name, S.JOB_STATE_PENDING, S.JOB_STATE_FAILED, (3, str(problem)))
            return
        if self._store.move(name, S.JOB_STATE_PENDING, S.JOB_STATE_RUNNING):
            self._launch(job, python)

    def _prepared(self, job: aiplatform_v1.CustomJob) -> Path | None:
        if job.name in self._pythons:
            return self._pythons[job.name]
        try:
            python = self._pythons[job.name] = self._environment(_rest(job))
            return python
        except environments.PackageError as problem:
            self._store.move(job.name, S.JOB_STATE_RUNNING, S.JOB_STATE_FAILED, (3, str(problem)))
            return None

    @staticmethod
    def _environment(job: dict[str, Any]) -> Path | None:
        """The python a pythonPackageSpec job runs (all its pools run the same packages), None to simulate."""
        for pool in (job.get("jobSpec") or {}).get("workerPoolSpecs") or []:
            package = (pool or {}).get("pythonPackageSpec")
            if package:
                return environments.environment_for(environments.download(list(package.get("packageUris") or [])))
        return None

    def _launch(self, job: aiplatform_v1.CustomJob, python: Path | None) -> None:
        rest = _rest(job)
        if python is None and _runs_code(rest):
            return  # its environment failed: the job was ended FAILED
        job_id = job.name.rsplit("/", 1)[1]
        spec = rest.get("jobSpec") or {}
        attempt = 1 + len(list((self._runs_dir / job_id).glob("attempt-*")))
        run = Run(job.name, job_id, spec, attempt, simulated=python is None)
        (self._runs_dir / job_id / f"attempt-{attempt}").mkdir(parents=True, exist_ok=True)
        self._runs[job.name] = run
        if python is None:
            run.ends_at = time.monotonic() + self.run_for
            return
        job_places = places(spec)
        hosts = free_hosts(job_places)
        base = {k: v for k, v in os.environ.items() if k in INHERITED or k.startswith(INHERITED_PREFIXES)} | self._extra_env
        for place in job_places:
            pool = spec["workerPoolSpecs"][place.pool]
            package = pool.get("pythonPackageSpec") or {}
            env = base | cluster_environment(job_id, spec, place, hosts) | {e["name"]: e.get("value", "") for e in package.get("env") or []}
            command = [str(python), "-m", package["pythonModule"], *package.get("args", [])]
            log_file = self._runs_dir / job_id / f"attempt-{attempt}" / f"{place.name}.log"
            run.replicas.append(Replica.start(place, command, env, log_file, log_file.parent, self._mark))

    def _watch(self, job: aiplatform_v1.CustomJob, run: Run) -> None:
        now = time.monotonic()
        if run.kill_at is not None and now >= run.kill_at:
            for replica in run.alive():
                if replica.preempted:
                    replica.signal(signal.SIGKILL)
        if run.simulated:
            if run.ends_at is None and run.restart_at is None:  # preempted for good
                self._after_preemption(job, run, now)
            elif run.ends_at is not None and now >= run.ends_at:
                self._end(run, S.JOB_STATE_SUCCEEDED, None)
            elif run.restart_at is not None and now >= run.restart_at:
                del self._runs[run.name]
                self._launch(job, None)
            return
        if any(r.preempted for r in run.replicas) and not [r for r in run.alive() if r.preempted]:
            self._after_preemption(job, run, now)
            return
        for replica in run.replicas:
            code = replica.poll()
            if code is None or replica.preempted:
                continue
            if code != 0:
                lines = "\n".join(replica.last_lines())
                message = (
                    f"The replica {replica.place.name} exited with a non-zero status of {code}. Termination reason: Error. "
                    f"Its last log lines (sandbox: {replica.log}):\n{lines}"
                )
                self._end(run, S.JOB_STATE_FAILED, (3, message))
                return
            if replica.place == Place(0, 0):
                self._end(run, S.JOB_STATE_SUCCEEDED, None)
                return

    def _after_preemption(self, job: aiplatform_v1.CustomJob, run: Run, now: float) -> None:
        if run.for_good:
            first = next((r.place.name for r in run.replicas if r.preempted), "workerpool0-0")
            self._end(run, S.JOB_STATE_FAILED, stockout_error(first, run.attempt - 1))
            return
        for replica in run.alive():  # every replica restarts with the reclaimed one (the module's docstring)
            replica.signal(signal.SIGTERM)
        if run.restart_at is None:
            run.restart_at = now + RESTART_DELAY
        if now >= run.restart_at and not run.alive():
            del self._runs[run.name]
            self._launch(job, self._prepared(job))

    def _end(self, run: Run, state: State, error: tuple[int, str] | None) -> None:
        for replica in run.alive():
            replica.signal(signal.SIGTERM)
        if self._store.move(run.name, S.JOB_STATE_RUNNING, state, error):
            if not run.alive():
                del self._runs[run.name]

    def _cancel(self, name: str, run: Run | None) -> None:
        future = self._preparing.pop(name, None)
        if future is not None:
            future.cancel()
        if run is not None and run.alive():
            if not run.cancelled:
                run.cancelled = True
                run.kill_at = time.monotonic() + CANCEL_GRACE
                for replica in run.alive():
                    replica.signal(signal.SIGTERM)
            elif run.kill_at is not None and time.monotonic() >= run.kill_at:
                for replica in run.alive():
                    replica.signal(signal.SIGKILL)
            return
        self._runs.pop(name, None)
        self._store.move(name, S.JOB_STATE_CANCELLING, S.JOB_STATE_CANCELLED, (1, "CANCELLED"))

    def _job(self, name: str) -> aiplatform_v1.CustomJob | None:
        try:
            return self._store.job(name)
        except KeyError:
            return None


def _rest(job: aiplatform_v1.CustomJob) -> dict[str, Any]:
    rest: dict[str, Any] = json_format.MessageToDict(aiplatform_v1.CustomJob.pb(job))
    return rest


def _runs_code(job: dict[str, Any]) -> bool:
    return any((pool or {}).get("pythonPackageSpec") for pool in (job.get("jobSpec") or {}).get("workerPoolSpecs") or [])


def simulated(job: dict[str, Any]) -> bool:
    """Whether the sandbox simulates the job (a containerSpec job) rather than running its code."""
    return not _runs_code(job)
