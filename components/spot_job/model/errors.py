"""Errors meant for the user, and how they reach `pulumi up` as one clean message.

The dynamic provider host answers a failed call with the text of
`traceback.format_exc()` (pulumi/dynamic/__main__.py, `_abort_with_traceback`),
which is what the CLI prints. A refused permission or an invalid spec is not a
bug, and a screen of gRPC frames hides the one sentence that says what to do.

So a provider method marks the errors it reports cleanly (`UserError`,
`TimeoutError`), and the host's `format_exc` gives a marked error's message
alone; anything else keeps its traceback for the bug report. The decision
travels with the exception, so no call can change how another call's error is
reported: `sys.tracebacklimit`, which this used to set per call, is
process-wide, and the host serves 4 calls at once on threads (a bug on one
thread lost its traceback to a user error on another, and the limit stayed 0
for whatever failed next).

How the host's `format_exc` learns the mark: on the first clean error, once
per process and only in the host (`python -m pulumi.dynamic`), the host
module's name `traceback` is given `_HostTraceback`, the module itself except
for `format_exc`. Nothing else in the process formats differently: the SDK
reads stacks, and a program in the same process must still run. A host whose
module formats errors otherwise is left as it is (its clean errors then keep
their traceback, which tests/test_host_concurrency.py would show).

Pure: no Pulumi, no Google client.
"""

from __future__ import annotations

import functools
import sys
import threading
import traceback
from collections.abc import Callable
from typing import Any, TypeVar

from components.spot_job import host

F = TypeVar("F", bound=Callable[..., Any])

# The mark, an attribute of the exception itself: it goes wherever the exception goes.
_REPORTED_CLEANLY = "spot_training_reported_cleanly"


class UserError(Exception):
    """An error whose message says what is wrong and what to do; no traceback needed."""


def reported_cleanly(method: F) -> F:
    @functools.wraps(method)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        try:
            return method(*args, **kwargs)
        except (UserError, TimeoutError) as error:
            mark_clean(error)
            if host.module() is not None:
                error.__cause__ = None  # the Google exception behind it is in the message already
                error.__suppress_context__ = True
                _host_reports_marked_errors_cleanly()
            raise

    return wrapper  # type: ignore[return-value]  # functools.wraps keeps the signature at run time; mypy sees only the wrapper's (*args, **kwargs)


def mark_clean(error: BaseException) -> None:
    """Has the host report `error` as its message alone."""
    vars(error)[_REPORTED_CLEANLY] = True


def is_clean(error: BaseException) -> bool:
    return bool(getattr(error, _REPORTED_CLEANLY, False))


def formatted(error: BaseException) -> str:
    """`error` as the host reports it: a marked one as its message line alone, anything else
    with its traceback."""
    if is_clean(error):
        return "".join(traceback.format_exception_only(type(error), error))
    return "".join(traceback.format_exception(type(error), error, error.__traceback__))


class _HostTraceback:
    """The `traceback` module, but for `format_exc`, which gives a marked error's message alone."""

    def __getattr__(self, name: str) -> Any:
        return getattr(traceback, name)

    @staticmethod
    def format_exc(limit: int | None = None, chain: bool = True) -> str:
        error = sys.exc_info()[1]
        if error is not None and is_clean(error):
            return formatted(error)
        return traceback.format_exc(limit=limit, chain=chain)


_adapting = threading.Lock()


def _host_reports_marked_errors_cleanly() -> None:
    """Gives the host module's `format_exc` the mark, once per process (first clean errors may race)."""
    servicer_module = host.module()
    with _adapting:
        if getattr(servicer_module, "traceback", None) is traceback:
            servicer_module.traceback = _HostTraceback()  # type: ignore[union-attr]  # host.module() is not None here: the getattr above found its traceback
