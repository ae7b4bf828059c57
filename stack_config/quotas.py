"""spot-training:quotas: Vertex AI's per-region request quotas, for projects whose quotas were raised.

The provider paces its calls to them (components/spot_job/client/quota_pacing.py). The
values reach the provider host as every job's `quotas` input, a knob: it is in
neither the job's definition nor its submission key, so changing it never
resubmits a job.
"""

from __future__ import annotations

from typing import Any

from components.spot_job.client.quota_pacing import DEFAULTS

from .keys import NS, hint

KEY = f"{NS}:quotas"
# Google's page, where the defaults and how to raise them are written.
_PAGE = "https://cloud.google.com/vertex-ai/docs/quotas"


def quotas(value: Any, failures: list[str]) -> dict[str, int] | None:
    """The validated map (only the keys set), or None when the key is unset or invalid."""
    if value is None:
        return None
    if not isinstance(value, dict):
        failures.append(f"{KEY}: must be a map such as {{submissionsPerMinute: 60, callsPerMinute: 600}} ({_PAGE})")
        return None
    given: dict[str, int] = {}
    ok = True
    for key, number in value.items():
        if key not in DEFAULTS:
            failures.append(f"{KEY}.{key}: unknown key; {hint(str(key), DEFAULTS, 'it')}")
            ok = False
        elif isinstance(number, bool) or not isinstance(number, int) or number < 1:
            failures.append(
                f"{KEY}.{key}: must be a whole number of requests per minute of at least 1, got {number!r} "
                f"(Vertex AI's default: {DEFAULTS[key]}, {_PAGE})"
            )
            ok = False
        else:
            given[key] = number
    return given if ok and given else None
