"""The one order of jobs by time: oldest first by createTime, compared as a time, then by name.

The protocol keeps the oldest copy of a submission key by it (submission.py), the
CLI numbers a resource's attempts by it and the sweep lists what it found by it:
two observers of the same jobs must agree on which came first. createTime is
RFC 3339 with 0 to 9 fraction digits and any UTC offset, so its text does not
sort as its time ("…:15.5Z" sorts before "…:15Z").
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from google.protobuf import timestamp_pb2


def created_at(job: dict[str, Any]) -> int:
    """createTime as nanoseconds since the epoch; a job without one (or with an unreadable one) counts as the epoch."""
    stamp = timestamp_pb2.Timestamp()
    try:
        stamp.FromJsonString(str(job.get("createTime") or "1970-01-01T00:00:00Z"))
    except ValueError:
        return 0
    return int(stamp.ToNanoseconds())


def by_creation(job: dict[str, Any]) -> tuple[int, str]:
    """The sort key: when the job was created, then its name (two jobs created in the same nanosecond)."""
    return created_at(job), str(job.get("name", ""))


def oldest_first(jobs: Iterable[dict[str, Any]]) -> list[dict[str, Any]]:
    return sorted(jobs, key=by_creation)
