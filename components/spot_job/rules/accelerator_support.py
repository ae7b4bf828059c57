"""machineSpec.acceleratorType: an accelerator past its end of support.

googleapis/googleapis google/cloud/aiplatform/v1/accelerator_type.proto
(f8291d2b89f0017ab078a4c7378069bae5686f6f), AcceleratorType.NVIDIA_TESLA_K80:
"Deprecated: Nvidia Tesla K80 GPU has reached end of support", with
`[deprecated = true]`, pointing to https://cloud.google.com/compute/docs/eol/k80-eol
It is still a value of the enum (so the shape check takes it), but no machine
takes the GPU any more: refused here with that reason, on whatever machine
type, before the machine rules (accelerators.py) would give one of their own.
K80 is the only value that proto (and v1beta1's) marks deprecated;
tests/test_google_sources.py holds this table to the installed client's enum.
"""

from __future__ import annotations

from . import gpu_machines
from .known import Fail, Known

# The deprecated accelerator -> the end-of-support page the proto points to.
END_OF_SUPPORT = {
    "NVIDIA_TESLA_K80": "https://cloud.google.com/compute/docs/eol/k80-eol",
}


def ended(accelerator: object) -> bool:
    """Whether `accelerator` is one Vertex AI deprecated at its end of support."""
    return isinstance(accelerator, str) and accelerator in END_OF_SUPPORT


def end_of_support(k: Known, fail: Fail) -> None:
    for _, path, machine in k.pool_parts("machineSpec"):
        accelerator = k.text(machine, "acceleratorType")
        if accelerator is not None and ended(accelerator):
            fail(
                f"{path}.acceleratorType",
                f"{accelerator} is deprecated in Vertex AI's API (accelerator_type.proto): it has reached end of "
                f"support ({END_OF_SUPPORT[accelerator]}); pick a GPU Vertex AI still offers (on N1 machine types: "
                f"{', '.join(gpu_machines.N1_GPUS)})",
            )
