"""Client-side pacing of JobService calls to Vertex AI's per-region request quotas.

Vertex AI meters a project's requests per region and per minute
(https://cloud.google.com/vertex-ai/docs/quotas, "Rate-based quotas"):

- job or long-running-operation submissions, which include creating and
  deleting a custom job: 60 per minute;
- resource management (CRUD) requests, every other call here (get, list,
  cancel, and polling a delete's operation): 600 per minute.

A burst past either is answered RESOURCE_EXHAUSTED, and a client that backs off
and retries finds the freed slots late. So every call waits here first for a
slot of its region's quota, and Vertex is never asked for more than it allows.
google-api-core's retry of RESOURCE_EXHAUSTED stays (client/job_service.py) as the safety
net: for a quota shared with other clients of the project, or a value set
higher than the project's.

The limiter is pyrate-limiter's in-memory sliding-window log: at most N calls
in any window of a minute, which is what a per-minute quota allows, with a
blocking acquire (the lock is not held while a thread sleeps). One limiter per
(region, kind, rate) lives in this module, so it is shared by every thread of
the process: the dynamic provider host serves several calls at once, and they
all pace together. A limiter is made on first use, never at import (this module
is imported by the provider host for every call).

A call waiting here holds its thread: a sync gRPC server answers on the thread
that runs the call. So no call that can wait here runs on the host's own 4
threads: reads, and creates, updates and deletes, run on threads of the
provider's own (host.py), and checks and diffs, which never call Vertex AI,
always find one of the host's. A read waits for the request quota only, never
behind a create waiting for a submission slot.

Projects with raised quotas set `spot-training:quotas` (docs/config.md); it
reaches the host as the job input `quotas` (a knob: not part of the job's
definition, nor of its submission key).

The emulator's clock (tests/emulator) can run S times faster than real time, so
a minute of quota lasts 60/S real seconds there: with AIPLATFORM_EMULATOR_HOST
set, SPOT_TRAINING_EMULATOR_TIME_SCALE=S makes the limiter's minute as short.
It is read only with the emulator, so no real stack can shrink its minute.
"""

from __future__ import annotations

import logging
import os
import threading
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from pyrate_limiter import Limiter, Rate

log = logging.getLogger("spot-training")

# The documented defaults, per region and minute (https://cloud.google.com/vertex-ai/docs/quotas).
SUBMISSIONS_PER_MINUTE = 60
CALLS_PER_MINUTE = 600
# Config key (spot-training:quotas.<key>, the job input quotas.<key>) -> default.
DEFAULTS = {"submissionsPerMinute": SUBMISSIONS_PER_MINUTE, "callsPerMinute": CALLS_PER_MINUTE}

SUBMISSIONS = "submissions"
CALLS = "calls"
# The JobService methods that count as job/LRO submissions; every other one is a CRUD call.
_SUBMITTING = frozenset({"create_custom_job", "delete_custom_job"})

WINDOW_SECONDS = 60.0
# The window is kept this much longer than a minute: a request reaches Google a
# little after it leaves, and one that left just as its slot freed must not
# arrive in the same minute as the call that held the slot (costs < 1% of a burst).
# That travel takes real time (a request may also wait for the interpreter behind
# the host's other threads), so on the emulator's faster clock the margin is still
# at least MIN_MARGIN_SECONDS of real time: 0.1 s let one submission of a burst
# through a hair early on a busy machine (bench/burst.py, S=5).
MARGIN_SECONDS = 0.5
MIN_MARGIN_SECONDS = 0.25
# A call waits at most this long for a slot (a sliding window frees one within
# a minute, so only a stall waits longer); then it goes ahead, logged, and the
# retry of RESOURCE_EXHAUSTED is what paces it.
MAX_WAIT_SECONDS = 2 * WINDOW_SECONDS

TIME_SCALE_ENV = "SPOT_TRAINING_EMULATOR_TIME_SCALE"
_EMULATOR_HOST_ENV = "AIPLATFORM_EMULATOR_HOST"  # vertex.EMULATOR_HOST_ENV; vertex imports this module


def kind(method: str) -> str:
    """Which quota a JobService method (its GAPIC name, e.g. "get_custom_job") counts against."""
    return SUBMISSIONS if method in _SUBMITTING else CALLS


def rates(quotas: Mapping[str, Any] | None) -> dict[str, int]:
    """Per-minute limits by kind, from the job input `quotas` (None or partial: the documented defaults)."""
    given = {**DEFAULTS, **{k: v for k, v in (quotas or {}).items() if v}}
    return {SUBMISSIONS: int(given["submissionsPerMinute"]), CALLS: int(given["callsPerMinute"])}


def time_scale() -> float:
    """How many times faster than real time the quota's minute runs: 1, except against the emulator."""
    raw = os.environ.get(TIME_SCALE_ENV)
    if not raw or not os.environ.get(_EMULATOR_HOST_ENV):
        return 1.0
    try:
        scale = float(raw)
    except ValueError:
        raise ValueError(f"{TIME_SCALE_ENV}={raw!r} is not a number") from None
    if scale <= 0:
        raise ValueError(f"{TIME_SCALE_ENV}={raw!r} must be positive")
    return scale


@dataclass(frozen=True)
class Pacer:
    """The limiters of one region, for the span of one provider call (cheap: the limiters are shared)."""

    location: str
    per_minute: Mapping[str, int]
    scale: float

    def wait(self, method: str) -> None:
        """Blocks until the quota that `method` counts against has a slot in this region."""
        which = kind(method)
        limiter = _limiter(self.location, which, self.per_minute[which], self.scale)
        if not limiter.try_acquire(self.location, blocking=True, timeout=MAX_WAIT_SECONDS / self.scale):
            log.warning(
                "no %s slot of Vertex AI's quota in %s within %.0fs (%d per minute); calling anyway",
                which, self.location, MAX_WAIT_SECONDS, self.per_minute[which],
            )


def for_location(location: str, quotas: Mapping[str, Any] | None = None) -> Pacer:
    return Pacer(location, rates(quotas), time_scale())


_limiters: dict[tuple[str, str, int, float], Limiter] = {}
_lock = threading.Lock()


def _limiter(location: str, which: str, per_minute: int, scale: float) -> Limiter:
    # Keyed by the rate too: a stack's jobs all carry the same value, except in
    # the first `up` after it changed, when reads and deletes of jobs in state
    # still carry the old one; each value is then paced on its own.
    key = (location, which, per_minute, scale)
    with _lock:
        limiter = _limiters.get(key)
        if limiter is None:
            window_ms = round((WINDOW_SECONDS / scale + max(MARGIN_SECONDS / scale, MIN_MARGIN_SECONDS)) * 1000)
            # buffer_ms: how much later than the computed instant a waiting thread wakes.
            limiter = _limiters[key] = Limiter(Rate(per_minute, window_ms), buffer_ms=max(1, round(50 / scale)))
        return limiter
