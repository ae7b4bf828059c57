"""Failures that are first causes: one a typo already explains is not listed again.

`machinetype: n1-standard-8` is "unknown field; did you mean 'machineType'?", and
the pool then has no machineType; "machineType: is required" says nothing the
first did not. spec.validate drops such a failure, so the program (naming the
config path), the provider's check and every offline verb list the typo alone.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Protocol, TypeVar

_MEANT = re.compile(r"did you mean '([^']+)'\?")


class _Failure(Protocol):
    @property
    def path(self) -> str: ...

    @property
    def reason(self) -> str: ...


F = TypeVar("F", bound=_Failure)


def first_causes(failures: Sequence[F]) -> list[F]:
    """`failures` less each "is required" of a field that a sibling's did-you-mean names."""
    meant = set()
    for failure in failures:
        if failure.reason.startswith("unknown field") and (match := _MEANT.search(failure.reason)):
            meant.add(f"{failure.path.rsplit('.', 1)[0]}.{match.group(1)}" if "." in failure.path else match.group(1))
    return [f for f in failures if not (f.path in meant and f.reason.startswith("is required"))]
