"""The fault plan: which calls of which RPC fail or answer late, by call number or for the next N calls."""

from collections.abc import Iterable
from dataclasses import dataclass

import grpc

from sandbox.jobservice.errors import ApiError

# What Google's front end says for each code, so a client's logs and error matching see the real text.
GOOGLE_MESSAGES = {
    grpc.StatusCode.UNAVAILABLE: "The service is currently unavailable.",
    grpc.StatusCode.DEADLINE_EXCEEDED: "Deadline Exceeded",
    grpc.StatusCode.INTERNAL: "Internal error encountered.",
    grpc.StatusCode.RESOURCE_EXHAUSTED: "Resource has been exhausted (e.g. check quota).",
    grpc.StatusCode.ABORTED: "The operation was aborted.",
    grpc.StatusCode.CANCELLED: "The operation was cancelled.",
    grpc.StatusCode.UNKNOWN: "Unknown Error.",
    grpc.StatusCode.INVALID_ARGUMENT: "Request contains an invalid argument.",
    grpc.StatusCode.FAILED_PRECONDITION: "Precondition check failed.",
    grpc.StatusCode.NOT_FOUND: "Requested entity was not found.",
    grpc.StatusCode.ALREADY_EXISTS: "Requested entity already exists",
    grpc.StatusCode.PERMISSION_DENIED: "The caller does not have permission",
    grpc.StatusCode.UNAUTHENTICATED: "Request had invalid authentication credentials.",
}


@dataclass(frozen=True)
class Fault:
    """Answer with an error; after_apply carries the request out first, so the error hides a success.
    lands_after (CreateCustomJob only) answers the error at once and lands the job that many seconds
    later, as when Google's front end times out while the backend goes on."""

    code: grpc.StatusCode
    message: str
    after_apply: bool
    lands_after: float | None = None

    def error(self) -> ApiError:
        return ApiError(self.code, self.message)  # fresh each time: concurrent calls raise it at once


@dataclass(frozen=True)
class Delay:
    """Answer `seconds` late; after_apply carries the request out before the wait, not after it."""

    seconds: float
    after_apply: bool


Effect = Fault | Delay


class _Rule:
    def __init__(self, effect: Effect, calls: Iterable[int] | None, times: int | None):
        self.effect = effect
        self.calls = None if calls is None else frozenset(calls)
        self.remaining = times  # None with calls None: every call

    def claims(self, call: int) -> bool:
        if self.calls is not None:
            return call in self.calls
        if self.remaining is not None:
            self.remaining -= 1
        return True

    @property
    def spent(self) -> bool:
        return self.remaining == 0


class FaultPlan:
    """Rules per RPC, consulted once per call; not thread-safe, the store's lock guards it."""

    def __init__(self):
        self._rules: dict[str, list[_Rule]] = {}

    def inject(self, rpc: str, code: grpc.StatusCode, calls=None, times=None, message=None, after_apply=False) -> None:
        if (calls is None) == (times is None):
            raise ValueError("give exactly one of calls or times")
        if code == grpc.StatusCode.OK:
            raise ValueError("an injected fault needs an error code, not OK")
        message = GOOGLE_MESSAGES.get(code, code.name) if message is None else message
        self._add(rpc, Fault(code, message, after_apply), calls, times)

    def lands_late(self, rpc: str, seconds: float, code: grpc.StatusCode, calls=None, times=None) -> None:
        if calls is not None and times is not None:
            raise ValueError("give at most one of calls or times")
        if seconds < 0:
            raise ValueError(f"a landing cannot be in the past, got {seconds} seconds")
        if code == grpc.StatusCode.OK:
            raise ValueError("a late landing answers an error code, not OK")
        self._add(rpc, Fault(code, GOOGLE_MESSAGES.get(code, code.name), False, float(seconds)), calls, times)

    def delay(self, rpc: str, seconds: float, calls=None, times=None, after_apply=True) -> None:
        if calls is not None and times is not None:
            raise ValueError("give at most one of calls or times")
        if seconds < 0:
            raise ValueError(f"a delay cannot be negative, got {seconds}")
        self._add(rpc, Delay(seconds, after_apply), calls, times)

    def clear(self) -> None:
        self._rules.clear()

    def take(self, rpc: str, call: int) -> tuple[Fault | None, Delay | None]:
        """The fault and the delay for this call: the earliest added matching rule of each kind."""
        found: dict[type, Effect] = {}
        rules = self._rules.get(rpc, [])
        for rule in rules:
            kind = type(rule.effect)
            # Asked only while no earlier rule of its kind has claimed the call, so `times` counts the calls it shaped.
            if kind not in found and rule.claims(call):
                found[kind] = rule.effect
        rules[:] = [r for r in rules if not r.spent]
        return found.get(Fault), found.get(Delay)

    def _add(self, rpc: str, effect: Effect, calls, times) -> None:
        if calls is not None:
            calls = list(calls)
            if not calls or any(not isinstance(n, int) or n < 1 for n in calls):
                raise ValueError(f"calls are 1-based call numbers, got {calls!r}")
        if times is not None and times < 1:
            raise ValueError(f"times must be at least 1, got {times}")
        self._rules.setdefault(rpc, []).append(_Rule(effect, calls, times))
