"""Whether an attempt of a job made progress, as the training's progress record tells it.

The training runtime (training/spot-runtime, `spot_runtime`) keeps one small
record beside the checkpoints, `<baseOutputDirectory>/checkpoints/progress.json`
(Vertex sets AIP_CHECKPOINT_DIR to that folder). Its chief writes it when an
attempt starts, after restoring the newest whole checkpoint, and after each
checkpoint: the job that wrote it (`jobId`, CLOUD_ML_JOB_ID), the step the job
began at (`startStep`, kept across Vertex's restarts of the same job), the step
of its newest whole checkpoint (`step`), `totalSteps` if known, and in
`attempts` the same for the jobs before it.

The provider's refresh reads that record once for an attempt that ended FAILED
(progress_record.py), and `assess` turns it into a `Progress` here, kept in
the job's `progress` output and, once the attempt is resubmitted, in its
`history` entry. The resubmission policy (decision/resubmission_policy.py) reads those, so the
decision stays pure: no call at preview time beyond the refresh's read.

What counts: an attempt made progress when the record it wrote ends at a later
step than the one it started from. A record written by an earlier attempt of
the same job means this one never reached its first step (it made none). No
record at all, a record that cannot be read, or one written by a job that is
not one of this resource's attempts says nothing: progress is unknown, and an
unknown attempt never stops a resubmission.
Pure: no Pulumi, no Google client.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from components.spot_job.model.values import as_int

# Where the record lives under a job's baseOutputDirectory.outputUriPrefix (AIP_CHECKPOINT_DIR is its folder).
RECORD_PATH = "checkpoints/progress.json"
RECORD_VERSION = 1
# A default for `resubmission.stopWithoutProgress`: one attempt without progress can be bad
# luck (reclaimed before its first checkpoint); two in a row is a job that cannot get ahead.
DEFAULT_STOP_WITHOUT_PROGRESS = 2


@dataclass(frozen=True)
class Progress:
    """What an ended attempt achieved: `progressed` is None when the record does not say."""

    job_id: str  # the attempt this is about (the id at the end of its jobName)
    progressed: bool | None
    step: int | None = None  # the newest whole checkpoint's step when the attempt ended
    start_step: int | None = None  # the step the attempt started from
    total_steps: int | None = None
    note: str = ""  # why it is unknown, or whose record it was

    def entry(self) -> dict[str, Any]:
        """The shape kept in the `progress` output and in a `history` entry."""
        return {
            "jobId": self.job_id,
            "progressed": self.progressed,
            "step": self.step,
            "startStep": self.start_step,
            "totalSteps": self.total_steps,
            "note": self.note,
        }

    @classmethod
    def of(cls, entry: Any) -> Progress | None:
        """The progress a stored entry holds; None for a state written before progress was kept."""
        if not isinstance(entry, dict) or not entry.get("jobId"):
            return None
        progressed = entry.get("progressed")
        return cls(
            job_id=str(entry["jobId"]),
            progressed=progressed if isinstance(progressed, bool) else None,
            step=as_int(entry.get("step")),
            start_step=as_int(entry.get("startStep")),
            total_steps=as_int(entry.get("totalSteps")),
            note=str(entry.get("note") or ""),
        )

    def at(self) -> str:
        """Where the attempt ended, in words: "step 1200 of 5000", "step 1200", or "an unknown step"."""
        if self.step is None:
            return "an unknown step"
        return f"step {self.step} of {self.total_steps}" if self.total_steps else f"step {self.step}"

    def words(self) -> str:
        """A short account for `status` and the logs."""
        if self.progressed is None:
            return f"unknown ({self.note})" if self.note else "unknown"
        if self.progressed:
            return f"{self.at()} (from step {self.start_step})"
        return f"no progress: {self.at()}" + (f" ({self.note})" if self.note else "")


def output_dir(job: Mapping[str, Any]) -> str | None:
    """The baseOutputDirectory of a job's inputs or of a REST-shaped CustomJob (same path in both)."""
    prefix = ((job.get("jobSpec") or {}).get("baseOutputDirectory") or {}).get("outputUriPrefix")
    return prefix if isinstance(prefix, str) else None


def record_uri(prefix: str | None) -> str | None:
    """The gs:// URI of the progress record of a job whose baseOutputDirectory is `prefix`, or None without one."""
    if not isinstance(prefix, str) or not prefix.startswith("gs://"):
        return None
    return f"{prefix.rstrip('/')}/{RECORD_PATH}"


def parse(text: bytes | str, uri: str) -> dict[str, Any]:
    """The record's JSON object; ValueError naming `uri` and what is wrong with it."""
    try:
        record = json.loads(text)
    except (ValueError, UnicodeDecodeError) as error:
        raise ValueError(f"{uri} is not a progress record (not JSON: {error})") from None
    if not isinstance(record, dict):
        raise ValueError(f"{uri} is not a progress record (not a JSON object)")
    if record.get("version") != RECORD_VERSION:
        raise ValueError(f"{uri} is a progress record of version {record.get('version')!r}; this reads {RECORD_VERSION}")
    for key in ("step", "startStep"):
        if as_int(record.get(key)) is None:
            raise ValueError(f"{uri} is not a progress record: `{key}` is {record.get(key)!r}, not a whole number")
    return record


def assess(record: dict[str, Any] | None, job_id: str, earlier: Sequence[str], uri: str, why_none: str = "") -> Progress:
    """What the attempt `job_id` made, from the record read at `uri` (None: none there,
    `why_none` says why); `earlier` are the ids of the resource's attempts before it."""
    if record is None:
        return Progress(job_id, None, note=why_none or f"no progress record at {uri}")
    writer = str(record.get("jobId") or "")
    step, total = as_int(record.get("step")), as_int(record.get("totalSteps"))
    if writer == job_id:
        start = as_int(record.get("startStep"))
        made = step is not None and start is not None and step > start
        return Progress(job_id, made, step, start, total)
    if writer and writer in earlier:
        # The record was left by an earlier attempt: this one never started training, so it is
        # where that one left the checkpoints.
        return Progress(job_id, False, step, step, total, note=f"it wrote no record; the last is attempt job {writer}'s")
    whose = f"job {writer}" if writer else "a run without CLOUD_ML_JOB_ID (not on Vertex)"
    return Progress(job_id, None, note=f"{uri} was written by {whose}, not by an attempt of this job")


def reported(record: dict[str, Any] | None, job_id: str) -> Progress | None:
    """What the record says of the job `job_id` (the writer, or one of its `attempts`), running or
    ended; None when it says nothing of it. For `spot-training status`."""
    if record is None:
        return None
    entries = [record, *(e for e in record.get("attempts") or [] if isinstance(e, dict))]
    for entry in entries:
        if str(entry.get("jobId") or "") == job_id:
            step, start = as_int(entry.get("step")), as_int(entry.get("startStep"))
            made = None if step is None or start is None else step > start
            return Progress(job_id, made, step, start, as_int(entry.get("totalSteps", record.get("totalSteps"))))
    return None


def stalled(progress: Sequence[Progress | None], limit: int) -> bool:
    """Whether the last `limit` attempts (oldest first in `progress`) all made no progress, as known."""
    if limit <= 0 or len(progress) < limit:
        return False
    return all(p is not None and p.progressed is False for p in progress[-limit:])
