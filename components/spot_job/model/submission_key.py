"""The submission key: the label value that makes a create idempotent (spec.submission_key says why).

Its derivation is part of every job's labels: a change to it is a change of
every job's key, which needs a migration and a test (tests/upgrades/). Pure.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping
from typing import Any


def submission_key_of(scope: Any, definition: Mapping[str, Any], rerun: Any, attempt: int) -> str:
    """The key of the `attempt`-th submission of the job `definition` (spec.job_definition) of the
    resource `scope`, with the rerun trigger `rerun`."""
    material = json.dumps(
        {"scope": scope, "job": definition, "rerun": rerun, "attempt": attempt}, sort_keys=True, separators=(",", ":")
    )
    return hashlib.sha256(material.encode()).hexdigest()[:32]
