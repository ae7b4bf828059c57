"""What every rule reads the inputs through, and how it reports a failure."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar, overload

from components.spot_job.model.defaults import DEFAULT_STRATEGY
from components.spot_job.model.values import as_int

# fail(path, reason): `path` is the offending field's path in the inputs,
# `jobSpec.workerPoolSpecs[0].machineSpec.acceleratorType`.
Fail = Callable[[str, str], None]

T = TypeVar("T")


class Known:
    """Typed, unknown-free access to the inputs, so a rule never trips over a
    value the shape check already rejected or one that a preview cannot know."""

    def __init__(self, inputs: dict[str, Any], is_unknown: Callable[[Any], bool]) -> None:
        self.inputs = inputs
        self.is_unknown = is_unknown

    @overload
    def get(self, obj: Any, key: str, kind: type[T]) -> T | None: ...

    @overload
    def get(self, obj: Any, key: str, kind: tuple[type, ...]) -> Any: ...

    def get(self, obj: Any, key: str, kind: type | tuple[type, ...]) -> Any:
        if not isinstance(obj, dict):
            return None
        value = obj.get(key)
        if self.is_unknown(value) or not isinstance(value, kind) or (kind is not bool and isinstance(value, bool)):
            return None
        return value

    def has(self, obj: Any, key: str) -> bool:
        return isinstance(obj, dict) and obj.get(key) is not None

    def text(self, obj: Any, key: str) -> str | None:
        return self.get(obj, key, str)

    def number(self, obj: Any, key: str) -> int | None:
        return as_int(self.get(obj, key, (int, float, str)))

    def spec(self) -> dict[str, Any]:
        return self.get(self.inputs, "jobSpec", dict) or {}

    def pools(self) -> list[tuple[int, dict[str, Any]]]:
        pools = self.get(self.spec(), "workerPoolSpecs", list) or []
        return [(i, p) for i, p in enumerate(pools) if isinstance(p, dict)]

    def pool_parts(self, key: str) -> list[tuple[int, str, dict[str, Any]]]:
        """Each pool's `key` message that is set (machineSpec, diskSpec, ...): (pool index, its path, it)."""
        found: list[tuple[int, str, dict[str, Any]]] = []
        for i, pool in self.pools():
            part = self.get(pool, key, dict)
            if part is not None:
                found.append((i, f"jobSpec.workerPoolSpecs[{i}].{key}", part))
        return found

    def strategy(self) -> str | None:
        """The job's scheduling strategy, SPOT when unset; None while a preview cannot know it."""
        scheduling = self.get(self.spec(), "scheduling", dict) or {}
        if self.is_unknown(scheduling.get("strategy")):
            return None
        return self.text(scheduling, "strategy") or DEFAULT_STRATEGY

    def machines_known(self) -> bool:
        """Whether every pool's machine is known (a preview may not know it yet)."""
        return all(
            not self.is_unknown(pool.get("machineSpec"))
            and not any(self.is_unknown(v) for v in (self.get(pool, "machineSpec", dict) or {}).values())
            for _, pool in self.pools()
        )
