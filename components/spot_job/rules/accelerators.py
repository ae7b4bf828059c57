"""A machine's accelerators: a type and a count go together; the machine type
carries them (gpu_machines.py); a GPU partition is asked for on one GPU.

https://cloud.google.com/vertex-ai/docs/training/configure-compute#specifying_gpus
googleapis/googleapis google/cloud/aiplatform/v1/machine_resources.proto
(f8291d2b89f0017ab078a4c7378069bae5686f6f), MachineSpec.gpu_partition_size:
"If set, the accelerator_count should be set to 1."
The machine types' GPUs: https://cloud.google.com/compute/docs/gpus ("You can
also attach some GPU models to N1 general-purpose machine types": no other
CPU series takes one).
"""

from __future__ import annotations

from typing import Any

from components.spot_job.model import schema
from components.spot_job.rules import accelerator_support, cpu_machines, gpu_machines, machine_types, tpu_machines
from components.spot_job.rules.known import Fail, Known


def accelerators(k: Known, fail: Fail) -> None:
    for index, path, machine in k.pool_parts("machineSpec"):
        count = k.number(machine, "acceleratorCount")
        has_type = k.has(machine, "acceleratorType")
        if count is not None and count < 0:
            fail(f"{path}.acceleratorCount", f"must not be negative, got {count}")
        elif count and not has_type:
            fail(f"{path}.acceleratorType", "is required when acceleratorCount is set")
        elif has_type and not count and not k.has(machine, "acceleratorCount"):
            fail(f"{path}.acceleratorCount", "is required when acceleratorType is set")
        elif has_type and count == 0:
            fail(f"{path}.acceleratorCount", "must be at least 1 when acceleratorType is set")
        elif k.has(machine, "gpuPartitionSize") and count is not None and count != 1:
            fail(
                f"{path}.acceleratorCount",
                f"is {count}; with gpuPartitionSize Vertex AI partitions one GPU, so acceleratorCount must be 1",
            )
        else:
            _carried(k, machine, path, fail, index)


def _carried(k: Known, machine: dict[str, Any], path: str, fail: Fail, index: int) -> None:
    """The GPU type and count are ones the machine type carries."""
    machine_type = k.text(machine, "machineType")
    accelerator = k.text(machine, "acceleratorType")
    count = k.number(machine, "acceleratorCount")
    if machine_type is None or accelerator is None or count is None or accelerator not in schema.ENUMS["AcceleratorType"]:
        return  # unknown in a preview, no accelerator, or one the shape check refused
    if accelerator_support.ended(accelerator):
        return  # past its end of support, whatever the machine: accelerator_support.py says so
    if not machine_types.is_listed(machine_type) and machine_types.series_of(machine_type) is None:
        return  # no machine type (machine_types.py says so): nothing to carry the accelerator
    if _tpu_mismatch(machine_type, accelerator, path, fail) or accelerator.startswith("TPU_"):
        return  # a TPU's own rules are tpu.py's
    attached = gpu_machines.ATTACHED.get(machine_type)
    if attached is not None:
        takes = f"{machine_type} carries {attached.count} {attached.accelerator_type}"
        write = f"write acceleratorType {attached.accelerator_type} and acceleratorCount {attached.count}"
        if accelerator != attached.accelerator_type:
            fail(f"{path}.acceleratorType", f"{takes}, not {accelerator}; {write}, or pick a machine type for {accelerator}")
        elif count != attached.count:
            fail(f"{path}.acceleratorCount", f"{takes}, not {count}; {write}, or pick the machine type of that size")
    elif gpu_machines.is_n1(machine_type):
        counts = gpu_machines.N1_GPUS.get(accelerator)
        if counts is None:
            fail(
                f"{path}.acceleratorType",
                f"N1 machine types take only {', '.join(gpu_machines.N1_GPUS)}; {accelerator} comes with its own "
                "machine type (A2, A3, A4, G2, G4)",
            )
        elif count not in counts:
            fail(
                f"{path}.acceleratorCount",
                f"{accelerator} attaches to N1 machine types in counts of {', '.join(map(str, counts))}, not {count}",
            )
    elif machine_types.series_of(machine_type) in cpu_machines.NO_GPU:
        fail(f"{path}.acceleratorType", f"{machine_type} carries no GPU; {_where_it_goes(k, index, machine_type, accelerator, count)}")


def _where_it_goes(k: Known, index: int, machine_type: str, accelerator: str, count: int) -> str:
    """The machine type to write for `count` of `accelerator`: an N1 of the same shape, or the one that
    carries them; named only if every rule takes it for this job (its region may offer no such GPU)."""
    if accelerator in gpu_machines.N1_GPUS:
        n1 = f"{gpu_machines.N1_PREFIX}{machine_type.split('-', 1)[1]}"
        fits = [m for m in (n1, "n1-standard-8") if m in cpu_machines.TRAINING and machine_types.takes(k, index, m)]
        where = f"{accelerator} attaches to N1 machine types only"
        return f"{where}: write machineType {fits[0]}" if fits else where
    carriers = [m for m, g in gpu_machines.ATTACHED.items() if g.accelerator_type == accelerator]
    exact = [m for m in carriers if gpu_machines.ATTACHED[m].count == count]
    fits = [m for m in exact if machine_types.takes(k, index, m)]
    if carriers:
        where = f"{accelerator} comes with its own machine type"
        return f"{where}: write machineType {fits[0]}" if fits else where
    return "GPUs attach to N1 machine types or come with their own (A2, A3, A4, G2, G4)"


def _tpu_mismatch(machine_type: str, accelerator: str, path: str, fail: Fail) -> bool:
    """A GPU on a TPU machine, or a TPU on a machine that carries none ([V], TPUs: TPU v2 and v3 run
    on `cloud-tpu`, later generations on their own machine types)."""
    series = machine_types.series_of(machine_type)
    on_tpu_machine = tpu_machines.is_tpu_machine(machine_type) or series in cpu_machines.TPU_SERIES
    if accelerator.startswith("TPU_"):
        if accelerator in cpu_machines.LEGACY_TPUS and machine_type != tpu_machines.LEGACY_MACHINE and series is not None:
            fail(f"{path}.acceleratorType", f"{accelerator} runs on machineType {tpu_machines.LEGACY_MACHINE}, not {machine_type}")
            return True
        if series is not None and not on_tpu_machine:
            fail(f"{path}.acceleratorType", f"{machine_type} carries no TPU; {accelerator} runs on a TPU machine type (ct5lp-, ct6e-, tpu7x-)")
            return True
        return False
    if on_tpu_machine:
        fail(f"{path}.acceleratorType", f"{machine_type} is a TPU machine type: it carries TPUs, not {accelerator}")
        return True
    return False
