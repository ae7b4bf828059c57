"""Drill: does a trainer survive Spot? One job run twice in the sandbox, once left alone, once preempted.

Both runs are CustomJobs of the drill's own, submitted to the sandbox's JobService
through the GAPIC client with the stack's job's spec as it was submitted, each
with a baseOutputDirectory of its own under `drills/` in the job's bucket, and no
spot-training label (so the stack's provider never takes one for its own). The
second run is preempted `count` times through the developer API, at steps
drawn from `seed` (plan()), mixing the two kinds a Spot VM sees:

- gentle: SIGTERM, then SIGKILL after the grace period (Compute Engine's 30 s);
- hard: SIGKILL at once, as when the grace period is not honoured.

Each is followed by what Vertex and the policy would do: Vertex restarts the job
(a new process on the same job) after each but the last; the last, when there
are two or more, is for good (STOCKOUT), and the drill resubmits the job with
the same output directory, as the provider's policy does.

What the drill reads is spot_runtime's progress record
(`AIP_CHECKPOINT_DIR/progress.json`, docs/training.md): each process writes
the step it restored (`restoredStep`) and its seconds training and saving.
So a verdict says where a preemption was taken (for a gentle one, the step the
trainer checkpointed on the notice; for a hard one, an estimate from the
uninterrupted run's rate, marked ~), where the next attempt resumed, and the
work lost. Then the two runs' AIP_MODEL_DIR are compared file by file, bytes
(or, with a tolerance, the numbers the trainer declares comparable in
`metrics.json`). The drill passes only if the preempted run finished, every
attempt resumed from the last checkpoint, and the models are the same.
"""

from __future__ import annotations

import json
import math
import random
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from google.cloud import aiplatform_v1

from sandbox.gcp.storage import Storage
from sandbox.jobservice import developer_api

GENTLE, HARD = "gentle", "hard"
RESTART, RESUBMIT = "restart", "resubmit"
METRICS = "metrics.json"  # what a trainer declares comparable under --tolerance: its top-level numbers
POLL = 0.1
HELP = "docs/training.md"
S = aiplatform_v1.JobState
ENDED = (S.JOB_STATE_SUCCEEDED, S.JOB_STATE_FAILED, S.JOB_STATE_CANCELLED)


class DrillFailed(RuntimeError):
    """The trainer did not survive, or the drill could not run: the message says what and where."""


@dataclass(frozen=True)
class Planned:
    kind: str  # GENTLE or HARD
    at_step: int  # taken once the trainer has checkpointed this far...
    into: float  # ...and this share of a checkpoint interval later: between two checkpoints, as a reclaim falls
    then: str  # RESTART or RESUBMIT


def plan(count: int, seed: int, total_steps: int) -> list[Planned]:
    """`count` preemptions spread over the training by step (not by time: a loaded machine trains slower in
    one run than in the other), kinds mixed (both, from two on), the last one for good from two on. The i-th
    falls in [(i+0.6)/(count+1), (i+1)/(count+1)] of the steps, so they come in order, each is taken while
    there is training left, and the last attempt has work to finish."""
    draw = random.Random(seed)
    kinds = [GENTLE if (i + draw.randrange(2)) % 2 == 0 else HARD for i in range(count)]
    if count >= 2 and len(set(kinds)) == 1:
        kinds[-1] = HARD if kinds[0] == GENTLE else GENTLE
    return [
        Planned(
            kind, int(total_steps * (i + draw.uniform(0.6, 1.0)) / (count + 1)), draw.uniform(0.2, 0.8),
            RESUBMIT if count >= 2 and i == count - 1 else RESTART,
        )
        for i, kind in enumerate(kinds)
    ]


@dataclass
class Verdict:
    planned: Planned
    taken_at: int
    exact: bool  # the trainer checkpointed on the notice: the step is its own, not an estimate
    checkpointed: int  # the newest step checkpointed when the attempt ended
    resumed_from: int | None = None
    rate: float = 0.0  # steps per second, the uninterrupted run's

    @property
    def lost_steps(self) -> int | None:
        return None if self.resumed_from is None else max(self.taken_at - self.resumed_from, 0)

    @property
    def lost_seconds(self) -> float | None:
        lost = self.lost_steps
        return None if lost is None or not self.rate else lost / self.rate


