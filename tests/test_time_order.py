"""The CLI and the sweep order jobs by when they were created as the protocol does: as times.

RFC 3339 allows 0 to 9 fraction digits and any UTC offset, so the order of the
strings is not the order of the times: "…:15.5Z" sorts before "…:15Z" as text
("." before "Z"), yet is the later time, and "…T14:00:00+02:00" sorts after
"…T13:00:00Z" as text, yet is the earlier time.
"""

from __future__ import annotations

from cli import deployed
from components.spot_job.model import states, submission_labels
from components.spot_job.model.job_name import JobName
from operations import sweep
from operations.state import StackState

# Oldest first, as times; as strings each pair is the other way round.
EARLIER, LATER = "2026-12-03T13:43:15Z", "2026-12-03T13:43:15.5Z"
EARLIER_OFFSET, LATER_UTC = "2026-12-03T14:00:00+02:00", "2026-12-03T13:00:00Z"


def job(name: str, created: str) -> dict:
    return {
        "name": f"projects/acme-ml-dev/locations/us-central1/customJobs/{name}",
        "state": states.RUNNING,
        "createTime": created,
        "displayName": "vision-resnet",
        "labels": {submission_labels.RESOURCE_LABEL: "vision-resnet", "team": "vision"},
    }


def test_the_cli_numbers_attempts_by_time_not_by_text():
    found = deployed.with_attempts([job("2", LATER), job("1", EARLIER), job("4", LATER_UTC), job("3", EARLIER_OFFSET)], {})
    assert [(JobName.parse(f.job["name"]).id, f.attempt) for f in found] == [("3", 1), ("4", 2), ("1", 3), ("2", 4)]


def test_the_sweep_lists_orphans_oldest_first_by_time_not_by_text():
    nothing = StackState("test", frozenset(), frozenset(), ())
    found = sweep.unaccounted([job("2", LATER), job("1", EARLIER), job("4", LATER_UTC), job("3", EARLIER_OFFSET)], nothing)
    assert [JobName.parse(f.job["name"]).id for f in found] == ["3", "4", "1", "2"]
