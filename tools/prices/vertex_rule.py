"""From Compute Engine's price to Vertex AI's for custom training: Google's
Vertex AI pricing page gives on-demand training prices that are Compute Engine's
plus a fixed uplift. The one cited row that has a SKU counterpart proves the
ratio for N1: 0.21849885 (Vertex, n1-standard-4, us-central1, cited) =
1.15 × 0.189999 (4 vCPU × 0.031611 + 15 GiB × 0.004237, the SKUs). refresh.py
checks the rule against every cited row on each refresh and keeps a cited row
where the rule does not hold.

Spot: no page reachable here says whether Vertex applies the same uplift to
Spot VMs. The rule is applied to Spot too, and every Spot row is derived: the
uplift is a charge for Vertex's management of the VM, which a Spot VM needs as
much as a standard one, and if Vertex bills Spot without it, the figures err
high: a cost shown is never below the bill, a budget is never met on paper
only, and a saving is never overstated (docs/costs.md, "Spot on Vertex").
"""

from __future__ import annotations

from decimal import Decimal

UPLIFT = Decimal("1.15")
RULE = "Vertex = 1.15 × Compute Engine (tools/prices/vertex_rule.py)"
SPOT_RULE = "Vertex Spot = 1.15 × Compute Engine Spot, assumed (tools/prices/vertex_rule.py)"
# Places a derived price keeps: the cited rows' own (0.21849885).
PLACES = 8
# A cited figure agrees with the rule when it is within this of it (float dust, and a page's rounding).
AGREES = Decimal("0.000001")


def vertex(compute_engine_usd: float) -> float:
    return float(round(Decimal(repr(compute_engine_usd)) * UPLIFT, PLACES))


def holds(cited_usd: float, compute_engine_usd: float) -> bool:
    return abs(Decimal(repr(cited_usd)) - Decimal(repr(vertex(compute_engine_usd)))) <= AGREES


def ratio(cited_usd: float, compute_engine_usd: float) -> float:
    return float(round(Decimal(repr(cited_usd)) / Decimal(repr(compute_engine_usd)), 6))
