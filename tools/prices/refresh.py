"""Regenerate the price table (components/pricing/prices.csv) and the list of
what it cannot price (components/pricing/unpriced.csv) from their sources,
reproducibly: the locked apache-libcloud's SKUs (compute_engine.py), the saved
rows of SkyPilot's catalog (skypilot.py, skypilot-vms.csv) and the cited rows
(cited.csv), by the rule vertex_rule.py states. The diff of a refresh is what a
reviewer reads (docs/costs.md, "Refreshing the table").

    uv run python -m tools.prices.refresh           # write both files, print what changed and why
    uv run python -m tools.prices.refresh --check   # exit 1 if the shipped files are not what the sources make
"""

from __future__ import annotations

import argparse
import csv
import io
import sys
from dataclasses import dataclass
from pathlib import Path

from components.pricing import table
from tools.prices import accepted, compute_engine, machine_shapes, skypilot, vertex_rule

ROOT = Path(__file__).resolve().parents[2]
PRICES = ROOT / "components" / "pricing" / "prices.csv"
UNPRICED = ROOT / "components" / "pricing" / "unpriced.csv"
CITED = Path(__file__).resolve().parent / "cited.csv"
UNPRICED_COLUMNS = ("kind", "name", "region", "tier", "reason")
TPU_REASON = "TPUs are not priced: the sources read give Compute Engine VM and GPU prices, not Vertex's TPU training prices"

Key = tuple[str, str, str, str]


@dataclass(frozen=True)
class Row:
    kind: str
    name: str
    region: str
    tier: str
    usd: float
    basis: str
    source: str
    read: str
    copy: str

    @property
    def key(self) -> Key:
        return (self.kind, self.name, self.region, self.tier)

    def cells(self) -> list[str]:
        return [self.kind, self.name, self.region, self.tier, f"{self.usd:.8f}".rstrip("0").rstrip("."), self.basis, self.source, self.read, self.copy]


@dataclass
class Refresh:
    rows: dict[Key, Row]
    why_not: dict[Key, str]  # a source's reason for a key it could not price
    notes: list[str]  # what a reviewer should know: the rule's checks, zones that differ


def derived(kind: str, name: str, region: str, tier: str, compute_engine_usd: float, source: str, read: str, detail: str) -> Row:
    rule = vertex_rule.RULE if tier == "onDemand" else vertex_rule.SPOT_RULE
    return Row(kind, name, region, tier, vertex_rule.vertex(compute_engine_usd), "derived", source, read, f"{detail}; {rule}")


def build() -> Refresh:
    skus = compute_engine.load()
    catalog = skypilot.load()
    rows: dict[Key, Row] = {}
    why_not: dict[Key, str] = {}
    notes: list[str] = []
    ce_usd: dict[Key, float] = {}  # the Compute Engine figure under each derived row, for the rule's check
    for item in accepted.items():
        key = (item.kind, item.name, item.region, item.tier)
        if item.group == "CPU machines":
            quote = skus.machine(item.name, item.region, item.tier)
            if isinstance(quote, str):
                why_not[key] = quote
                continue
            rows[key] = derived(*key, quote.usd, skus.source, skus.updated, quote.detail)
            ce_usd[key] = quote.usd
        elif item.group in ("GPU machines", "GPUs"):
            found = (catalog.machines if item.kind == "machine" else catalog.accelerators).get((item.name, item.region, item.tier))
            if found is None:
                why_not[key] = f"SkyPilot's catalog (saved rows) has no {item.tier} price for it in {item.region}"
                continue
            rows[key] = derived(*key, found.usd, skypilot.SOURCE, skypilot.READ, found.detail + (f"; {found.zones_differ}" if found.zones_differ else ""))
            ce_usd[key] = found.usd
            if found.zones_differ:
                notes.append(f"{item.kind} {item.name} in {item.region} ({item.tier}): {found.zones_differ}")
        else:
            why_not[key] = TPU_REASON
    for cited in _cited():
        under = ce_usd.get(cited.key)
        if under is None:
            notes.append(f"cited {' '.join(cited.key)} = {cited.usd}: no Compute Engine figure to check the rule against")
        elif vertex_rule.holds(cited.usd, under):
            notes.append(f"rule holds for cited {' '.join(cited.key)}: {cited.usd} = 1.15 × {under}")
        else:
            ratio = vertex_rule.ratio(cited.usd, under)
            notes.append(
                f"rule does NOT hold for cited {' '.join(cited.key)}: {cited.usd} = {ratio} × {under} "
                f"(1.15 × would be {vertex_rule.vertex(under)}); the cited figure is kept, and no other {cited.name} row is derived"
            )
            _underived(rows, why_not, cited, ratio, under)
        rows[cited.key] = cited
        why_not.pop(cited.key, None)
    notes += _copies_compared(skus, catalog)
    if catalog.unnamed:
        notes.append(f"SkyPilot GPU names not mapped to an acceleratorType (tools/prices/skypilot.py GPU_NAMES): {', '.join(catalog.unnamed)}")
    return Refresh(rows, why_not, notes)


