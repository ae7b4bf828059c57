"""Names the stack derives from the config's team, environment and job names, and their rules."""

from __future__ import annotations

import re

from components.team_definition import TeamConfig

from .keys import NS

# Cloud Storage's bucket naming rules (https://cloud.google.com/storage/docs/buckets#naming):
# 3-63 characters (up to 222 with dots, each dot-separated part at most 63) of
# lowercase letters, digits, '-', '_' and '.', starting and ending with a letter
# or digit; not an IP address; no "goog" prefix and no "google" in it.
_BUCKET = re.compile(r"^[a-z0-9][a-z0-9._-]*[a-z0-9]$")
_IP = re.compile(r"^\d{1,3}(\.\d{1,3}){3}$")


def bucket_name_ok(name: str) -> bool:
    limit = 222 if "." in name else 63
    return (
        3 <= len(name) <= limit
        and bool(_BUCKET.match(name))
        and all(0 < len(part) <= 63 for part in name.split("."))
        and not _IP.match(name)
        and not name.startswith("goog")
        and "google" not in name
    )


def clashing_job_names(teams: dict[str, TeamConfig]) -> list[str]:
    """Jobs are named `{team}-{job}`: team nlp's bert-finetune and team nlp-bert's
    finetune would be one resource, a URN clash only `pulumi up` would find."""
    first: dict[str, str] = {}
    failures = []
    for team in teams.values():
        for job in team.jobs:
            resource, path = f"{team.name}-{job}", f"{NS}:teams.{team.name}.jobs.{job}"
            if resource in first:
                failures.append(f"{path}: its resource name {resource!r} is also {first[resource]}'s; rename one of the jobs")
            else:
                first[resource] = path
    return failures
