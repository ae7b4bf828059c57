"""How a sum of money is shown: exact figures to four decimal places, as the
table's cited rows are priced; an approximate one (resting on a derived row or a
Spot snapshot, table.py) marked `~` and rounded to three significant figures, so
that it is never shown more precise than its basis (docs/costs.md).
"""

from __future__ import annotations

from decimal import ROUND_HALF_UP, Decimal

MARK = "~"
LEGEND = f"{MARK}: rests on a derived price or a Spot snapshot, to 3 significant figures (docs/costs.md)"
SIGNIFICANT = 3


def usd(value: float, approximate: bool = False, *, sign: bool = False) -> str:
    """"$0.2185", "~$0.046"; with `sign`, "+$0.0100" / "-~$0.012". Nothing is exactly nothing: "$0.0000"."""
    approximate = approximate and value != 0
    shown = _significant(value) if approximate else f"{abs(value):.4f}"
    prefix = ("-" if value < 0 else "+") if sign else ("-" if value < 0 else "")
    return f"{prefix}{MARK if approximate else ''}${shown}"


def per_hour(value: float, approximate: bool = False, *, sign: bool = False) -> str:
    return f"{usd(value, approximate, sign=sign)}/h"


def _significant(value: float) -> str:
    """abs(value) to at most SIGNIFICANT figures, in plain notation (29.4, 0.046, 1230)."""
    number = Decimal(repr(abs(value)))
    if number == 0:
        return "0"
    exponent = number.adjusted() - SIGNIFICANT + 1
    rounded = number.quantize(Decimal(1).scaleb(exponent), rounding=ROUND_HALF_UP)
    return f"{rounded.normalize():f}"  # no trailing zeros: 0.046, not 0.0460
