"""The CreateCustomJob request of one attempt of a job: its parent, its submission key and its body.

What the provider submits and what the offline render prints are this one
function's answer. Pure: no Pulumi, no Google client.
"""

from __future__ import annotations

import json
from typing import Any

from components.spot_job.model import submission_labels
from components.spot_job.model.job_inputs import JobInputs, Mirror
from components.spot_job.model.job_name import parent_of
from components.spot_job.model.spec import IMAGE_FIELDS


def create_request(
    job: JobInputs,
    attempt: int = 1,
    strategy: str | None = None,
    location: str | None = None,
    kms_key_name: str | None = None,
) -> tuple[str, str, dict[str, Any]]:
    """(parent, submission key, body) of the CreateCustomJob request for the
    `attempt`-th submission of the job, on `strategy` if it differs from
    the spec's own, and in `location` with `kms_key_name` if a fallback rung
    moved it there (resubmission_policy.placement_after). The body carries the
    submission label: it is exactly what the provider submits, and what the
    offline render prints. The key is the job's wherever it runs: derived from
    the inputs (their own location), never from the placement."""
    body: dict[str, Any] = json.loads(json.dumps(job.definition))  # a copy: the definition is shared
    body.pop("project", None)
    body.pop("location", None)
    if strategy is not None:
        body["jobSpec"]["scheduling"]["strategy"] = strategy
    if location is not None and location != job.location:
        if kms_key_name:
            body["encryptionSpec"] = {"kmsKeyName": kms_key_name}
        # The rules refuse a move of a job with CMEK and no key for the rung's region.
        _pull_images_in(location, body, job.mirrors)
    key = job.submission_key(attempt)
    body["labels"] = {**body.get("labels", {}), **submission_labels.for_submission(job.scope, key, job.on_delete)}
    return parent_of(job.project, location or job.location), key, body


def _pull_images_in(location: str, body: dict[str, Any], mirrors: tuple[Mirror, ...]) -> None:
    """Each image URI of the body that a mirror in `location` serves, rewritten to pull from there."""
    for mirror in mirrors:
        if mirror.location != location:
            continue
        for pool in body["jobSpec"].get("workerPoolSpecs") or []:
            for task, field in IMAGE_FIELDS:
                uri = (pool.get(task) or {}).get(field)
                if isinstance(uri, str) and uri.startswith(mirror.source):
                    pool[task][field] = mirror.target + uri[len(mirror.source):]
