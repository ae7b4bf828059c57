"""Compute Engine's per-vCPU and per-GiB SKUs, on-demand and Spot, per region, as
the locked apache-libcloud wheel ships them (libcloud/data/pricing.json, key
compute.gce_instances, which libcloud fills from Google's Cloud Billing
Catalog): read by refresh.py only, never by the program (docs/costs.md).

The Billing Catalog bills Spot VMs on the SKUs it calls "preemptible"; libcloud
keeps that name. A SKU priced 0 there is a gap in the copy, not a free machine:
it prices nothing.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from datetime import datetime, timezone
from importlib import metadata, resources
from typing import Any

from tools.prices import machine_shapes

DISTRIBUTION = "apache-libcloud"
DATA = "libcloud/data/pricing.json"
# The table's tiers, to libcloud's names for them.
TIERS = {"onDemand": "on_demand", "spot": "preemptible"}


@dataclass(frozen=True)
class Quote:
    usd: float
    detail: str  # how the figure is made, SKU ids and all


@dataclass(frozen=True)
class Skus:
    families: dict[str, Any]  # compute.gce_instances
    version: str
    updated: str  # the data's own date, YYYY-MM-DD

    @property
    def source(self) -> str:
        return f"{DISTRIBUTION} {self.version} {DATA} (Cloud Billing Catalog SKUs, compute.gce_instances)"

    def regions(self) -> set[str]:
        return {region for family in self.families.values() for part in family.values() if isinstance(part, dict) for tier in TIERS.values() for region in part.get(tier, {})}

    def machine(self, machine_type: str, region: str, tier: str) -> Quote | str:
        """A predefined machine's price: vCPUs × the core SKU + GiB × the RAM SKU; or why there is none."""
        shape = machine_shapes.shape(machine_type)
        if shape is None:
            return "no vCPU and memory figures for this machine type (tools/prices/machine_shapes.py)"
        family = self.families.get(machine_shapes.family(machine_type))
        if family is None:
            return f"libcloud's copy has no {machine_shapes.family(machine_type)} SKUs"
        parts = []
        for part, units, unit in (("cpu", shape.vcpus, "vCPU"), ("ram", shape.memory_gib, "GiB")):
            sku = (family.get(part) or {}).get(TIERS[tier], {}).get(region)
            if sku is None:
                return f"libcloud's copy has no {TIERS[tier]} {part} SKU for {region}"
            if not sku["price"] > 0:
                return f"libcloud's copy gives the {TIERS[tier]} {part} SKU {sku['sku']} for {region} as {sku['price']}: a gap, not a price"
            parts.append((units, float(sku["price"]), sku["sku"], unit))
        usd = round(sum(units * price for units, price, _, _ in parts), 8)
        detail = " + ".join(f"{units:g} {unit} × {price} (SKU {sku})" for units, price, sku, unit in parts)
        return Quote(usd, f"Compute Engine {detail} = " + f"{usd:.8f}".rstrip("0").rstrip("."))


def load() -> Skus:
    """The SKUs of the installed (locked) apache-libcloud."""
    document = json.loads((resources.files("libcloud") / "data" / "pricing.json").read_text())
    updated = datetime.fromtimestamp(int(document["updated"]), tz=timezone.utc).date().isoformat()
    return Skus(document["compute"]["gce_instances"], metadata.version(DISTRIBUTION), updated)
