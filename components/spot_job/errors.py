"""Errors meant for the user, and how they reach `pulumi up` as one clean message.

The dynamic provider host answers a failed call with `traceback.format_exc()`,
which is what the CLI prints. A refused permission or an invalid spec is not a
bug, and a screen of gRPC frames hides the one sentence that says what to do.
`traceback` honours `sys.tracebacklimit`: at 0 it prints the message alone. So,
in the host process only, a provider method reports its own errors with the
limit at 0, and puts it back for anything else, which keeps its traceback for
the bug report. Never elsewhere: the limit is process-wide, and the Pulumi SDK
itself reads stacks (a program registering resources fails with it at 0).

Pure: no Pulumi, no Google client.
"""

from __future__ import annotations

import functools
import sys
from typing import Any, Callable, TypeVar

F = TypeVar("F", bound=Callable[..., Any])


class UserError(Exception):
    """An error whose message says what is wrong and what to do; no traceback needed."""


def reported_cleanly(method: F) -> F:
    @functools.wraps(method)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        try:
            return method(*args, **kwargs)
        except (UserError, TimeoutError) as error:
            if _in_dynamic_provider_host():
                error.__cause__ = None  # the Google exception behind it is in the message already
                error.__suppress_context__ = True
                sys.tracebacklimit = 0
            raise
        except BaseException:
            if _in_dynamic_provider_host():
                sys.__dict__.pop("tracebacklimit", None)
            raise

    return wrapper  # type: ignore[return-value]


def _in_dynamic_provider_host() -> bool:
    """Whether this process is `python -m pulumi.dynamic`, the host the engine starts."""
    spec = getattr(sys.modules.get("__main__"), "__spec__", None)
    return getattr(spec, "name", None) == "pulumi.dynamic.__main__"
