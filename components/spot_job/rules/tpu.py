"""TPU jobs: the topology's form, one worker pool with one replica, and no
TPU Pod (a multi-host slice) on Spot VMs.

Single host or Pod is read from Google's table of machine types and chips per
host (tpu_machines.py), not from a name pattern: tpu7x-standard-4t with
2x2x1 is one host.
https://cloud.google.com/vertex-ai/docs/training/configure-compute#tpu
https://cloud.google.com/vertex-ai/docs/training/use-spot-vms
A tpuTopology is a TPU slice's: MachineSpec.tpu_topology, "The topology of the
TPUs" (googleapis/googleapis google/cloud/aiplatform/v1/machine_resources.proto),
so a GPU or CPU machine type takes none.
A TPU v5e machine type needs its tpuTopology: the SDK's tpu_topology, "This
field is required for TPU v5 versions" (googleapis/python-aiplatform
google/cloud/aiplatform/jobs.py, 91cc8ce4f015771b5d8c43c8764ea9dc9abdb216).
"""

from __future__ import annotations

import re
from typing import Any

from components.spot_job.rules import cpu_machines, machine_types, tpu_machines
from components.spot_job.rules.known import Fail, Known

TPU_TOPOLOGY = re.compile(r"^\d+(x\d+){1,2}$")


def topology(k: Known, fail: Fail) -> None:
    """The slice is one Google's table lists for the machine type: a topology of
    its form, and for v2/v3 (`cloud-tpu`) 8 cores or a multiple of 32."""
    for _, path, machine in k.pool_parts("machineSpec"):
        machine_type = k.text(machine, "machineType") or ""
        value = k.text(machine, "tpuTopology")
        known = tpu_machines.MACHINES.get(machine_type)
        if value is not None and _no_tpu(machine_type):
            fail(f"{path}.tpuTopology", f"is the topology of a TPU slice; {machine_type} carries no TPU: remove it")
        elif value is not None and not TPU_TOPOLOGY.match(value):
            fail(f"{path}.tpuTopology", f"must look like '2x2' or '2x2x1', got {value!r}")
        elif value is not None and known and value not in known.topologies:
            fail(
                f"{path}.tpuTopology",
                f"{machine_type} ({known.generation}) takes the topologies {', '.join(known.topologies)}; got {value!r}",
            )
        if value is None and known and known.generation in tpu_machines.TOPOLOGY_REQUIRED and not k.is_unknown(machine.get("tpuTopology")):
            fail(
                f"{path}.tpuTopology",
                f"is required for {machine_type} (TPU {known.generation}); it takes {', '.join(known.topologies)}",
            )
        count = k.number(machine, "acceleratorCount")
        legacy_tpu = (k.text(machine, "acceleratorType") or "").startswith("TPU_")  # a GPU there is accelerators.py's
        if machine_type == tpu_machines.LEGACY_MACHINE and legacy_tpu and count and not tpu_machines.legacy_count_ok(count):
            fail(
                f"{path}.acceleratorCount",
                f"TPU v2 and v3 take acceleratorCount 8 (one TPU) or a multiple of 32 (a TPU Pod), got {count}",
            )


def _no_tpu(machine_type: str) -> bool:
    """A machine type of a GPU or CPU series (not one that cannot exist: machine_types.py refuses that)."""
    series = machine_types.series_of(machine_type)
    return series is not None and series not in cpu_machines.TPU_SERIES


def no_pod_on_spot(k: Known, fail: Fail) -> None:
    if k.strategy() != "SPOT":
        return
    for _, path, machine in k.pool_parts("machineSpec"):
        value = k.text(machine, "tpuTopology")
        if value is not None and not TPU_TOPOLOGY.match(value):
            continue  # reported by `topology`
        # A machine type the table does not know is left to Google to judge.
        if tpu_machines.is_multi_host(k.text(machine, "machineType") or "", value, k.number(machine, "acceleratorCount")):
            fail(
                path + (".tpuTopology" if value else ""),
                "TPU Pods (multi-host TPU slices) cannot run on Spot VMs; use a single-host slice or scheduling.strategy STANDARD",
            )


def single_pool(k: Known, fail: Fail) -> None:
    """TPU training on Vertex AI runs on one worker pool with one replica: the
    slice's hosts are the job's machines, so no second pool and no
    replicaCount above 1 (a multi-host slice is asked for with tpuTopology)."""
    pools = [(i, p) for i, p in k.pools() if p]
    tpu = [i for i, p in pools if _is_tpu_pool(k, p)]
    if not tpu:
        return
    if len(pools) > 1:
        extra = next(i for i, _ in pools if i != pools[0][0])
        fail(
            f"jobSpec.workerPoolSpecs[{extra}]",
            "a TPU job takes exactly one worker pool; remove the other pools "
            "and size the slice with machineSpec.tpuTopology",
        )
    for i, pool in pools:
        replicas = k.number(pool, "replicaCount")
        if i in tpu and replicas is not None and replicas > 1:
            fail(
                f"jobSpec.workerPoolSpecs[{i}].replicaCount",
                f"a TPU worker pool takes replicaCount 1, got {replicas}; size the slice with machineSpec.tpuTopology",
            )


def _is_tpu_pool(k: Known, pool: dict[str, Any]) -> bool:
    machine = k.get(pool, "machineSpec", dict) or {}
    return (
        tpu_machines.is_tpu_machine(k.text(machine, "machineType") or "")
        or (k.text(machine, "acceleratorType") or "").startswith("TPU_")
        or k.has(machine, "tpuTopology")
    )
