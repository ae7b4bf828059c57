"""Errors meant for the user, and how they reach `pulumi up` as one clean message.

The dynamic provider host answers a failed call with `traceback.format_exc()`,
which is what the CLI prints. A refused permission or an invalid spec is not a
bug, and a screen of gRPC frames hides the one sentence that says what to do.
`traceback` honours `sys.tracebacklimit`: at 0 it prints the message alone. So
a provider method reports its own errors with the limit at 0, and puts it back
for anything else, which keeps its traceback for the bug report.

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
            error.__cause__ = None  # the Google exception behind it is in the message already
            error.__suppress_context__ = True
            sys.tracebacklimit = 0
            raise
        except BaseException:
            sys.__dict__.pop("tracebacklimit", None)
            raise

    return wrapper  # type: ignore[return-value]
