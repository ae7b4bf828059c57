"""The typed view of a SpotTrainingJob's state: one way in from the engine's props, one way out to outputs.

The engine hands the provider a bag of props (the inputs and, once the job
exists, the outputs beside them). `JobState.of(props, id_)` reads the outputs
once: the current attempt's name parsed (`JobName`), its Vertex state, and the
provider's own record (submission key, strategy, attempt, history, gone).
`JobState.observed(...)` makes the state of an attempt just seen in Vertex, and
`outputs()` writes it back in the shape every stack's state already holds
(docs/lifecycle.md, tests/upgrades/ pin it). Pure: no Pulumi, no Google client.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Any

from components.spot_job.model import states
from components.spot_job.model.job_name import JobName
from components.spot_job.model.progress import Progress
from components.spot_job.model.values import as_int

# What an ended attempt's error message is cut to in `history`, so state stays small.
HISTORY_MESSAGE_CHARS = 200

# The provider's outputs, beside the inputs it stores unchanged.
OUTPUT_FIELDS = (
    "jobName",
    "jobId",
    "state",
    "createTime",
    "startTime",
    "endTime",
    "updateTime",
    "error",
    "consoleUrl",
    "submissionKey",
    "strategy",
    "attempt",
    "history",
    "gone",
    "progress",
)
PROVIDER_KEY = "__provider"


@dataclass(frozen=True)
class Attempt:
    """An attempt that ended before the current one, as `history` remembers it."""

    job: JobName | None
    state: str | None
    strategy: str | None
    error: dict[str, Any] | None
    progress: Progress | None = None  # None in an entry written before progress was kept

    @classmethod
    def of(cls, entry: dict[str, Any], project: str, location: str) -> Attempt:
        # An entry written before attempts could move region holds only the job id: those all ran at home.
        id_or_name = entry.get("jobName") or entry.get("jobId")
        job = JobName.of(id_or_name, project, location) if id_or_name else None
        return cls(job, entry.get("state"), entry.get("strategy"), entry.get("error"), Progress.of(entry.get("progress")))

    def entry(self) -> dict[str, Any]:
        written = {
            "jobId": self.job.id if self.job else None,
            "jobName": str(self.job) if self.job else None,
            "state": self.state,
            "strategy": self.strategy,
            "error": _short_error(self.error),
        }
        return {**written, "progress": self.progress.entry()} if self.progress else written


@dataclass(frozen=True)
class JobState:
    """The current attempt and the provider's record of the attempts before it."""

    job: JobName
    state: str | None = None
    times: dict[str, str | None] = field(default_factory=dict)  # createTime, startTime, endTime, updateTime
    error: dict[str, Any] | None = None
    submission_key: str | None = None
    strategy: str | None = None
    attempt: int = 1
    # The `history` entries as stored: an entry is never rewritten once written.
    history: tuple[dict[str, Any], ...] = ()
    gone: bool = False
    # The job's own region (its `location` input): where a history entry that holds only an id ran.
    home: str = ""
    # What the current attempt achieved, once it ended FAILED and its record was read (progress_record.py).
    progress: Progress | None = None

    @classmethod
    def of(cls, props: dict[str, Any], id_: str = "") -> JobState:
        """The state in the engine's props of an existing job (`id_` is the resource's id)."""
        project, location = str(props.get("project") or ""), str(props.get("location") or "")
        job = JobName.of(str(props.get("jobName") or id_), project, location)
        return cls(
            job=job,
            state=props.get("state"),
            times={k: props.get(k) for k in ("createTime", "startTime", "endTime", "updateTime")},
            error=props.get("error"),
            submission_key=props.get("submissionKey"),
            strategy=props.get("strategy"),
            attempt=as_int(props.get("attempt")) or 1,
            history=tuple(e for e in props.get("history") or [] if isinstance(e, dict)),
            gone=bool(props.get("gone")),
            home=location,
            progress=Progress.of(props.get("progress")),
        )

    @classmethod
    def observed(
        cls,
        job: dict[str, Any],
        *,
        key: str | None,
        strategy: str | None,
        attempt: int,
        history: tuple[dict[str, Any], ...],
        home: str = "",
        progress: Progress | None = None,
    ) -> JobState:
        """The state of an attempt as Vertex just reported it (a REST-shaped CustomJob)."""
        error = job.get("error")
        return cls(
            job=JobName.parse(job["name"]),
            state=job.get("state"),
            times={k: job.get(k) for k in ("createTime", "startTime", "endTime", "updateTime")},
            error={"code": error.get("code", 0), "message": error.get("message", "")} if error else None,
            submission_key=key,
            strategy=strategy,
            attempt=int(attempt),
            history=history,
            home=home,
            progress=progress,
        )

    def refreshed(self, job: dict[str, Any]) -> JobState:
        """This state with Vertex's latest report of the same attempt; the provider's record is kept."""
        return JobState.observed(
            job,
            key=self.submission_key,
            strategy=self.strategy,
            attempt=self.attempt,
            history=self.history,
            home=self.home,
            progress=self.progress if self.progress and self.progress.job_id == self.job.id else None,
        )

    def with_progress(self, progress: Progress) -> JobState:
        return replace(self, progress=progress)

    @property
    def wants_progress(self) -> bool:
        """Whether a refresh is to read the progress record: the attempt ended FAILED and it has not been read."""
        return self.state == states.FAILED and (self.progress is None or self.progress.job_id != self.job.id)

    @property
    def progress_so_far(self) -> tuple[Progress | None, ...]:
        """Each attempt's progress, oldest first, the current one last."""
        return (*(a.progress for a in self.attempts), self.progress)

    def ended_attempt(self) -> dict[str, Any]:
        """How the current attempt is remembered in `history` once a resubmission follows it."""
        return Attempt(self.job, self.state, self.strategy, self.error, self.progress).entry()

    @property
    def attempts(self) -> tuple[Attempt, ...]:
        return tuple(Attempt.of(e, self.job.project, self.home or self.job.location) for e in self.history)

    @property
    def past_jobs(self) -> tuple[JobName, ...]:
        return tuple(a.job for a in self.attempts if a.job is not None)

    @property
    def all_jobs(self) -> tuple[JobName, ...]:
        return (self.job, *self.past_jobs)

    def outputs(self, inputs: dict[str, Any]) -> dict[str, Any]:
        """The props the engine stores: the inputs unchanged, then these outputs."""
        kept = {k: v for k, v in inputs.items() if k != PROVIDER_KEY and k not in OUTPUT_FIELDS}
        return {
            **kept,
            "jobName": str(self.job),
            "jobId": self.job.id,
            "state": self.state,
            **{k: self.times.get(k) for k in ("createTime", "startTime", "endTime", "updateTime")},
            "error": self.error,
            "consoleUrl": self.job.console_url,
            "submissionKey": self.submission_key,
            "strategy": self.strategy,
            "attempt": self.attempt,
            "history": list(self.history),
            "gone": self.gone,
            "progress": self.progress.entry() if self.progress else None,
        }


def _short_error(error: dict[str, Any] | None) -> dict[str, Any] | None:
    if not error:
        return None
    return {"code": error.get("code", 0), "message": str(error.get("message", ""))[:HISTORY_MESSAGE_CHARS]}

