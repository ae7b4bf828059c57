"""Emulated time: a monotonic clock that can run faster than real time, so minute-long windows pass quickly."""

import time
from collections.abc import Callable

Clock = Callable[[], float]


def scaled_clock(time_scale: float) -> Clock:
    """Emulated seconds since the call; time_scale=60 makes one emulated minute last one real second."""
    if time_scale <= 0:
        raise ValueError(f"time_scale must be positive, got {time_scale}")
    origin = time.monotonic()
    return lambda: (time.monotonic() - origin) * time_scale
