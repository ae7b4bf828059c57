"""The provider's own knobs: how long one call may wait or delete.

Not Google's rule but the dynamic provider host's: it serves a few calls at
once for all resources, so no single call may hold one of its threads long.
"""

from __future__ import annotations

from ..values import duration_seconds, is_duration
from .known import Fail, Known

MAX_BLOCKING_SECONDS = 1800


def timeouts(k: Known, fail: Fail) -> None:
    for key in ("waitTimeout", "deleteTimeout"):
        timeout = k.text(k.inputs, key)
        if not is_duration(timeout):
            continue
        if duration_seconds(timeout) <= 0:
            fail(key, "must be longer than 0s")
        elif duration_seconds(timeout) > MAX_BLOCKING_SECONDS:
            fail(
                key,
                f"is {timeout}; at most {MAX_BLOCKING_SECONDS}s: the dynamic provider host has 4 threads "
                "for all resources, and a longer wait would stall the whole `pulumi up`",
            )
