"""The states a Vertex AI CustomJob can be in, in the three groups this project acts on.

Every JobState value (google/cloud/aiplatform/v1/job_state.proto) falls in
exactly one group, so no caller has to decide where CANCELLING belongs:

- ACTIVE: the job may run or bill, and can be cancelled (queued, pending,
  running, paused, updating). At most one active job per submission key is
  the invariant of submission.py.
- STOPPING: cancelled and not yet ended (CANCELLING). It bills nothing more,
  is never adopted, and its record cannot be deleted until it has ended.
- ENDED: terminal; the record may be deleted (succeeded, failed, cancelled,
  expired, partially succeeded).

Pure: standard library only.
"""

from __future__ import annotations

QUEUED = "JOB_STATE_QUEUED"
PENDING = "JOB_STATE_PENDING"
RUNNING = "JOB_STATE_RUNNING"
SUCCEEDED = "JOB_STATE_SUCCEEDED"
FAILED = "JOB_STATE_FAILED"
CANCELLING = "JOB_STATE_CANCELLING"
CANCELLED = "JOB_STATE_CANCELLED"
PAUSED = "JOB_STATE_PAUSED"
EXPIRED = "JOB_STATE_EXPIRED"
UPDATING = "JOB_STATE_UPDATING"
PARTIALLY_SUCCEEDED = "JOB_STATE_PARTIALLY_SUCCEEDED"

ACTIVE = frozenset({QUEUED, PENDING, RUNNING, PAUSED, UPDATING})
STOPPING = frozenset({CANCELLING})
ENDED = frozenset({SUCCEEDED, FAILED, CANCELLED, EXPIRED, PARTIALLY_SUCCEEDED})
# Cancelled by someone, ended or not: such a record is never adopted, so a spec
# that comes back or a stack made again after a destroy runs its training.
CANCELLED_OR_CANCELLING = frozenset({CANCELLING, CANCELLED})


def is_active(state: object) -> bool:
    return state in ACTIVE


def has_ended(state: object) -> bool:
    return state in ENDED
