"""Vertex's cap on CustomJob submissions: at most N per region in any 60-second span."""

from collections import defaultdict, deque

import grpc

from tests.emulator.clock import Clock
from tests.emulator.errors import ApiError

WINDOW_SECONDS = 60.0


class SubmissionQuota:
    """A sliding window per region on an injectable clock; not thread-safe, the store's lock guards it."""

    def __init__(self, per_minute: int, clock: Clock):
        if per_minute < 1:
            raise ValueError(f"per_minute must be at least 1, got {per_minute}")
        self.per_minute = per_minute
        self._clock = clock
        self._accepted: defaultdict[str, deque[float]] = defaultdict(deque)

    def admit(self, region: str) -> bool:
        """Whether one more submission fits; only an admitted one is counted against the window."""
        now = self._clock()
        accepted = self._accepted[region]
        while accepted and accepted[0] <= now - WINDOW_SECONDS:
            accepted.popleft()
        if len(accepted) >= self.per_minute:
            return False
        accepted.append(now)
        return True


def exceeded(project: str) -> ApiError:
    # Google's wording; the real consumer is the project number, the parent may only name the project.
    return ApiError(
        grpc.StatusCode.RESOURCE_EXHAUSTED,
        "Quota exceeded for quota metric 'Custom job creation requests' and limit "
        "'Custom job creation requests per minute per region' of service 'aiplatform.googleapis.com' "
        f"for consumer 'project_number:{project}'.",
    )
