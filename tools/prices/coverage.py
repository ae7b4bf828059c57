"""How much of what the rules accept the price table prices: every machine type
and accelerator components/spot_job/rules/ accepts, in every region it lists, on
demand and Spot (accepted.py), against the shipped table; what it does not price
is listed by name with its reason in components/pricing/unpriced.csv.

    uv run python -m tools.prices.coverage          # the figures, and the reasons counted
    uv run python -m tools.prices.coverage --list   # every unpriced item by name, with its reason

Exits 1 if an accepted item is neither priced nor listed with a reason.
"""

from __future__ import annotations

import argparse
import sys
from collections import Counter

from components.pricing import table
from tools.prices import accepted


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m tools.prices.coverage", description=__doc__.split("\n\n")[0])
    parser.add_argument("--list", action="store_true", help="list every unpriced item by name with its reason")
    options = parser.parse_args(argv)
    shipped = table.load()
    items = accepted.items()
    groups = list(dict.fromkeys(i.group for i in items))
    priced = [i for i in items if shipped.price(i.kind, i.name, i.region, i.tier) is not None]
    print("Coverage of components/pricing/prices.csv over what the rules accept (on-demand and Spot):")
    for group in [*groups, None]:
        inside = [i for i in items if group is None or i.group == group]
        done = [i for i in priced if group is None or i.group == group]
        print(f"  {group or 'all':<13} {len(done):>5} / {len(inside):<5} priced ({100 * len(done) / len(inside):.1f}%)")
    unpriced = [i for i in items if shipped.price(i.kind, i.name, i.region, i.tier) is None]
    reasons = {i: shipped.why_not(i.kind, i.name, i.region, i.tier) for i in unpriced}
    print("Unpriced, by reason (components/pricing/unpriced.csv lists each by name):")
    for general, count in Counter(_general(r or "no reason recorded") for r in reasons.values()).most_common():
        print(f"  {count:>5}  {general}")
    if options.list:
        for i, why in reasons.items():
            print(f"  {i.kind} {i.name} in {i.region} ({i.tier}): {why}")
    silent = [i for i, why in reasons.items() if not why]
    if silent:
        print(f"error: {len(silent)} accepted items are neither priced nor listed with a reason, e.g. {silent[0][:4]}", file=sys.stderr)
        return 1
    return 0


def _general(reason: str) -> str:
    """A reason without its region, so that a gap of the copy counts once across regions."""
    head, found, _ = reason.rpartition(" for ")
    if found and head.startswith("libcloud's copy has no"):
        return f"{head} for the region"
    head, found, _ = reason.rpartition(" in ")
    if found and head.startswith("SkyPilot's catalog"):
        return f"{head} in the region"
    return reason


if __name__ == "__main__":
    sys.exit(main())