@dataclass
class Outcome:
    steps: int
    training_seconds: float
    overhead: float | None  # saving / training, of the uninterrupted run
    verdicts: list[Verdict] = field(default_factory=list)
    compared: str = ""


@dataclass
class Run:
    """One of the two runs: where it writes, its current CustomJob."""

    bucket: str
    prefix: str  # "drills/.../uninterrupted/"
    job: str = ""

    @property
    def uri(self) -> str:
        return f"gs://{self.bucket}/{self.prefix}"


class Drill:
    def __init__(self, jobs: aiplatform_v1.JobServiceClient, storage: Storage, jobservice: str, say: Callable[[str], None]) -> None:
        self._jobs, self._storage, self._jobservice, self._say = jobs, storage, jobservice, say

    def run(self, source: dict[str, Any], what: str, count: int, seed: int, grace: float, tolerance: float | None,
            timeout: float = 3600.0) -> Outcome:
        parent = source["name"].rsplit("/customJobs/", 1)[0]
        bucket, base = _output(source, what)
        stamp = time.strftime("%Y%m%dT%H%M%S", time.gmtime())
        root = f"{base}drills/{what.replace('/', '-')}/{stamp}-{seed}/"
        alone, preempted = Run(bucket, f"{root}uninterrupted/"), Run(bucket, f"{root}preempted/")
        try:
            self._say(f"uninterrupted run: {alone.uri}")
            self._submit(parent, source, alone, what)
            self._finish(alone, "the uninterrupted run", timeout)
            final = self._record(alone)
            if final is None:
                raise DrillFailed(
                    f"{what} wrote no progress record under AIP_CHECKPOINT_DIR ({alone.uri}checkpoints/): it ignores "
                    f"AIP_CHECKPOINT_DIR, so a preemption restarts it from step 0; checkpoint there with spot_runtime ({HELP})"
                )
            outcome = _measured(final)
            rate = (outcome.steps - int(final.get("restoredStep") or 0)) / outcome.training_seconds if outcome.training_seconds else 0.0
            self._say(f"preempted run: {preempted.uri}")
            self._submit(parent, source, preempted, what)
            outcome.verdicts = self._preempt(parent, source, preempted, what, plan(count, seed, outcome.steps), grace, rate, timeout)
            self._finish(preempted, "the preempted run", timeout)
            outcome.compared = self._compare(alone, preempted, tolerance)
            return outcome
        finally:
            for run in (alone, preempted):
                self._delete(run.job)

    # --- the preempted run ----------------------------------------------------------------

    def _preempt(self, parent: str, source: dict[str, Any], run: Run, what: str, planned: list[Planned], grace: float,
                 rate: float, timeout: float) -> list[Verdict]:
        verdicts: list[Verdict] = []
        ended: bytes | None = None  # the record as the previous attempt left it
        for number, step in enumerate(planned, 1):
            record = self._next_attempt(run, ended, timeout)
            if verdicts:
                self._resumed(verdicts[-1], record, what)
            seen, gap = (time.monotonic(), int(record["step"])), 1.0
            until: float | None = None
            while until is None or time.monotonic() < until:
                if self._state(run.job) != S.JOB_STATE_RUNNING:
                    raise DrillFailed(f"preemption {number} was not taken: the run ended first ({self._state(run.job).name}); drill a longer run")
                latest = self._record(run)
                if latest is not None and int(latest["step"]) != seen[1]:
                    now = time.monotonic()
                    gap, seen = now - seen[0], (now, int(latest["step"]))  # the latest checkpoint interval, in seconds
                if until is None and seen[1] >= step.at_step:
                    until = time.monotonic() + step.into * gap
                time.sleep(POLL)
            developer_api.call(self._jobservice, "Preempt", {
                "job": run.job, "grace": 0.0 if step.kind == HARD else grace, "forGood": step.then == RESUBMIT,
            })
            killed = time.monotonic()
            self._wait(lambda: not self._replicas(run.job), "the preempted replicas to end", grace + 60)
            ended = self._raw(run)
            after = self._record(run) or record
            exact = step.kind == GENTLE and int(after["step"]) > seen[1]
            taken = int(after["step"]) if exact else seen[1] + round(rate * (killed - seen[0]))
            verdicts.append(Verdict(step, taken, exact, int(after["step"]), rate=rate))
            self._say(f"  preemption {number}: {step.kind} past step {step.at_step}, at {'' if exact else '~'}step {taken}; then {step.then}")
            if step.then == RESUBMIT:
                self._wait(lambda: self._state(run.job) == S.JOB_STATE_FAILED, "the STOCKOUT", 60)
                self._submit(parent, source, run, what)  # what the policy does: a new job, the same output directory
        if verdicts:
            self._resumed(verdicts[-1], self._next_attempt(run, ended, timeout), what)
        return verdicts

    def _next_attempt(self, run: Run, ended: bytes | None, timeout: float) -> dict[str, Any]:
        """The record a new attempt's restore wrote (the job runs again, and the record is no longer the old one's)."""
        def started() -> dict[str, Any] | None:
            state = self._state(run.job)
            if state in ENDED and state != S.JOB_STATE_SUCCEEDED:
                raise DrillFailed(f"the preempted run ended {state.name.removeprefix('JOB_STATE_')}: {self._error(run.job)}")
            raw = self._raw(run)
            return self._record(run) if raw is not None and raw != ended else None

        found: dict[str, Any] = self._wait(started, "the next attempt to start and restore", timeout)
        return found

    @staticmethod
    def _resumed(verdict: Verdict, record: dict[str, Any], what: str) -> None:
        restored = record.get("restoredStep")
        verdict.resumed_from = int(restored) if restored is not None else int(record.get("step") or 0)
        if verdict.checkpointed > 0 and verdict.resumed_from < verdict.checkpointed:
            raise DrillFailed(
                f"after the {verdict.planned.kind} preemption at step {verdict.taken_at}, the next attempt of {what} resumed from "
                f"step {verdict.resumed_from} although step {verdict.checkpointed} was checkpointed: it does not load its checkpoint "
                f"from AIP_CHECKPOINT_DIR ({HELP})"
            )

    # --- comparing ------------------------------------------------------------------------

    def _compare(self, alone: Run, preempted: Run, tolerance: float | None) -> str:
        expected = self._storage.objects(alone.bucket, f"{alone.prefix}model/")
        got = self._storage.objects(preempted.bucket, f"{preempted.prefix}model/")
        if not expected:
            raise DrillFailed(f"the uninterrupted run wrote nothing under AIP_MODEL_DIR ({alone.uri}model/): nothing to compare")
        if tolerance is not None:
            return _compare_metrics(expected, got, tolerance, alone, preempted)
        for name in sorted(set(expected) | set(got)):
            if name not in got:
                raise DrillFailed(f"the preempted run wrote no model/{name}; the uninterrupted run did ({alone.uri}model/{name})")
            if name not in expected:
                raise DrillFailed(f"the preempted run wrote model/{name}, which the uninterrupted run did not")
            if expected[name] != got[name]:
                at = next((i for i, (a, b) in enumerate(zip(expected[name], got[name], strict=False)) if a != b), min(len(expected[name]), len(got[name])))
                raise DrillFailed(
                    f"model/{name} differs from the uninterrupted run's from byte {at} ({preempted.uri}model/{name} vs "
                    f"{alone.uri}model/{name}): the training after a resume is not the training without one ({HELP}); "
                    "for a trainer that is not deterministic, compare its metrics with --tolerance"
                )
        return f"{len(expected)} files under AIP_MODEL_DIR, byte for byte the uninterrupted run's"

    # --- the JobService and the bucket ----------------------------------------------------

    def _submit(self, parent: str, source: dict[str, Any], run: Run, what: str) -> None:
        spec = json.loads(json.dumps(source.get("jobSpec") or {}))
        spec["baseOutputDirectory"] = {"outputUriPrefix": run.uri}
        body = {"displayName": f"drill-{what.replace('/', '-')}", "jobSpec": spec, "labels": {"spot-training-sandbox-drill": "true"}}
        job = aiplatform_v1.CustomJob.from_json(json.dumps(body), ignore_unknown_fields=True)
        self._delete(run.job)
        run.job = self._jobs.create_custom_job(parent=parent, custom_job=job).name

    def _finish(self, run: Run, what: str, timeout: float) -> None:
        self._wait(lambda: self._state(run.job) in ENDED, f"{what} to end", timeout)
        if self._state(run.job) != S.JOB_STATE_SUCCEEDED:
            raise DrillFailed(f"{what} ended {self._state(run.job).name.removeprefix('JOB_STATE_')}: {self._error(run.job)}")

    def _state(self, name: str) -> S:
        return S(self._jobs.get_custom_job(name=name).state)

    def _error(self, name: str) -> str:
        return str(self._jobs.get_custom_job(name=name).error.message) or "no error given"

    def _replicas(self, name: str) -> list[Any]:
        jobs = developer_api.call(self._jobservice, "Describe", {})["jobs"]
        return next((j.get("replicas") or [] for j in jobs if j["name"] == name), [])

    def _raw(self, run: Run) -> bytes | None:
        return self._storage.read(run.bucket, f"{run.prefix}checkpoints/progress.json")

    def _record(self, run: Run) -> dict[str, Any] | None:
        raw = self._raw(run)
        try:
            body = json.loads(raw) if raw else None
        except ValueError:
            return None
        return body if isinstance(body, dict) and isinstance(body.get("step"), int) else None

    def _delete(self, name: str) -> None:
        """The drill's jobs go when it ends: they are no stack's, and `sandbox down` destroys only the stack's."""
        if not name:
            return
        try:
            if self._state(name) not in ENDED:
                self._jobs.cancel_custom_job(name=name)
                self._wait(lambda: self._state(name) in ENDED, "the drill's job to be cancelled", 60)
            self._jobs.delete_custom_job(name=name)
        except DrillFailed:
            pass  # left in the sandbox; `sandbox down` stops it with the services

    @staticmethod
    def _wait(condition: Callable[[], Any], what: str, timeout: float) -> Any:
        deadline = time.monotonic() + timeout
        while True:
            found = condition()
            if found:
                return found
            if time.monotonic() > deadline:
                raise DrillFailed(f"timed out after {timeout:g} s waiting for {what}")
            time.sleep(POLL)


