"""progress.json: how far the job got, read by the provider to tell progress from a crash loop."""

from __future__ import annotations

import json
from dataclasses import dataclass

from spot_runtime.layout import utc_now

VERSION = 1


@dataclass(frozen=True)
class Progress:
    job_id: str | None
    step: int
    start_step: int
    total_steps: int | None
    checkpoint: str | None
    time: str = ""

    def to_bytes(self) -> bytes:
        body = {
            "version": VERSION,
            "jobId": self.job_id,
            "step": self.step,
            "startStep": self.start_step,
            "totalSteps": self.total_steps,
            "time": self.time or utc_now(),
            "checkpoint": self.checkpoint,
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
        return cls(job_id, step, start, total, checkpoint, time if isinstance(time, str) else "")


def _count(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and value >= 0
