"""The price table: prices.csv's rows, with a stack's own prices
(`spot-training:prices`, validated by stack_config/prices.py) taking precedence.

A price is per hour of one machine or one accelerator in one region on one tier.
A look-up that finds no row returns None: unknown, which callers show as unknown
and never add as zero.

Each row says its basis (docs/costs.md, "Where the prices come from"):
`cited`, a Vertex figure read from Google's page; `sku`, a Compute Engine SKU
price itself; `derived`, a Vertex price computed from Compute Engine SKUs by the
rule tools/prices/refresh.py states. A figure that rests on a derived row, or on
a Spot price (a snapshot: Spot prices can change daily), is approximate, and is
shown so. prices.csv is written by tools/prices/refresh.py, one row a line, so
a refresh's diff is what a reviewer reads; only the numbers and their basis are
kept in memory, not each row's provenance.
"""

from __future__ import annotations

import csv
import functools
import sys
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import date
from pathlib import Path
from typing import Any

PRICES_FILE = Path(__file__).resolve().parent / "prices.csv"
# What the table cannot price, each with its reason (written by the refresh beside prices.csv).
UNPRICED_FILE = Path(__file__).resolve().parent / "unpriced.csv"
COLUMNS = ("kind", "name", "region", "tier", "usdPerHour", "basis", "source", "read", "copy")
KINDS = ("machine", "accelerator")
BASES = ("cited", "sku", "derived")
# The tier a strategy is billed on (Vertex's Scheduling.Strategy); STRATEGY_UNSPECIFIED runs as STANDARD.
TIER_OF_STRATEGY = {"STANDARD": "onDemand", "STRATEGY_UNSPECIFIED": "onDemand", "SPOT": "spot", "FLEX_START": "flexStart"}
TIERS = ("onDemand", "spot", "flexStart")
STACK = "the stack's spot-training:prices"
# Past this age the table is stale (Spot prices "can change up to once every day", the Spot VMs pricing page).
STALE_AFTER_DAYS = 90


@dataclass(frozen=True)
class Price:
    usd_per_hour: float
    source: str  # a URL or a copy's name, or STACK for a stack's own price
    approximate: bool = False  # rests on a derived row or a Spot snapshot; a stack's own price is exact


# (kind, name, region, tier) -> Price
Rows = Mapping[tuple[str, str, str, str], Price]


@dataclass(frozen=True)
class PriceTable:
    rows: Rows
    as_of: date | None = None  # the oldest row's `read`: the table is no newer than its oldest figure

    def price(self, kind: str, name: str, region: str, tier: str) -> Price | None:
        return self.rows.get((kind, name, region, tier))

    def why_not(self, kind: str, name: str, region: str, tier: str) -> str | None:
        """Why the shipped table has no price for this, where the refresh knew (unpriced.csv)."""
        return _unpriced().get((kind, name, region, tier))

    def age_days(self, today: date) -> int | None:
        return None if self.as_of is None else (today - self.as_of).days

    def stale(self, today: date) -> bool:
        age = self.age_days(today)
        return age is not None and age > STALE_AFTER_DAYS

    def with_overrides(self, overrides: Mapping[str, Any]) -> PriceTable:
        """This table with a stack's prices, as stack_config/prices.py validated them:
        {"machines"|"accelerators": {name: {region: {tier: usd}}}}."""
        rows = dict(self.rows)
        for key, kind in (("machines", "machine"), ("accelerators", "accelerator")):
            for name, regions in (overrides.get(key) or {}).items():
                for region, tiers in regions.items():
                    for tier, usd in tiers.items():
                        rows[(kind, name, region, tier)] = Price(float(usd), STACK)
        return PriceTable(rows, self.as_of)


def approximate(basis: str, tier: str) -> bool:
    """Whether a row's figure is shown as approximate: derived by a rule, or a Spot snapshot."""
    return basis == "derived" or tier == "spot"


def load(path: Path = PRICES_FILE) -> PriceTable:
    """The shipped table. ValueError naming the line for a row the table cannot hold
    (an unknown kind, tier or basis; a price that is not a positive number: 0 is never a price)."""
    rows: dict[tuple[str, str, str, str], Price] = {}
    oldest: date | None = None
    with path.open(newline="") as file:
        reader = csv.DictReader(file)
        if tuple(reader.fieldnames or ()) != COLUMNS:
            raise ValueError(f"{path}: columns {reader.fieldnames}, expected {list(COLUMNS)}")
        for row in reader:
            where = f"{path.name} line {reader.line_num}"
            kind, tier, basis = row["kind"], row["tier"], row["basis"]
            if kind not in KINDS or tier not in TIERS or basis not in BASES:
                raise ValueError(f"{where}: kind {kind!r} tier {tier!r} basis {basis!r}; kinds are {KINDS}, tiers {TIERS}, bases {BASES}")
            usd = float(row["usdPerHour"])
            if not usd > 0:
                raise ValueError(f"{where}: usdPerHour {row['usdPerHour']!r}; a price is a positive number (unknown is no row)")
            read = date.fromisoformat(row["read"])
            oldest = read if oldest is None or read < oldest else oldest
            source = sys.intern(row["source"])
            rows[(sys.intern(kind), sys.intern(row["name"]), sys.intern(row["region"]), sys.intern(tier))] = Price(usd, source, approximate(basis, tier))
    return PriceTable(rows, oldest)


@functools.cache
def _unpriced() -> dict[tuple[str, str, str, str], str]:
    """unpriced.csv, read the first time a price is missing (most renders never need it)."""
    if not UNPRICED_FILE.exists():
        return {}
    with UNPRICED_FILE.open(newline="") as file:
        return {(r["kind"], r["name"], r["region"], r["tier"]): r["reason"] for r in csv.DictReader(file)}


def tier(strategy: str | None) -> str | None:
    """The tier a strategy is billed on; None for a strategy with no known tier."""
    return TIER_OF_STRATEGY.get(strategy or "STRATEGY_UNSPECIFIED")
