"""vCPUs and memory (GiB) of each machine type Vertex training lists without an
accelerator (components/spot_job/rules/cpu_machines.py TRAINING): a predefined
machine's Compute Engine price is its vCPUs times its series' core SKU plus its
GiB times the series' RAM SKU.

Source: the memory per vCPU of each type as Compute Engine's machine family
pages give it (https://cloud.google.com/compute/docs/general-purpose-machines
for E2, N1 and N2, .../compute-optimized-machines for C2,
.../memory-optimized-machines for M1; Google writes "GB" for what its SKUs
bill per GiB). No stored copy of those pages was found here, so the shapes are
checked instead against SkyPilot's catalog, which lists each machine type's
vCPUs and MemoryGiB from Compute Engine's API: tests/test_price_refresh.py
compares every machine type tools/prices/skypilot-vms.csv holds a row for.
"""

from __future__ import annotations

from typing import NamedTuple


class Shape(NamedTuple):
    vcpus: int
    memory_gib: float


# (series-type) -> GiB per vCPU
_PER_VCPU = {
    "e2-standard": 4.0, "e2-highmem": 8.0, "e2-highcpu": 1.0,
    "n2-standard": 4.0, "n2-highmem": 8.0, "n2-highcpu": 1.0,
    "n1-standard": 3.75, "n1-highmem": 6.5, "n1-highcpu": 0.9,
    "c2-standard": 4.0,
}
# Memory-optimised M1: each size its own memory.
_M1 = {"m1-ultramem-40": Shape(40, 961.0), "m1-ultramem-80": Shape(80, 1922.0), "m1-ultramem-160": Shape(160, 3844.0), "m1-megamem-96": Shape(96, 1433.6)}


def shape(machine_type: str) -> Shape | None:
    """The machine's vCPUs and GiB; None for a type this table does not give."""
    if machine_type in _M1:
        return _M1[machine_type]
    series_type, _, size = machine_type.rpartition("-")
    per_vcpu = _PER_VCPU.get(series_type)
    if per_vcpu is None or not size.isdigit():
        return None
    return Shape(int(size), round(int(size) * per_vcpu, 4))


def family(machine_type: str) -> str:
    """The libcloud pricing family of a predefined machine type: its series (n1, e2, ...)."""
    return machine_type.split("-", 1)[0]
