"""The provider's lines on the provider host's stderr, which is what `pulumi up` shows.

The dynamic provider host has no engine connection for per-resource logs: what
it writes to stderr reaches the user as info diagnostics. The handler is
attached on a provider method's first call that reports, never at import: the
program imports the provider module too and must not print its lines.

Once per process, under a lock: the host serves 4 calls at once, its first
calls may all reach this together, and a handler attached twice prints every
line twice (`functools.cache` did not prevent it: it stores the result after
the call, so racing first calls each ran the body).

Pure: standard library only.
"""

from __future__ import annotations

import logging
import sys
import threading

LOGGER = "spot-training"

_lock = threading.Lock()
# Set once the handler is on: it is never attached again, even after someone removed it
# (bench/burst.py counts the provider's warnings instead of printing them).
_attached = threading.Event()


def to_stderr() -> None:
    """Sends the `spot-training` logger's records, INFO and above, to stderr; once, however
    many threads ask at once."""
    if _attached.is_set():  # every call after the first: no lock
        return
    with _lock:
        if _attached.is_set():
            return
        log = logging.getLogger(LOGGER)
        handler = logging.StreamHandler(sys.stderr)
        handler.setFormatter(logging.Formatter("spot-training: %(message)s"))
        log.addHandler(handler)
        log.setLevel(logging.INFO)
        _attached.set()