def _output(source: dict[str, Any], what: str) -> tuple[str, str]:
    """The bucket and the path in it of the job's baseOutputDirectory: the drill writes beside it."""
    prefix = str(((source.get("jobSpec") or {}).get("baseOutputDirectory") or {}).get("outputUriPrefix") or "")
    if not prefix.startswith("gs://"):
        raise DrillFailed(f"{what} has no gs:// baseOutputDirectory, so no AIP_MODEL_DIR or AIP_CHECKPOINT_DIR to drill")
    bucket, _, path = prefix.removeprefix("gs://").partition("/")
    path = path.rstrip("/")
    return bucket, f"{path}/" if path else ""


def _measured(final: dict[str, Any]) -> Outcome:
    train, save = final.get("trainSeconds"), final.get("saveSeconds")
    seconds = float(train or 0) + float(save or 0)
    overhead = float(save) / float(train) if train and save is not None else None
    return Outcome(int(final["step"]), seconds, overhead)


def _compare_metrics(expected: dict[str, bytes], got: dict[str, bytes], tolerance: float, alone: Run, preempted: Run) -> str:
    def numbers(files: dict[str, bytes], run: Run) -> dict[str, float]:
        if METRICS not in files:
            raise DrillFailed(f"--tolerance compares the numbers of model/{METRICS}, and {run.uri}model/ has none ({HELP})")
        body = json.loads(files[METRICS])
        return {k: float(v) for k, v in body.items() if isinstance(v, (int, float)) and not isinstance(v, bool)} if isinstance(body, dict) else {}

    want, have = numbers(expected, alone), numbers(got, preempted)
    if not want:
        raise DrillFailed(f"{alone.uri}model/{METRICS} declares no top-level number to compare ({HELP})")
    for key, value in sorted(want.items()):
        if key not in have:
            raise DrillFailed(f"model/{METRICS} of the preempted run has no {key!r}")
        if not math.isclose(have[key], value, rel_tol=tolerance, abs_tol=tolerance if value == 0 else 0.0):
            raise DrillFailed(f"model/{METRICS}: {key} is {have[key]:g} after the preemptions, {value:g} without: more than {tolerance:g} apart")
    return f"the {len(want)} numbers of model/{METRICS} within {tolerance:g} of the uninterrupted run's"
