"""A job's price per hour on a strategy in a region: every worker pool's
replicas times its machine's price plus its accelerators', all of them (a
distributed job pays for each replica of each pool).

Unknown, with what is missing named, as soon as one part has no price: a
partial sum would read as a price and be too low.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from components.pricing import money
from components.pricing.table import PriceTable, tier


@dataclass(frozen=True)
class Hourly:
    usd: float | None  # None: unknown
    missing: tuple[str, ...] = ()  # what has no price, "machine n1-standard-8 in us-east1 (spot)"
    approximate: bool = False  # some part rests on a derived price or a Spot snapshot (table.py)

    @property
    def known(self) -> bool:
        return self.usd is not None

    def text(self) -> str:
        return money.per_hour(self.usd, self.approximate) if self.usd is not None else "unknown"


def pools(job_spec: Mapping[str, Any]) -> list[tuple[int, str, str | None, int]]:
    """(replicas, machine type, accelerator type, accelerators per replica) of each worker pool
    that runs (an empty pool, as Vertex allows for a TPU's or a reducer's slot, runs nothing)."""
    found = []
    for pool in job_spec.get("workerPoolSpecs") or []:
        if not pool:
            continue
        machine = pool.get("machineSpec") or {}
        accelerator = machine.get("acceleratorType")
        if accelerator == "ACCELERATOR_TYPE_UNSPECIFIED":
            accelerator = None
        found.append((int(pool.get("replicaCount") or 1), str(machine.get("machineType") or "?"), accelerator, int(machine.get("acceleratorCount") or 0)))
    return found


def hourly(job_spec: Mapping[str, Any], region: str, strategy: str | None, table: PriceTable) -> Hourly:
    billed = tier(strategy)
    if billed is None:
        return Hourly(None, (f"strategy {strategy} (no price tier)",))
    total, missing, approximate = 0.0, [], False
    for replicas, machine, accelerator, count in pools(job_spec):
        parts: Sequence[tuple[str, str, int]] = [("machine", machine, 1)]
        if accelerator and count:
            parts = [*parts, ("accelerator", accelerator, count)]
        for kind, name, units in parts:
            price = table.price(kind, name, region, billed)
            if price is None:
                why = table.why_not(kind, name, region, billed)
                missing.append(f"{kind} {name} in {region} ({billed})" + (f": {why}" if why else ""))
            else:
                total += replicas * units * price.usd_per_hour
                approximate = approximate or price.approximate
    if missing:
        return Hourly(None, tuple(dict.fromkeys(missing)))
    return Hourly(round(total, 10), approximate=approximate)  # no float dust; more places than any price has
