"""Vertex's per-region request quotas: at most N calls per region in any 60-second span.

Two are enforced (https://cloud.google.com/vertex-ai/docs/quotas): job submissions,
which Google's page says include creating and deleting a custom job (60 a minute), and
resource management (CRUD) requests, every other JobService call (600 a minute)."""

from collections import defaultdict, deque

import grpc

from sandbox.jobservice.clock import Clock
from sandbox.jobservice.errors import ApiError

WINDOW_SECONDS = 60.0


class SubmissionQuota:
    """A sliding window per region (used for either quota, despite its name) on an injectable clock; not thread-safe, the store's lock guards it."""

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


# Which quota each rpc is charged to; GetOperation (a delete's long-running operation) is a CRUD read.
SUBMITTING_RPCS = frozenset({"CreateCustomJob", "DeleteCustomJob"})
CRUD_RPCS = frozenset({"GetCustomJob", "ListCustomJobs", "CancelCustomJob", "GetOperation"})


def _exceeded(metric: str, project: str) -> ApiError:
    # Google's wording; the real consumer is the project number, the parent may only name the project.
    return ApiError(
        grpc.StatusCode.RESOURCE_EXHAUSTED,
        f"Quota exceeded for quota metric '{metric} requests' and limit '{metric} requests per minute per region' "
        f"of service 'aiplatform.googleapis.com' for consumer 'project_number:{project}'.",
    )


def crud_exceeded(project: str) -> ApiError:
    return _exceeded("Resource management (CRUD)", project)


def exceeded(project: str) -> ApiError:
    return _exceeded("Custom job creation", project)
