"""The price table: prices.json's cited rows, with a stack's own prices
(`spot-training:prices`, validated by stack_config/prices.py) taking precedence.

A price is per hour of one machine or one accelerator in one region on one tier.
A look-up that finds no row returns None: unknown, which callers show as unknown
and never add as zero.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

PRICES_FILE = Path(__file__).resolve().parent / "prices.json"
KINDS = ("machine", "accelerator")
# The tier a strategy is billed on (Vertex's Scheduling.Strategy); STRATEGY_UNSPECIFIED runs as STANDARD.
TIER_OF_STRATEGY = {"STANDARD": "onDemand", "STRATEGY_UNSPECIFIED": "onDemand", "SPOT": "spot", "FLEX_START": "flexStart"}
TIERS = ("onDemand", "spot", "flexStart")
STACK = "the stack's spot-training:prices"


@dataclass(frozen=True)
class Price:
    usd_per_hour: float
    source: str  # a URL, or STACK for a stack's own price


# (kind, name, region, tier) -> Price
Rows = Mapping[tuple[str, str, str, str], Price]


@dataclass(frozen=True)
class PriceTable:
    rows: Rows

    def price(self, kind: str, name: str, region: str, tier: str) -> Price | None:
        return self.rows.get((kind, name, region, tier))

    def with_overrides(self, overrides: Mapping[str, Any]) -> PriceTable:
        """This table with a stack's prices, as stack_config/prices.py validated them:
        {"machines"|"accelerators": {name: {region: {tier: usd}}}}."""
        rows = dict(self.rows)
        for key, kind in (("machines", "machine"), ("accelerators", "accelerator")):
            for name, regions in (overrides.get(key) or {}).items():
                for region, tiers in regions.items():
                    for tier, usd in tiers.items():
                        rows[(kind, name, region, tier)] = Price(float(usd), STACK)
        return PriceTable(rows)


def load(path: Path = PRICES_FILE) -> PriceTable:
    """The shipped table. A row without a number is no row: its price is unknown."""
    document = json.loads(path.read_text())
    rows = {}
    for row in document["rows"]:
        if row["kind"] not in KINDS or row["tier"] not in TIERS:
            raise ValueError(f"{path}: a row of kind {row['kind']!r} tier {row['tier']!r}; kinds are {KINDS}, tiers {TIERS}")
        if isinstance(row.get("usdPerHour"), (int, float)) and not isinstance(row["usdPerHour"], bool):
            rows[(row["kind"], row["name"], row["region"], row["tier"])] = Price(float(row["usdPerHour"]), row["source"])
    return PriceTable(rows)


def tier(strategy: str | None) -> str | None:
    """The tier a strategy is billed on; None for a strategy with no known tier."""
    return TIER_OF_STRATEGY.get(strategy or "STRATEGY_UNSPECIFIED")
