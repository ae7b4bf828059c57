"""Google's table of the TPU machine types Vertex AI training offers, and how
many TPU chips one host of each carries. Pure data, no imports of the project.

A TPU slice whose topology holds more chips than one host carries spans
several hosts: a multi-host slice, a TPU Pod slice, which Spot VMs cannot run.

Sources (Vertex AI "Configure compute resources for serverless training",
section TPUs, and the per-generation tables it links):
https://cloud.google.com/vertex-ai/docs/training/configure-compute#tpu
https://cloud.google.com/kubernetes-engine/docs/concepts/plan-tpus
https://cloud.google.com/tpu/docs/tpu7x
https://cloud.google.com/tpu/docs/v6e
https://cloud.google.com/tpu/docs/v5p
https://cloud.google.com/tpu/docs/v5e
https://cloud.google.com/tpu/docs/v4
"""

from __future__ import annotations

import math

# machineType -> (generation, TPU chips per host). The chip count is the
# host's, not the slice's: `ct5lp-hightpu-4t` with tpuTopology `2x4` is a
# two-host slice, `ct5lp-hightpu-8t` with `2x4` one host.
CHIPS_PER_HOST: dict[str, tuple[str, int]] = {
    "ct4p-hightpu-4t": ("v4", 4),
    "ct5lp-hightpu-1t": ("v5e", 1),
    "ct5lp-hightpu-4t": ("v5e", 4),
    "ct5lp-hightpu-8t": ("v5e", 8),
    "ct5p-hightpu-4t": ("v5p", 4),
    "ct6e-standard-1t": ("v6e", 1),
    "ct6e-standard-4t": ("v6e", 4),
    "ct6e-standard-8t": ("v6e", 8),
    "tpu7x-standard-4t": ("TPU7x", 4),
}

# TPU v2 and v3 run on machineType `cloud-tpu` with acceleratorType TPU_V2 or
# TPU_V3; one host carries 8 TPU cores (acceleratorCount 8).
LEGACY_MACHINE = "cloud-tpu"
LEGACY_CORES_PER_HOST = 8


def is_tpu_machine(machine_type: str) -> bool:
    return machine_type in CHIPS_PER_HOST or machine_type == LEGACY_MACHINE


def topology_chips(topology: str) -> int:
    """Chips in a topology such as "2x2x1" (the caller checked its form)."""
    return math.prod(int(n) for n in topology.split("x"))


def is_multi_host(machine_type: str, topology: str | None, accelerator_count: int | None) -> bool | None:
    """Whether the slice spans more than one host: True or False from the table,
    None where the table does not know the machine type (Google then decides)."""
    if machine_type == LEGACY_MACHINE:
        return (accelerator_count or 0) > LEGACY_CORES_PER_HOST
    known = CHIPS_PER_HOST.get(machine_type)
    if known is None:
        return None
    if not topology:
        return False  # the machine type's own single-host slice
    return topology_chips(topology) > known[1]
