"""Google's machine types without an accelerator of their own, and how
Compute Engine names every machine type. Pure data, no imports of the project.

A machine type's name is `<series>-<type>-<size>`: the series (e2, n2, a3,
ct6e, ...), a type within it (standard, highmem, highgpu, ...) and its size
(vCPUs, or GPUs/TPU chips with a `g`/`t` suffix), as "n2-standard-4" is "the
N2 machine series ... 4 vCPUs" (Compute Engine, "Machine families resource and
comparison guide", https://cloud.google.com/compute/docs/machine-resource);
E2's shared-core types have no size (e2-medium), a custom type ends in its
memory (n2-custom-8-16384). `SERIES` is that guide's list of series, each
with the types it names: a name outside it cannot exist.

`TRAINING` is the machine types of those series that Vertex AI's "Configure
compute resources for serverless training" lists for training (machine types
without GPUs: E2, N1, N2, C2, M1):
https://cloud.google.com/vertex-ai/docs/training/configure-compute
No stored copy of that page that the search tool found on 2026-12-05 held
this table: it is transcribed, unverified here (docs/rules.md, "The tables,
row by row"). A machine type of a known series that no table
names is therefore warned of, never refused: Google judges it at submission.
"""

from __future__ import annotations


def _sizes(series_type: str, sizes: tuple[int, ...]) -> tuple[str, ...]:
    return tuple(f"{series_type}-{n}" for n in sizes)


# The machine types Vertex training lists without an accelerator.
TRAINING: frozenset[str] = frozenset(
    _sizes("e2-standard", (4, 8, 16, 32))
    + _sizes("e2-highmem", (2, 4, 8, 16))
    + _sizes("e2-highcpu", (16, 32))
    + _sizes("n2-standard", (4, 8, 16, 32, 48, 64, 80))
    + _sizes("n2-highmem", (2, 4, 8, 16, 32, 48, 64, 80))
    + _sizes("n2-highcpu", (16, 32, 48, 64, 80, 96))
    + _sizes("n1-standard", (4, 8, 16, 32, 64, 96))
    + _sizes("n1-highmem", (2, 4, 8, 16, 32, 64, 96))
    + _sizes("n1-highcpu", (16, 32, 64, 96))
    + _sizes("c2-standard", (4, 8, 16, 30, 60))
    + _sizes("m1-ultramem", (40, 80, 160))
    + ("m1-megamem-96",)
)

# The types of a CPU series (standard, high-memory, high-CPU, the memory-optimised
# mega/ultra/hypermem, E2's shared cores, custom); accelerator series name their own.
CPU_TYPES = ("standard", "highmem", "highcpu", "megamem", "ultramem", "hypermem", "micro", "small", "medium", "custom")
SHARED_CORE = ("micro", "small", "medium")

# Compute Engine's machine series, each with the types it names (machine-resource, above;
# the accelerator-optimised ones also https://cloud.google.com/compute/docs/accelerator-optimized-machines,
# the TPU hosts as tpu_machines.py and Google's GKE tool's table name them, ct4p and ct5p included).
SERIES: dict[str, tuple[str, ...]] = {
    # General-purpose, compute-, memory- and storage-optimised: CPU only.
    **dict.fromkeys(
        ("e2", "n1", "n2", "n2d", "n4", "n4d", "n4a", "c2", "c2d", "c3", "c3d", "c4", "c4a", "c4d", "h3", "h4d",
         "t2a", "t2d", "m1", "m2", "m3", "m4", "x4", "z3"),
        CPU_TYPES,
    ),
    # The first generation's shared cores: f1-micro, g1-small.
    "f1": ("micro",),
    "g1": ("small",),
    # Accelerator-optimised: each type carries its own GPUs (gpu_machines.py).
    "a2": ("highgpu", "megagpu", "ultragpu"),
    "a3": ("highgpu", "megagpu", "ultragpu", "edgegpu"),
    "a4": ("highgpu",),
    "a4x": ("highgpu", "maxgpu"),
    "g2": ("standard",),
    "g4": ("standard",),
    # TPU hosts (tpu_machines.py); v4 and v5p exist on Compute Engine and GKE, not in Vertex's table.
    "ct4p": ("hightpu",),
    "ct5p": ("hightpu",),
    "ct5lp": ("hightpu",),
    "ct6e": ("standard",),
    "tpu7x": ("standard",),
}

# The types whose size counts the GPUs they carry (a2-highgpu-8g).
GPU_TYPES = ("highgpu", "megagpu", "ultragpu", "edgegpu", "maxgpu")

# Series to which no GPU attaches: every CPU series but N1 ("You can also attach some GPU
# models to N1 general-purpose machine types", https://cloud.google.com/compute/docs/gpus).
GPU_ATTACHES = ("n1",)
NO_GPU = tuple(s for s, types in SERIES.items() if (types == CPU_TYPES or s in ("f1", "g1")) and s not in GPU_ATTACHES)

# The TPU hosts' series, and the API's TPU generations that run on the legacy `cloud-tpu`.
TPU_SERIES = ("ct4p", "ct5p", "ct5lp", "ct6e", "tpu7x")
LEGACY_TPUS = ("TPU_V2", "TPU_V3")
