"""Secret values never leave the provider: not in a log line, a change line or an error.

The dynamic provider host tells the engine it does not accept secrets, so the
engine hands the provider plain values and the provider cannot tell which
were secret. The program says which, in the `secretPaths` input (paths such
as `jobSpec.workerPoolSpecs[0].containerSpec.env[0].value`). Every value
found there is remembered for the life of the host process, and scrubbed from
every record of the `spot-training` logger and from every error a provider
method raises. Pure: no Pulumi, no Google client.
"""

from __future__ import annotations

import functools
import logging
import threading
from collections.abc import Callable, Iterable, Mapping
from typing import Any

from components.spot_job.model import errors, property_paths

SECRET_PATHS = "secretPaths"
PLACEHOLDER = "[secret]"
# Shorter strings cannot be a credential, and scrubbing them ("1", "SPOT")
# would garble every line that happens to contain them.
MIN_LENGTH = 4


def paths(*props: Mapping[str, Any]) -> list[str]:
    """The secret paths any of `props` (olds, news) declares."""
    found: list[str] = []
    for bag in props:
        declared = bag.get(SECRET_PATHS) if isinstance(bag, Mapping) else None
        found += [p for p in declared or [] if isinstance(p, str) and p not in found]
    return found


def values(*props: Mapping[str, Any]) -> set[str]:
    """Every string at or under a secret path of `props`."""
    found: set[str] = set()
    for path in paths(*props):
        try:
            parts = property_paths.split(path)
        except ValueError:
            continue
        for bag in props:
            for _, value in property_paths.leaves(property_paths.get(bag, parts)):
                if isinstance(value, str) and len(value) >= MIN_LENGTH:
                    found.add(value)
    return found


def scrub(text: str, secrets: Iterable[str]) -> str:
    for secret in sorted((s for s in secrets if s and len(s) >= MIN_LENGTH), key=len, reverse=True):
        text = text.replace(secret, PLACEHOLDER)
    return text


class _Known:
    """The secret values this process has seen, shared by all of the host's threads."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._values: frozenset[str] = frozenset()

    def add(self, found: set[str]) -> None:
        if found - self._values:
            with self._lock:
                self._values = self._values | found

    def scrub(self, text: str) -> str:
        return scrub(text, self._values) if self._values else text


KNOWN = _Known()


class ScrubFilter(logging.Filter):
    """Rewrites a record's message with every known secret value replaced."""

    def filter(self, record: logging.LogRecord) -> bool:
        message = record.getMessage()
        scrubbed = KNOWN.scrub(message)
        if scrubbed != message:
            record.msg, record.args = scrubbed, ()
        return True


class ScrubbedError(RuntimeError):
    """An error of the provider whose text carried a secret value, re-raised with it scrubbed."""


def guarded(provider_class: type) -> type:
    """Wraps each ResourceProvider method: learn the secret values of its inputs, scrub its errors and check failures."""
    for name in ("check", "diff", "create", "read", "update", "delete"):
        method = getattr(provider_class, name, None)
        if method is not None:
            setattr(provider_class, name, _guard(method))
    return provider_class


def _guard(method: Callable[..., Any]) -> Callable[..., Any]:
    @functools.wraps(method)
    def guarded_method(self: Any, *args: Any) -> Any:
        KNOWN.add(values(*[a for a in args if isinstance(a, dict)]))
        try:
            result = method(self, *args)
        except Exception as error:
            text = errors.formatted(error)
            scrubbed = KNOWN.scrub(text)
            if scrubbed == text:
                raise
            # The host reports the traceback as the error: the original, chained
            # exceptions included, would carry the value; this one does not. A user
            # error stays one clean line.
            replacement = ScrubbedError(scrubbed)
            if errors.is_clean(error):
                errors.mark_clean(replacement)
            raise replacement from None
        for failure in getattr(result, "failures", None) or []:  # CheckResult
            failure.reason = KNOWN.scrub(failure.reason)
        return result

    return guarded_method
