"""A machine type that cannot exist is refused, naming the one meant: a name
not of Compute Engine's form `<series>-<type>-<size>`, of a series Compute
Engine does not have, or of a type its series does not name (cpu_machines.py).

A well-formed name of a known series that no table lists (Vertex's CPU table,
the GPU and TPU tables) is not refused: `unlisted` says so, and the program
warns, so a machine type Google adds tomorrow still deploys.
https://cloud.google.com/compute/docs/machine-resource
https://cloud.google.com/vertex-ai/docs/training/configure-compute
"""

from __future__ import annotations

import copy
import difflib
import re
from typing import Any

from . import cpu_machines, gpu_machines, tpu_machines
from .known import Fail, Known

# series-type, then a size (vCPUs, or GPUs/chips with g/t) and a suffix (-lssd, -metal),
# or a custom type's vCPUs and memory, or nothing for a shared core (e2-medium).
_FORM = re.compile(r"^(?P<series>[a-z][a-z0-9]*)-(?P<type>[a-z]+)(?P<size>(?:-[a-z0-9]+)+)?$")
# After the size: local SSDs bundled (c3-standard-8-lssd, z3-highmem-88-highlssd), bare metal (c4-standard-288-metal).
_SUFFIXES = ("lssd", "nolssd", "highlssd", "standardlssd", "metal")


def listed() -> list[str]:
    """Every machine type a table names: Vertex's CPU table, the GPU table, the TPU table."""
    return sorted({*cpu_machines.TRAINING, *gpu_machines.ATTACHED, *tpu_machines.MACHINES, tpu_machines.LEGACY_MACHINE})


def is_listed(machine_type: str) -> bool:
    return machine_type in cpu_machines.TRAINING or machine_type in gpu_machines.ATTACHED or tpu_machines.is_tpu_machine(machine_type)


def series_of(machine_type: str) -> str | None:
    """The machine type's series when its name is one Compute Engine's naming allows, else None."""
    match = _FORM.match(machine_type)
    if match is None:
        return None
    series, kind, size = match["series"], match["type"], (match["size"] or "").split("-")[1:]
    if kind not in cpu_machines.SERIES.get(series, ()):
        return None
    if kind in cpu_machines.SHARED_CORE:
        return series if not size else None
    if kind == "custom":  # n2-custom-8-16384, n2-custom-8-16384-ext, E2's e2-custom-medium-1024
        return series if len(size) >= 2 and (size[0].isdigit() or size[0] in cpu_machines.SHARED_CORE) else None
    # The size counts GPUs on a GPU type (a3-highgpu-8g), chips on a TPU host (ct6e-standard-4t), else vCPUs.
    unit = "t" if series in cpu_machines.TPU_SERIES else "g" if kind in cpu_machines.GPU_TYPES else ""
    if not size or not size[0].endswith(unit) or not size[0].removesuffix(unit).isdigit():
        return None
    return series if all(part in _SUFFIXES for part in size[1:]) else None


def machine_type(k: Known, fail: Fail) -> None:
    for index, path, machine in k.pool_parts("machineSpec"):
        value = k.text(machine, "machineType")
        if value is None or is_listed(value) or series_of(value) is not None:
            continue
        fail(f"{path}.machineType", _refusal(k, index, value))


def takes(k: Known, index: int, candidate: str) -> bool:
    """Whether every rule takes pool `index` of the job with machineType `candidate`: a machine
    type is offered as a fix only then (never one the job's region, strategy or GPU refuses)."""
    from . import apply  # the whole rule set, this module's rule among them: imported when first asked

    inputs = copy.deepcopy(k.inputs)
    inputs["jobSpec"]["workerPoolSpecs"][index]["machineSpec"]["machineType"] = candidate
    prefix = f"jobSpec.workerPoolSpecs[{index}].machineSpec"
    refused: list[str] = []
    apply(Known(inputs, k.is_unknown), lambda path, _: refused.append(path) if path.startswith(prefix) else None)
    return not refused


def _refusal(k: Known, index: int, value: str) -> str:
    close = [m for m in difflib.get_close_matches(value.lower(), listed(), n=3, cutoff=0.6) if takes(k, index, m)]
    hint = f"did you mean {close[0]!r}?" if close else "write one of the machine types Vertex training lists, such as n1-standard-4"
    series = ", ".join(s for s in cpu_machines.SERIES if s in {m.split("-")[0] for m in listed()})
    return (
        f"{value!r} is not a machine type: Compute Engine names them <series>-<type>-<size> (n1-standard-4), and Vertex "
        f"training's series are {series} and cloud-tpu; {hint}"
    )


def unlisted(machine_type: Any) -> str | None:
    """Why a well-formed machine type of a known series is only warned of: no table lists it (None when one does)."""
    if not isinstance(machine_type, str) or is_listed(machine_type) or series_of(machine_type) is None:
        return None
    return (
        f"{machine_type} is of Compute Engine's {series_of(machine_type)} series, but no table of spot-training lists it "
        "for Vertex training (docs/rules.md): left to Google, which refuses it at submission if it does not offer it"
    )
