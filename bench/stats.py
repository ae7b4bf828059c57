"""Pure helpers: statistics and printing. No pulumi import, so a parent process that spawns measured children stays small.

(On Linux a child's `ru_maxrss` starts from its parent's peak RSS, inherited across fork and exec.)
"""

from __future__ import annotations

import statistics
from typing import Any


def median(values: list[float]) -> float:
    return statistics.median(values)


def slope(xs: list[float], ys: list[float]) -> float:
    """Least-squares slope of ys against xs."""
    mx, my = statistics.fmean(xs), statistics.fmean(ys)
    return sum((x - mx) * (y - my) for x, y in zip(xs, ys)) / sum((x - mx) ** 2 for x in xs)


def short(kind: str) -> str:
    """gcp:projects/iAMMember:IAMMember -> projects.IAMMember, for printing."""
    invoke = kind.startswith("invoke ")
    token = kind.removeprefix("invoke ")
    if ":" not in token:
        return token
    module, name = token.split(":")[1].split("/")[0], token.split(":")[-1]
    return f"{name} (invoke)" if invoke else f"{module}.{name}"


def table(header: list[str], rows: list[list[Any]]) -> str:
    cells = [header, *[[str(c) for c in row] for row in rows]]
    widths = [max(len(row[i]) for row in cells) for i in range(len(header))]
    return "\n".join("  ".join(c.rjust(w) if i else c.ljust(w) for i, (c, w) in enumerate(zip(row, widths))) for row in cells)
