"""gcp:project and gcp:region, checked before anything is registered.

Both were passed through unchecked: `Acme_ML` or `us central` rendered every
resource and failed only at Google, after some were created.
"""

from __future__ import annotations

import difflib
import re
from typing import Any

from .keys import NS
from .regions import VERTEX_AI_REGIONS

# https://cloud.google.com/resource-manager/docs/creating-managing-projects: 6-30 characters of
# lowercase letters, digits and hyphens, starting with a letter, not ending with a hyphen;
# older projects may be scoped to a domain, `example.com:my-project`.
_PROJECT = re.compile(r"^([a-z0-9][a-z0-9.-]*[a-z0-9]:)?[a-z][a-z0-9-]{4,28}[a-z0-9]$")
# A region id as Google writes them: us-central1, europe-west4, northamerica-northeast2.
REGION_ID = re.compile(r"^[a-z]+(-[a-z]+)+[0-9]+$")


def project_ok(value: Any) -> bool:
    """Whether `value` is a project id (what `project` checks): names derived from another are not judged."""
    return isinstance(value, str) and bool(_PROJECT.match(value))


def project(value: Any, failures: list[str]) -> None:
    if value is None or value == "":
        failures.append("gcp:project: is required")
    elif not isinstance(value, str) or not _PROJECT.match(value):  # `gcp:project: 12` is set, just not to a project id
        failures.append(
            f"gcp:project: {value!r} is not a project id: 6-30 lowercase letters, digits and '-', starting with a letter "
            "and not ending with '-' (https://cloud.google.com/resource-manager/docs/creating-managing-projects)"
        )


def extra_regions(value: Any, failures: list[str]) -> list[str]:
    """spot-training:extraRegions: regions to allow that Google's table (regions.py) does not list yet."""
    key = f"{NS}:extraRegions"
    if value is None:
        return []
    if not isinstance(value, list):
        failures.append(f"{key}: must be a list of region ids such as [us-central1]")
        return []
    bad = [i for i, region in enumerate(value) if not isinstance(region, str) or not REGION_ID.match(region)]
    failures += [f"{key}[{i}]: {value[i]!r} is not a region id such as us-central1" for i in bad]
    return [region for i, region in enumerate(value) if i not in bad]


def region(value: Any, extra: list[str], failures: list[str], path: str = "gcp:region") -> None:
    """gcp:region, or (at `path`) another region a job may run in: a fallback rung's location."""
    if value is None or value == "":
        failures.append(f"{path}: is required")
        return
    if value in VERTEX_AI_REGIONS or value in extra:
        return
    close = difflib.get_close_matches(str(value), VERTEX_AI_REGIONS, n=1)
    hint = f"; did you mean {close[0]}?" if close else ""
    failures.append(
        f"{path}: {value!r} is not a region Vertex AI custom training runs in{hint} "
        f"(https://cloud.google.com/vertex-ai/docs/general/locations). A region Google added since: "
        f"list it in {NS}:extraRegions"
    )


def ladder_locations(raw_teams: Any) -> list[tuple[str, str]]:
    """(config path, region) of every fallback rung's `location` in the teams' raw config,
    whatever else is malformed there (the job's own checks report that, by path)."""
    found = []
    for team, raw in raw_teams.items() if isinstance(raw_teams, dict) else ():
        jobs = raw.get("jobs") if isinstance(raw, dict) else None
        for key, job in jobs.items() if isinstance(jobs, dict) else ():
            policy = job.get("resubmission") if isinstance(job, dict) else None
            rungs = policy.get("fallback") if isinstance(policy, dict) else None
            for i, rung in enumerate(rungs if isinstance(rungs, list) else []):
                location = rung.get("location") if isinstance(rung, dict) else None
                if isinstance(location, str) and location:
                    found.append((f"{NS}:teams.{team}.jobs.{key}.resubmission.fallback[{i}].location", location))
    return found
