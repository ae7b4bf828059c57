"""A worker pool's boot disk: its size and type.

googleapis/googleapis google/cloud/aiplatform/v1/machine_resources.proto
(f8291d2b89f0017ab078a4c7378069bae5686f6f), DiskSpec: "Valid values: "pd-ssd"
..., "pd-standard" ... or "hyperdisk-balanced""; size "default is 100GB".
googleapis/python-aiplatform google/cloud/aiplatform/jobs.py
(91cc8ce4f015771b5d8c43c8764ea9dc9abdb216): "boot disk size must be within the
range of [100, 64000]".

https://cloud.google.com/vertex-ai/docs/training/configure-compute (boot disk type and size)
https://docs.cloud.google.com/dotnet/docs/reference/Google.Cloud.AIPlatform.V1Beta1/latest/Google.Cloud.AIPlatform.V1Beta1.DiskSpec
(valid types "pd-ssd", "pd-standard" or "hyperdisk-balanced"; default size 100GB)
"""

from __future__ import annotations

import difflib

from components.spot_job.rules.known import Fail, Known

BOOT_DISK_TYPES = ("pd-ssd", "pd-standard", "hyperdisk-balanced")
MIN_BOOT_DISK_GB = 100
MAX_BOOT_DISK_GB = 64000


def disks(k: Known, fail: Fail) -> None:
    for _, path, disk in k.pool_parts("diskSpec"):
        size = k.number(disk, "bootDiskSizeGb")
        if size is not None and size != 0 and not MIN_BOOT_DISK_GB <= size <= MAX_BOOT_DISK_GB:
            fail(
                f"{path}.bootDiskSizeGb",
                f"must be between {MIN_BOOT_DISK_GB} and {MAX_BOOT_DISK_GB} (GB), got {size}; leave it out for the default 100",
            )
        kind = k.text(disk, "bootDiskType")
        if kind is not None and kind not in BOOT_DISK_TYPES:
            hint = difflib.get_close_matches(kind, BOOT_DISK_TYPES, n=1)
            fail(
                f"{path}.bootDiskType",
                f"unknown boot disk type {kind!r}; expected one of {', '.join(BOOT_DISK_TYPES)}"
                + (f" (did you mean {hint[0]!r}?)" if hint else ""),
            )
