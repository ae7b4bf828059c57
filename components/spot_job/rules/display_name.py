"""A CustomJob's displayName: required, at most 128 UTF-8 characters.
googleapis/googleapis google/cloud/aiplatform/v1/custom_job.proto
(f8291d2b89f0017ab078a4c7378069bae5686f6f): display_name REQUIRED, "can be up
to 128 characters long and can consist of any UTF-8 characters".
https://cloud.google.com/vertex-ai/docs/reference/rest/v1/projects.locations.customJobs#CustomJob
"""

from __future__ import annotations

from components.spot_job.rules.known import Fail, Known

MAX_DISPLAY_NAME = 128


def display_name(k: Known, fail: Fail) -> None:
    if not k.has(k.inputs, "displayName"):
        return fail("displayName", "is required")
    name = k.text(k.inputs, "displayName")
    if name is not None and not name.strip():
        fail("displayName", "must not be empty")
    elif name is not None and len(name) > MAX_DISPLAY_NAME:
        fail("displayName", f"is {len(name)} characters; Vertex AI allows at most {MAX_DISPLAY_NAME}")
