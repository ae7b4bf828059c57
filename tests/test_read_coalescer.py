"""The read coalescer's invariants that a refresh through the host cannot pin down on time: a
listing serves its key for SERVE_SECONDS and then is made again, each job once, and a read alone
lists nothing. On a fake clock; tests/test_refresh_reads.py counts the calls through the host."""

from __future__ import annotations

import threading
from concurrent.futures import ThreadPoolExecutor

from components.spot_job.client.read_coalescer import ReadCoalescer

KEY = ("acme", "us-central1", "stack")


class Clock:
    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


def jobs(*names: str) -> list[dict]:
    return [{"name": name, "state": "JOB_STATE_RUNNING"} for name in names]


def test_a_read_alone_lists_nothing():
    listed: list[int] = []
    coalescer = ReadCoalescer(gather=0.0, clock=Clock())
    assert coalescer.listed(KEY, "a", lambda: listed.append(1) or jobs("a")) is None
    assert listed == []


def test_reads_that_arrive_together_share_one_listing_each_job_once_until_it_expires():
    clock, listings = Clock(), []
    gathering = threading.Barrier(3)  # all three call at once; the leader's gathering (0.5 s) lets the others join
    coalescer = ReadCoalescer(gather=0.5, serve_for=30.0, clock=clock)  # real sleep: the others join meanwhile

    def stack():
        listings.append(1)
        return jobs("a", "b", "c", "d")

    def read(name: str):
        gathering.wait()
        return coalescer.listed(KEY, name, stack)

    with ThreadPoolExecutor(3) as pool:
        answers = list(pool.map(read, ["a", "b", "x"]))
    assert [a and a["name"] for a in answers] == ["a", "b", None]  # x: not listed, the caller's own Get
    assert listings == [1]

    clock.now = 10.0  # within the window: served at once, no call
    assert coalescer.listed(KEY, "c", stack) == {"name": "c", "state": "JOB_STATE_RUNNING"}
    assert coalescer.listed(KEY, "c", stack) is None  # each job once: a second read is its own Get
    assert listings == [1]

    clock.now = 31.0  # past the window: the listing is dropped (d, listed, is not served); alone, nothing is listed
    assert coalescer.listed(KEY, "d", stack) is None
    assert listings == [1]
