"""Customer-managed encryption (CMEK): the key must be in the job's location.
googleapis/python-aiplatform google/cloud/aiplatform/jobs.py
(91cc8ce4f015771b5d8c43c8764ea9dc9abdb216): "The key needs to be in the same
region as where the compute resource is created."
https://cloud.google.com/vertex-ai/docs/general/cmek
"""

from __future__ import annotations

import re

from components.spot_job.rules.known import Fail, Known

KMS_KEY = re.compile(r"^projects/[^/]+/locations/([^/]+)/keyRings/[^/]+/cryptoKeys/[^/]+$")


def encryption(k: Known, fail: Fail) -> None:
    spec = k.get(k.inputs, "encryptionSpec", dict)
    if spec is None:
        return
    key = k.text(spec, "kmsKeyName")
    if key is None:
        if not k.has(spec, "kmsKeyName"):
            fail("encryptionSpec.kmsKeyName", "is required when encryptionSpec is set")
        return
    if (region := key_region(key)) is None:
        fail("encryptionSpec.kmsKeyName", KEY_FORM)
    elif (location := k.text(k.inputs, "location")) and region != location:
        fail("encryptionSpec.kmsKeyName", f"the key is in {region!r}; Vertex AI needs a key in the job's location {location!r}")


KEY_FORM = "must look like projects/P/locations/L/keyRings/R/cryptoKeys/K"


def key_region(key: str) -> str | None:
    """The region of a Cloud KMS key's name; None if it is not one."""
    match = KMS_KEY.match(key)
    return match.group(1) if match else None
