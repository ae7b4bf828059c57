"""The provider's own knobs: how long one call may wait or delete.

Not Google's rule but the dynamic provider host's: it serves a few calls at
once for all resources, so no single call may hold one of its threads long.
"""

from __future__ import annotations

from components.spot_job.model.values import duration_seconds, is_duration
from components.spot_job.rules.known import Fail, Known

MAX_BLOCKING_SECONDS = 1800


def timeouts(k: Known, fail: Fail) -> None:
    for key in ("waitTimeout", "deleteTimeout"):
        timeout = k.text(k.inputs, key)
        if not is_duration(timeout):
            continue
        if duration_seconds(timeout) <= 0:
            fail(key, "must be longer than 0s")
        elif duration_seconds(timeout) > MAX_BLOCKING_SECONDS:
            fail(
                key,
                f"is {timeout}; at most {MAX_BLOCKING_SECONDS}s: the dynamic provider host has 4 threads "
                "for all resources, and a longer wait would stall the whole `pulumi up`",
            )


def quotas(k: Known, fail: Fail) -> None:
    """The per-minute quotas the provider paces to: whole numbers of at least 1 (0 would never call)."""
    given = k.get(k.inputs, "quotas", dict) or {}
    for key in ("submissionsPerMinute", "callsPerMinute"):
        value = k.number(given, key)
        if value is not None and value < 1:
            fail(f"quotas.{key}", f"is {value}; a per-minute quota is at least 1 (Vertex AI's default: "
                 f"{'60' if key == 'submissionsPerMinute' else '600'}, https://cloud.google.com/vertex-ai/docs/quotas)")
