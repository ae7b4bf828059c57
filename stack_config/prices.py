"""`spot-training:prices`: a stack's own prices (a negotiated discount, a region the
shipped table lacks), each USD per hour of one machine or one accelerator:

    spot-training:prices:
      machines:
        n1-standard-8: {us-central1: {onDemand: 0.38, spot: 0.08}}
      accelerators:
        NVIDIA_TESLA_T4: {us-central1: {onDemand: 0.35, spot: 0.14}}

Validated here, every error naming its config path; components/pricing/table.py
lays them over the shipped table.
"""

from __future__ import annotations

import re
from typing import Any

from components.pricing.table import TIERS, PriceTable

from . import stack_file
from .keys import NS

KEY = f"{NS}:prices"
SECTIONS = ("machines", "accelerators")
_REGION = re.compile(r"^[a-z]+(-[a-z]+)+[0-9]+$")
_MACHINE = re.compile(r"^[a-z][a-z0-9-]*$")
_ACCELERATOR = re.compile(r"^[A-Z][A-Z0-9_]*$")


class PricesError(Exception):
    """A `spot-training:prices` that is not valid: the message lists each path."""


def parse(raw: Any, failures: list[str]) -> dict[str, dict[str, dict[str, dict[str, float]]]]:
    """The overrides, {section: {name: {region: {tier: usd}}}}; each fault appended to `failures`."""
    if raw is None:
        return {}
    if not isinstance(raw, dict):
        failures.append(f"{KEY}: must be a map with {' and/or '.join(SECTIONS)}; is {raw!r}")
        return {}
    found: dict[str, dict[str, dict[str, dict[str, float]]]] = {}
    for section, names in raw.items():
        path = f"{KEY}.{section}"
        if section not in SECTIONS:
            failures.append(f"{path}: unknown key; {KEY} takes {', '.join(SECTIONS)}")
            continue
        if not isinstance(names, dict):
            failures.append(f"{path}: must be a map of {section[:-1]} type to regions; is {names!r}")
            continue
        shape = _MACHINE if section == "machines" else _ACCELERATOR
        for name, regions in names.items():
            at = f"{path}.{name}"
            if not isinstance(name, str) or not shape.match(name):
                example = "n1-standard-8" if section == "machines" else "NVIDIA_TESLA_T4"
                failures.append(f"{at}: {name!r} is not a {section[:-1]} type as Vertex writes it (e.g. {example})")
                continue
            if not isinstance(regions, dict) or not regions:
                failures.append(f"{at}: must be a map of region to prices, e.g. {{us-central1: {{onDemand: 0.38, spot: 0.08}}}}")
                continue
            for region, tiers in regions.items():
                where = f"{at}.{region}"
                if not isinstance(region, str) or not _REGION.match(region):
                    failures.append(f"{where}: {region!r} is not a region id such as us-central1")
                    continue
                if not isinstance(tiers, dict) or not tiers:
                    failures.append(f"{where}: must be a map of {', '.join(TIERS)} to USD per hour")
                    continue
                for tier, usd in tiers.items():
                    if tier not in TIERS:
                        failures.append(f"{where}.{tier}: unknown key; the tiers are {', '.join(TIERS)}")
                    elif isinstance(usd, bool) or not isinstance(usd, (int, float)) or usd < 0:
                        failures.append(f"{where}.{tier}: must be a price in USD per hour, a number >= 0; is {usd!r}")
                    else:
                        found.setdefault(section, {}).setdefault(name, {}).setdefault(region, {})[tier] = float(usd)
    return found


def of_stack(stack: str) -> dict[str, dict[str, dict[str, dict[str, float]]]]:
    """The prices stacks/Pulumi.STACK.yaml sets (none for a stack without the key or the file);
    PricesError naming each path if they are not valid."""
    config = stack_file.read(stack)
    failures: list[str] = []
    found = parse(config.get(KEY) if isinstance(config, dict) else None, failures)
    if failures:
        raise PricesError(f"invalid {KEY} in {stack_file.path(stack)}:\n  " + "\n  ".join(failures))
    return found


def table(stack: str) -> PriceTable:
    """The shipped price table with the stack's own prices over it."""
    from components.pricing import table as prices

    return prices.load().with_overrides(of_stack(stack))
