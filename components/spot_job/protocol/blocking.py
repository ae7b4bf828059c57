"""The calls that may block on a job: at most two at a time.

Creates, updates and deletes run on the provider's own CHANGE_THREADS (4)
threads in the provider host (host.py; checks, diffs and reads have threads of
their own). A call that blocks on a job (a `waitFor` wait after a submission, a
delete waiting for a cancelled job to stop) holds one of them for up to half an
hour, so without a bound a mass destroy or an `up` full of waits leaves none
for the other creates and deletes: a delete's cancel would wait behind them
while its job bills on. All such calls share this one bound, so at least two of
those threads are never held by a job, whatever mix of calls is in flight.
(Their waits for a quota slot are the quota's: client/quota_pacing.py.)

A slot is taken without waiting for it: waiting for a slot would itself hold a
thread. A call that gets none does what it can without blocking and says so.

Module state on purpose: the host imports this module once and keeps it for
every call it serves, which is what makes the bound shared.
"""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Iterator

MAX_BLOCKING_CALLS = 2

_slots = threading.BoundedSemaphore(MAX_BLOCKING_CALLS)


@contextlib.contextmanager
def slot() -> Iterator[bool]:
    """Yields whether this call may block on a job now; never waits for the answer."""
    taken = _slots.acquire(blocking=False)
    try:
        yield taken
    finally:
        if taken:
            _slots.release()
