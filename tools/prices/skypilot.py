"""Compute Engine prices of GPUs and of the accelerator-optimised machines' hosts
(A2, A3, G2, ...), on-demand and Spot, per zone: the rows refresh.py needs, kept
verbatim in skypilot-vms.csv from SkyPilot's public catalog, which SkyPilot fills
from the same Cloud Billing Catalog. Read by refresh.py only (docs/costs.md).

A row with an InstanceType is a machine type's host alone (vCPUs and memory; its
GPUs are the rows with an empty InstanceType, each per AcceleratorCount GPUs),
as Vertex AI prices them apart too. Zones of a region normally share a price;
where they do not, the highest is kept, so that a figure never undercounts, and
the refresh says so.
"""

from __future__ import annotations

import csv
from collections import defaultdict
from dataclasses import dataclass
from pathlib import Path

FILE = Path(__file__).resolve().parent / "skypilot-vms.csv"
REPOSITORY = "skypilot-org/skypilot-catalog"
PATH = "catalogs/v7/gcp/vms.csv"
COMMIT = "017e2502fb63c7a28757acd94002b2d6099d3e3d"
READ = "2026-12-06"  # read with the search tool's read_file; the commit's own date is not known here
SOURCE = f"{REPOSITORY} {PATH} at {COMMIT[:12]} (Cloud Billing Catalog prices, per zone)"
COLUMNS = ("Price", "SpotPrice")  # the tiers onDemand and spot
TIER_COLUMNS = {"onDemand": "Price", "spot": "SpotPrice"}
# Zones (and a GPU's counts, its price divided by the count) agree within this many USD: the
# catalog rounds each price to 5 decimals, so 8 GPUs at 14.76958 are 1.8461975 each, not 1.8462.
AGREE = 0.00001

# SkyPilot's GPU names to the API's acceleratorType (components/spot_job/rules/region_offers.py GPU_TYPES).
GPU_NAMES = {
    "T4": "NVIDIA_TESLA_T4", "P4": "NVIDIA_TESLA_P4", "P100": "NVIDIA_TESLA_P100", "V100": "NVIDIA_TESLA_V100",
    "L4": "NVIDIA_L4", "A100": "NVIDIA_TESLA_A100", "A100-80GB": "NVIDIA_A100_80GB", "H100": "NVIDIA_H100_80GB",
    "H100-MEGA": "NVIDIA_H100_MEGA_80GB", "H200": "NVIDIA_H200_141GB", "B200": "NVIDIA_B200", "GB200": "NVIDIA_GB200",
    "RTX-PRO-6000": "NVIDIA_RTX_PRO_6000",
}


@dataclass(frozen=True)
class Quote:
    usd: float  # per machine host, or per GPU
    detail: str
    zones_differ: str = ""  # said when the region's zones disagree


@dataclass(frozen=True)
class Catalog:
    machines: dict[tuple[str, str, str], Quote]  # (machine type, region, tier)
    accelerators: dict[tuple[str, str, str], Quote]  # (API acceleratorType, region, tier), per GPU
    shapes: dict[str, tuple[float, float]]  # machine type -> (vCPUs, MemoryGiB) as the catalog lists them
    unnamed: tuple[str, ...]  # GPU names the catalog has that GPU_NAMES does not map


def load(path: Path = FILE) -> Catalog:
    machine_prices: dict[tuple[str, str, str], dict[str, float]] = defaultdict(dict)
    gpu_prices: dict[tuple[str, str, str], dict[str, float]] = defaultdict(dict)
    counts: dict[tuple[str, str, str], set[str]] = defaultdict(set)
    shapes: dict[str, tuple[float, float]] = {}
    unnamed: set[str] = set()
    with path.open(newline="") as file:
        for row in csv.DictReader(file):
            for tier, column in TIER_COLUMNS.items():
                if not row[column]:
                    continue
                price = float(row[column])
                if not price > 0:
                    continue  # a gap in the copy, not a free machine
                if row["InstanceType"]:
                    machine_prices[(row["InstanceType"], row["Region"], tier)][row["AvailabilityZone"]] = price
                    shapes[row["InstanceType"]] = (float(row["vCPUs"]), float(row["MemoryGiB"]))
                    continue
                name = GPU_NAMES.get(row["AcceleratorName"])
                if name is None:
                    unnamed.add(row["AcceleratorName"])
                    continue
                count = float(row["AcceleratorCount"])
                key = (name, row["Region"], tier)
                zone = f"{row['AvailabilityZone']} ×{count:g}"
                gpu_prices[key][zone] = round(price / count, 8)
                counts[key].add(f"{count:g}")
    machines = {key: _quote(zones, "host (vCPUs and memory)") for key, zones in machine_prices.items()}
    accelerators = {key: _quote(zones, "per GPU") for key, zones in gpu_prices.items()}
    return Catalog(machines, accelerators, shapes, tuple(sorted(unnamed)))


def _quote(zones: dict[str, float], what: str) -> Quote:
    highest = max(zones.values())
    differ = ""
    if highest - min(zones.values()) > AGREE:
        differ = "zones differ: " + ", ".join(f"{zone} {price}" for zone, price in sorted(zones.items())) + "; the highest kept"
    return Quote(highest, f"Compute Engine {what} {highest} (SkyPilot catalog, {len(zones)} zone row(s))", differ)
