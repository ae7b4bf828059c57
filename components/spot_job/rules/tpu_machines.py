"""Google's table of the TPU machine types Vertex AI training offers: how many
TPU chips one host of each carries, and the topologies the docs list for it.
Pure data, no imports of the project.

A TPU slice whose topology holds more chips than one host carries spans
several hosts: a multi-host slice, a TPU Pod slice, which Spot VMs cannot run
("Using Spot VMs with TPU Pods isn't supported").

Source: "Configure compute resources for serverless training", section TPUs
(TPU v2 and v3, v5e, v6e, TPU7x; the docs list no v4 or v5p machine type for
training, so a job naming one is left to Google to judge):
https://cloud.google.com/vertex-ai/docs/training/configure-compute#tpu
https://docs.cloud.google.com/gemini-enterprise-agent-platform/machine-learning/training/configure-compute#tpu
https://cloud.google.com/vertex-ai/docs/training/use-spot-vms

Cross-checked row by row (docs/rules.md, "The tables, row by row") against
Google's GKE TPU tool, whose table gives each machine type's topologies:
AI-Hypercomputer/xpk src/xpk/core/system_characteristics.py
(367c838253bea41e7d7716145ad6513f44c1a21e, 2026-06-25); MachineSpec.tpu_topology
"Corresponds to the TPU topologies available from GKE" (machine_resources.proto).
"""

from __future__ import annotations

import math
from typing import NamedTuple


class TpuMachine(NamedTuple):
    generation: str
    chips_per_host: int
    topologies: tuple[str, ...]  # every tpuTopology the docs list for it, single host first


_PODS_2D = ("2x4", "4x4", "4x8", "8x8", "8x16", "16x16")

MACHINES: dict[str, TpuMachine] = {
    # v5e: 1x1, 2x2 and 2x4 on one host; multi-host slices on ct5lp-hightpu-4t only.
    "ct5lp-hightpu-1t": TpuMachine("v5e", 1, ("1x1",)),
    "ct5lp-hightpu-4t": TpuMachine("v5e", 4, ("2x2",) + _PODS_2D),
    "ct5lp-hightpu-8t": TpuMachine("v5e", 8, ("2x4",)),
    # v6e (Trillium): the same shapes on ct6e-standard-*.
    "ct6e-standard-1t": TpuMachine("v6e", 1, ("1x1",)),
    "ct6e-standard-4t": TpuMachine("v6e", 4, ("2x2",) + _PODS_2D),
    "ct6e-standard-8t": TpuMachine("v6e", 8, ("2x4",)),
    # TPU7x (Ironwood): 2x2x1 is one host ("Single-host"); the rest are Pods.
    "tpu7x-standard-4t": TpuMachine(
        "TPU7x", 4, ("2x2x1", "2x2x2", "2x2x4", "2x4x4", "4x4x4", "4x4x8", "4x8x8", "8x8x8", "8x8x16")
    ),
}

# The generations whose machine types need machineSpec.tpuTopology: the SDK's
# tpu_topology, "This field is required for TPU v5 versions"
# (googleapis/python-aiplatform google/cloud/aiplatform/jobs.py and
# training_jobs.py, 91cc8ce4f015771b5d8c43c8764ea9dc9abdb216). No source says
# so of v6e or TPU7x; a job of theirs without one is left to Google.
TOPOLOGY_REQUIRED = ("v5e",)

# TPU v2 and v3 run on machineType `cloud-tpu` with acceleratorType TPU_V2 or
# TPU_V3: acceleratorCount "8 for single TPU or 32 or multiple of 32 for TPU Pods".
LEGACY_MACHINE = "cloud-tpu"
LEGACY_CORES_PER_HOST = 8
LEGACY_POD_STEP = 32


def is_tpu_machine(machine_type: str) -> bool:
    return machine_type in MACHINES or machine_type == LEGACY_MACHINE


def topology_chips(topology: str) -> int:
    """Chips in a topology such as "2x2x1" (the caller checked its form)."""
    return math.prod(int(n) for n in topology.split("x"))


def legacy_count_ok(count: int) -> bool:
    return count == LEGACY_CORES_PER_HOST or (count > 0 and count % LEGACY_POD_STEP == 0)


def is_multi_host(machine_type: str, topology: str | None, accelerator_count: int | None) -> bool | None:
    """Whether the slice spans more than one host: True or False from the table,
    None where the table does not know the machine type (Google then decides)."""
    if machine_type == LEGACY_MACHINE:
        return (accelerator_count or 0) > LEGACY_CORES_PER_HOST
    known = MACHINES.get(machine_type)
    if known is None:
        return None
    if not topology:
        return False  # the machine type's own single-host slice
    return topology_chips(topology) > known.chips_per_host
