"""Reads of one stack that arrive together, served from one listing of the stack's jobs.

A refresh reads every job of the stack, and a read of each with its own
GetCustomJob costs N calls of the region's 600-a-minute request quota: 100 s of
it for 1,000 jobs. One ListCustomJobs by the stack's label
(`submission_labels.STACK_LABEL`) answers 100 jobs a page. So the reads of one
key, (project, region, stack label value), share one listing:

- The first read of a key that finds no listing opens one and leads it: it
  waits GATHER_SECONDS for other reads to join, then lists every page (the
  caller's `list_stack`), while the reads that arrive meanwhile wait for it.
- Once listed, the listing serves every read of its key that arrives within
  SERVE_SECONDS of its opening, at once and without a call; after that the next
  read opens a new one.
- A job the listing does not show (created after it, or its labels edited, or
  deleted out of band) is answered None: the caller reads it with its own
  GetCustomJob, which also tells a deleted job (`gone`) from a missing project.

What "arrive together" means here, under the host's thread model (host.py):
the engine sends a refresh's reads at most `--parallel` at once (its default is
4 per CPU) and sends the next as each answer comes back, so a refresh's reads
of one stack do not arrive all at once but as a stream, on the host's
READ_THREADS threads. A window that only gathered the reads in flight at one
instant would gather 8 on a 2-core machine and list the whole stack for them.
So a listing serves the stream: every read that arrives while it is being made
or within SERVE_SECONDS of its start.

Invariants:

- A read's answer is never older than SERVE_SECONDS plus the listing's own
  duration at the moment the read arrived; a job's states only move forward
  (queued, running, ended), so an older answer is one the next refresh
  corrects, as a GetCustomJob made earlier in the same refresh would be.
- Each job is served from a listing once: a second read of it (an import and a
  refresh in one process) is its own GetCustomJob.
- A listing that fails keeps the pages it read; every other job of its reads is
  answered None and read with its own Get: a failing list never fails the
  refresh, and a job on a page not read is never taken for one that is gone.
  The error is logged once.
- A read alone (no other read of its key joined it within GATHER_SECONDS: an
  import, a refresh of one targeted job) lists nothing: its Get is cheaper
  than listing the stack.
- Bounded: at most one listing per key, dropped once past SERVE_SECONDS (each
  call prunes them); a read waits for a listing at most WAIT_SECONDS, then is
  answered None.

Assumptions: the caller checks that each listed job carries the key's stack
label (the filter is a search, not the guarantee) and that names are full
resource names, as GetCustomJob takes them; a ListCustomJobs answer holds whole
CustomJob messages, as GetCustomJob's does (ListCustomJobsResponse.custom_jobs,
"List of CustomJobs in the requested page", read_mask unset: every field).
Thread-safe: one lock guards the listings; nothing is called while it is held.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any

log = logging.getLogger("spot-training")

# (project, region, the stack label's value)
Key = tuple[str, str, str]

# How long the first read of a key waits for others before listing: the reads the engine sends
# together reach the host within milliseconds; a read alone then goes on to its own Get.
GATHER_SECONDS = 0.05
# How long after it opens a listing answers the reads that arrive: a refresh of 1,000 jobs under
# the engine lasts seconds once its reads cost no call; a job's state only moves forward.
SERVE_SECONDS = 30.0
# A read waits this long at most for the listing it joined (each page has its own retry deadline).
WAIT_SECONDS = 300.0


@dataclass
class _Listing:
    opened: float
    joined: int = 1
    done: threading.Event = field(default_factory=threading.Event)
    jobs: dict[str, dict[str, Any]] | None = None  # by name; None until listed, or when alone


class ReadCoalescer:
    """The listings of the process's stacks, shared by every read thread of the host."""

    def __init__(
        self,
        gather: float = GATHER_SECONDS,
        serve_for: float = SERVE_SECONDS,
        wait: float = WAIT_SECONDS,
        clock: Callable[[], float] = time.monotonic,
        sleep: Callable[[float], None] = time.sleep,
    ) -> None:
        self._gather, self._serve_for, self._wait = gather, serve_for, wait
        self._clock, self._sleep = clock, sleep
        self._lock = threading.Lock()
        self._listings: dict[Key, _Listing] = {}

    def listed(self, key: Key, name: str, list_stack: Callable[[], Iterable[dict[str, Any]]]) -> dict[str, Any] | None:
        """The job `name` as its stack's listing shows it, or None: the caller then reads it with its
        own GetCustomJob. `list_stack` lists every job of the key's stack (called by one read only)."""
        with self._lock:
            now = self._clock()
            self._prune(now)
            listing = self._listings.get(key)
            leads = listing is None
            if listing is None:
                listing = self._listings[key] = _Listing(now)
            else:
                listing.joined += 1
        if leads:
            self._lead(key, listing, list_stack)
        elif not listing.done.wait(self._wait):
            return None
        with self._lock:
            return None if listing.jobs is None else listing.jobs.pop(name, None)

    def _lead(self, key: Key, listing: _Listing, list_stack: Callable[[], Iterable[dict[str, Any]]]) -> None:
        self._sleep(self._gather)
        with self._lock:
            if listing.joined == 1:  # alone: no listing; the next read of the key opens its own
                if self._listings.get(key) is listing:
                    del self._listings[key]
                listing.done.set()
                return
        jobs: dict[str, dict[str, Any]] = {}
        try:
            for job in list_stack():
                jobs[job["name"]] = job
        except Exception as error:  # noqa: BLE001 - any failure: each job not listed yet is read with its own Get
            log.warning(
                "Vertex AI could not list the stack's jobs in %s (%s): reading each job not listed with its own "
                "GetCustomJob",
                key[1], error,
            )
        with self._lock:
            listing.jobs = jobs
        listing.done.set()

    def _prune(self, now: float) -> None:
        for key, listing in list(self._listings.items()):
            if now - listing.opened > self._serve_for and listing.done.is_set():
                del self._listings[key]


# The process's one coalescer: the host's read threads share it (module state on purpose, as the
# shared clients and limiters are; never on the pickled provider).
COALESCER = ReadCoalescer()
