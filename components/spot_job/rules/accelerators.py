"""A machine's accelerators: a type and a count go together.
https://cloud.google.com/vertex-ai/docs/training/configure-compute#specifying_gpus
"""

from __future__ import annotations

from .known import Fail, Known


def accelerators(k: Known, fail: Fail) -> None:
    for _, path, machine in k.pool_parts("machineSpec"):
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