def _copies_compared(skus: compute_engine.Skus, catalog: skypilot.Catalog) -> list[str]:
    """libcloud's SKU figures beside SkyPilot's own price of the same CPU machine in the same region
    (its cross-check rows): how far the two copies of the Billing Catalog agree, tier by tier."""
    counts: dict[str, list[int]] = {tier: [0, 0] for tier in compute_engine.TIERS}
    for (machine, region, tier), theirs in catalog.machines.items():
        ours = skus.machine(machine, region, tier) if machine_shapes.shape(machine) else "no shape"
        if isinstance(ours, str):
            continue
        counts[tier][0 if abs(ours.usd - theirs.usd) <= skypilot.AGREE * 2 else 1] += 1
    return [
        f"libcloud's {tier} figures beside SkyPilot's for the same machine and region: {same} agree, {other} differ"
        for tier, (same, other) in counts.items() if same or other
    ]


def _underived(rows: dict[Key, Row], why_not: dict[Key, str], cited: Row, ratio: float, under: float) -> None:
    """Where a cited row shows the rule wrong for a machine or an accelerator, its other
    rows are not derived by it either: a price known to be wrong is worse than unknown."""
    for key in [k for k, row in rows.items() if k[:2] == cited.key[:2] and row.basis == "derived"]:
        del rows[key]
        why_not[key] = (
            f"not derived: Vertex's cited {cited.region} {cited.tier} price is {ratio} × Compute Engine's {under}, "
            f"not 1.15 ×, so the rule does not hold for {cited.name}"
        )


def _cited() -> list[Row]:
    with CITED.open(newline="") as file:
        return [
            Row(r["kind"], r["name"], r["region"], r["tier"], float(r["usdPerHour"]), r["basis"], r["source"], r["read"], r["copy"])
            for r in csv.DictReader(file)
        ]


def prices_text(refresh: Refresh) -> str:
    return _csv(table.COLUMNS, [row.cells() for _, row in sorted(refresh.rows.items())])


def unpriced_text(refresh: Refresh) -> str:
    return _csv(UNPRICED_COLUMNS, [[*key, reason] for key, reason in sorted(refresh.why_not.items())])


def _csv(columns: tuple[str, ...], rows: list[list[str]]) -> str:
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(columns)
    writer.writerows(rows)
    return out.getvalue()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m tools.prices.refresh", description=__doc__.split("\n\n")[0])
    parser.add_argument("--check", action="store_true", help="exit 1 if the shipped files differ from what the sources make")
    options = parser.parse_args(argv)
    refresh = build()
    made = {PRICES: prices_text(refresh), UNPRICED: unpriced_text(refresh)}
    for note in refresh.notes:
        print(note)
    stale = [path for path, text in made.items() if not path.exists() or path.read_text() != text]
    if options.check:
        for path in stale:
            print(f"{_shown(path)} is not what the sources make: run `uv run python -m tools.prices.refresh` and commit", file=sys.stderr)
        return 1 if stale else 0
    for path, text in made.items():
        path.write_text(text)
    print(f"wrote {len(refresh.rows)} priced rows to {_shown(PRICES)}, {len(refresh.why_not)} unpriced to {_shown(UNPRICED)}")
    return 0


def _shown(path: Path) -> str:
    return str(path.relative_to(ROOT)) if path.is_relative_to(ROOT) else str(path)


if __name__ == "__main__":
    sys.exit(main())
