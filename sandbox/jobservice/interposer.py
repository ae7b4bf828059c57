"""The one seam through which something outside the service may shape a call: an Interposer.

The sandbox itself interposes nothing (`NoInterposer`): every call is answered
as the service's state says. The tests' fault plan (tests/emulator/faults.py)
is an Interposer, so that errors, late answers and late landings stay with the
tests and out of the user's path. The servicer (provider.py) consults it once
per call, by the call's 1-based number for its RPC.
"""

from __future__ import annotations

from typing import Protocol

from sandbox.jobservice.errors import ApiError


class CallFault(Protocol):
    """Answer the call with an error. after_apply: carry the request out first, so the error hides a
    success. lands_after (CreateCustomJob only): answer at once, land the job that many seconds later."""

    @property
    def after_apply(self) -> bool: ...

    @property
    def lands_after(self) -> float | None: ...

    def error(self) -> ApiError: ...


class CallDelay(Protocol):
    """Answer `seconds` late; after_apply carries the request out before the wait."""

    @property
    def seconds(self) -> float: ...

    @property
    def after_apply(self) -> bool: ...


class Interposer(Protocol):
    def take(self, rpc: str, call: int) -> tuple[CallFault | None, CallDelay | None]: ...

    def clear(self) -> None: ...


class NoInterposer:
    """Every call as the state says: what the sandbox runs."""

    def take(self, rpc: str, call: int) -> tuple[CallFault | None, CallDelay | None]:
        return None, None

    def clear(self) -> None:
        pass
