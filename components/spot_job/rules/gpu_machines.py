"""Google's table of which GPUs a machine type carries: each accelerator-optimised
machine type (A2, A3, A4, A4X, G2, G4) comes with one GPU type in a fixed
count; N1 machine types take some GPU types, in some counts. Pure data, no
imports of the project.

Source: Compute Engine, "GPU machine types" and "Accelerator-optimized machine
family" (read 2026-12-04 through the search tool's stored pages): "Each
machine type within a series has a specific model and number of NVIDIA GPUs
attached. You can also attach some GPU models to N1 general-purpose machine
types." Vertex AI's "Configure compute resources for serverless training"
lists the same machine types for training, and its GPU examples name the
API's acceleratorType for each (NVIDIA_TESLA_A100 for A100 40GB, ...).
https://cloud.google.com/compute/docs/gpus
https://cloud.google.com/compute/docs/accelerator-optimized-machines
https://cloud.google.com/vertex-ai/docs/training/configure-compute#specifying_gpus

Cross-checked row by row (docs/rules.md, "The tables, row by row") against
Google's GKE tool's table of GPU machine types and their GPUs per VM:
AI-Hypercomputer/xpk src/xpk/core/system_characteristics.py
(367c838253bea41e7d7716145ad6513f44c1a21e, 2026-06-25).

A machine type the table does not name (a new series, a custom type) is left
to Google to judge.
"""

from __future__ import annotations

from dataclasses import dataclass


# A dataclass rather than a NamedTuple: a tuple's own `count` method would clash with the field.
@dataclass(frozen=True)
class GpuMachine:
    accelerator_type: str
    count: int


def _series(prefix: str, accelerator_type: str, counts: dict[str, int]) -> dict[str, GpuMachine]:
    return {f"{prefix}{suffix}": GpuMachine(accelerator_type, n) for suffix, n in counts.items()}


# machine type -> the GPU it carries and how many.
ATTACHED: dict[str, GpuMachine] = {
    # A4X: NVIDIA GB200 Grace Blackwell, 4 GPUs.
    **_series("a4x-highgpu-", "NVIDIA_GB200", {"4g": 4}),
    # A4: NVIDIA B200, 8 GPUs.
    **_series("a4-highgpu-", "NVIDIA_B200", {"8g": 8}),
    # A3 Ultra (H200), A3 Mega (H100 Mega), A3 High and A3 Edge (H100).
    **_series("a3-ultragpu-", "NVIDIA_H200_141GB", {"8g": 8}),
    **_series("a3-megagpu-", "NVIDIA_H100_MEGA_80GB", {"8g": 8}),
    **_series("a3-highgpu-", "NVIDIA_H100_80GB", {"1g": 1, "2g": 2, "4g": 4, "8g": 8}),
    **_series("a3-edgegpu-", "NVIDIA_H100_80GB", {"8g": 8}),
    # A2 Standard (A100 40GB) and A2 Ultra (A100 80GB).
    **_series("a2-highgpu-", "NVIDIA_TESLA_A100", {"1g": 1, "2g": 2, "4g": 4, "8g": 8}),
    **_series("a2-megagpu-", "NVIDIA_TESLA_A100", {"16g": 16}),
    **_series("a2-ultragpu-", "NVIDIA_A100_80GB", {"1g": 1, "2g": 2, "4g": 4, "8g": 8}),
    # G2: NVIDIA L4.
    **_series("g2-standard-", "NVIDIA_L4", {"4": 1, "8": 1, "12": 1, "16": 1, "32": 1, "24": 2, "48": 4, "96": 8}),
    # G4: NVIDIA RTX PRO 6000 Blackwell.
    **_series("g4-standard-", "NVIDIA_RTX_PRO_6000", {"48": 1, "96": 2, "192": 4, "384": 8}),
}

# N1 general-purpose machine types: the GPU types that attach, and in which counts.
N1_PREFIX = "n1-"
N1_GPUS: dict[str, tuple[int, ...]] = {
    "NVIDIA_TESLA_T4": (1, 2, 4),
    "NVIDIA_TESLA_P4": (1, 2, 4),
    "NVIDIA_TESLA_V100": (1, 2, 4, 8),
    "NVIDIA_TESLA_P100": (1, 2, 4),
}


def is_n1(machine_type: str) -> bool:
    return machine_type.startswith(N1_PREFIX)
