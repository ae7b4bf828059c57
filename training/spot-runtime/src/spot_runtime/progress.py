"""progress.json: how far the job got, read by the provider to tell progress from a crash loop."""

from __future__ import annotations

import json
from dataclasses import dataclass

from spot_runtime.layout import utc_now

VERSION = 1
# How many earlier jobs `attempts` remembers: spot-training resubmits a job at most 10 times.
ATTEMPTS_KEPT = 50


@dataclass(frozen=True)
class EarlierJob:
    """Where an earlier job (an attempt before a resubmission) started and stopped."""

    job_id: str
    step: int
    start_step: int
    time: str

    def to_json(self) -> dict[str, object]:
        return {"jobId": self.job_id, "step": self.step, "startStep": self.start_step, "time": self.time}

    @classmethod
    def parse(cls, entry: object) -> EarlierJob | None:
        if not isinstance(entry, dict):
            return None
        job_id, step, start, time = entry.get("jobId"), entry.get("step"), entry.get("startStep"), entry.get("time")
        if not isinstance(job_id, str) or not isinstance(step, int) or not isinstance(start, int):
            return None
        if not _count(step) or not _count(start):
            return None
        return cls(job_id, step, start, time if isinstance(time, str) else "")


@dataclass(frozen=True)
class Progress:
    job_id: str | None
    step: int
    start_step: int
    total_steps: int | None
    checkpoint: str | None
    time: str = ""
    # The jobs before this one that wrote the record, oldest first: `spot-training status` shows each
    # attempt's progress from this one read.
    attempts: tuple[EarlierJob, ...] = ()
    # Of the process that wrote the record (one attempt: a restart of the job is a new process): the step it
    # restored, and its seconds spent training and saving checkpoints so far. `spot-training sandbox drill`
    # reads them for the work a preemption lost and the checkpoints' overhead; None in older records.
    restored_step: int | None = None
    train_seconds: float | None = None
    save_seconds: float | None = None

    def earlier_and_this(self) -> tuple[EarlierJob, ...]:
        """`attempts` with this record's own job appended: what a record of the next job carries."""
        if self.job_id is None:
            return self.attempts
        own = EarlierJob(self.job_id, self.step, self.start_step, self.time)
        return (*(a for a in self.attempts if a.job_id != self.job_id), own)[-ATTEMPTS_KEPT:]

    def to_bytes(self) -> bytes:
        body = {
            "version": VERSION,
            "jobId": self.job_id,
            "step": self.step,
            "startStep": self.start_step,
            "totalSteps": self.total_steps,
            "time": self.time or utc_now(),
            "checkpoint": self.checkpoint,
            "attempts": [a.to_json() for a in self.attempts],
            "restoredStep": self.restored_step,
            "trainSeconds": self.train_seconds,
            "saveSeconds": self.save_seconds,
        }
        return (json.dumps(body, indent=2) + "\n").encode()

    @classmethod
    def parse(cls, data: bytes) -> Progress | None:
        """The record, or None when it is not one this runtime wrote (the caller warns)."""
        try:
            body = json.loads(data.decode())
        except (UnicodeDecodeError, ValueError):
            return None
        if not isinstance(body, dict) or body.get("version") != VERSION:
            return None
        job_id, step, start, total, checkpoint = (
            body.get("jobId"),
            body.get("step"),
            body.get("startStep"),
            body.get("totalSteps"),
            body.get("checkpoint"),
        )
        if not (isinstance(step, int) and isinstance(start, int) and _count(step) and _count(start)):
            return None
        if total is not None and not _count(total):
            return None
        if (job_id is not None and not isinstance(job_id, str)) or (checkpoint is not None and not isinstance(checkpoint, str)):
            return None
        time = body.get("time")
        raw = body.get("attempts")
        attempts = tuple(a for a in (EarlierJob.parse(e) for e in raw) if a) if isinstance(raw, list) else ()
        restored = body.get("restoredStep")
        return cls(
            job_id, step, start, total, checkpoint, time if isinstance(time, str) else "", attempts,
            restored if _count(restored) else None, _seconds(body.get("trainSeconds")), _seconds(body.get("saveSeconds")),
        )


def _count(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and value >= 0


def _seconds(value: object) -> float | None:
    return float(value) if isinstance(value, (int, float)) and not isinstance(value, bool) and value >= 0 else None
