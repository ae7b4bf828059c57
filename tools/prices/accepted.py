"""What the table should price: every machine type and accelerator that
components/spot_job/rules/ accepts, in every region rules/region_offers.py lists,
on-demand and Spot. An accelerator (or a machine that carries one) counts only in
the regions that offer it for training: elsewhere the rules refuse the job, so no
price is needed there. Flex-start is outside it (docs/costs.md).
"""

from __future__ import annotations

from typing import NamedTuple

from components.spot_job.rules import cpu_machines, gpu_machines, region_offers, tpu_machines

TIERS = ("onDemand", "spot")


class Item(NamedTuple):
    kind: str
    name: str
    region: str
    tier: str
    group: str  # "CPU machines", "GPU machines", "GPUs", "TPUs": how coverage.py groups its figures


def regions() -> list[str]:
    return sorted(region_offers.TRAINING_OFFERS)


def gpus() -> list[str]:
    return sorted(set(gpu_machines.N1_GPUS) | {g.accelerator_type for g in gpu_machines.ATTACHED.values()})


def items() -> list[Item]:
    found: list[Item] = []

    def add(kind: str, name: str, group: str, offered: list[str]) -> None:
        found.extend(Item(kind, name, region, tier, group) for region in offered for tier in TIERS)

    for machine in sorted(cpu_machines.TRAINING):
        add("machine", machine, "CPU machines", regions())
    for machine, gpu in sorted(gpu_machines.ATTACHED.items()):
        add("machine", machine, "GPU machines", [r for r in regions() if region_offers.accelerator_offered(r, gpu.accelerator_type)])
    for accelerator in gpus():
        add("accelerator", accelerator, "GPUs", [r for r in regions() if region_offers.accelerator_offered(r, accelerator)])
    for machine in sorted(tpu_machines.MACHINES):
        add("machine", machine, "TPUs", [r for r in regions() if region_offers.tpu_offered(r, machine)])
    legacy = sorted({r for a in cpu_machines.LEGACY_TPUS for r in regions() if region_offers.accelerator_offered(r, a)})
    add("machine", tpu_machines.LEGACY_MACHINE, "TPUs", legacy)
    for accelerator in sorted(region_offers.TPU_TYPES):
        add("accelerator", accelerator, "TPUs", [r for r in regions() if region_offers.accelerator_offered(r, accelerator)])
    return found
