"""The rule for a job's name (its key under `jobs:`), and a name that keeps to it.

A job's name becomes its Pulumi resource name (`{team}-{job}`), its default
display name, its `gs://.../outputs/{job}` prefix, the file `render --out`
writes (`{team}-{job}.json`) and the TEAM/JOB argument of `render`, `cancel` and
`logs`. Every one of those takes lowercase letters, digits, '-' and '_'; a '/',
a space or a '::' breaks at least one of them (TEAM/JOB cannot name
`Eval Job/1`, a URN is split at '::'). So a name is held to what all of them
take, at `validate`, by its config path, as team names are.
"""

from __future__ import annotations

import re
from collections.abc import Collection
from typing import Any

# A team's name: it is part of bucket, account and repository names (loader.py checks it, with its message).
TEAM_NAME = re.compile(r"^[a-z][a-z0-9-]{0,19}$")
JOB_NAME = re.compile(r"^[a-z][a-z0-9_-]{0,62}$")
RULE = "job names are 1-63 lowercase letters, digits, '-' and '_', starting with a letter"


def failure(key: Any, path: str, taken: Collection[Any] = ()) -> str | None:
    """Why `key` cannot name a job (with a name that can, if one is at hand), or None."""
    if isinstance(key, str) and JOB_NAME.match(key):
        return None
    why = " (it reads as a number: YAML makes an unquoted 2024 one)" if isinstance(key, (int, float)) else ""
    instead = suggestion(key)
    fix = f"; rename it, for example {instead!r}" if instead is not None and instead not in taken else ""
    return f"{path}: {RULE}: every verb (TEAM/JOB), the resource name and render --out's file name take them{why}{fix}"


def suggestion(key: Any) -> str | None:
    """`key` kept to the rule: lowercase, each run of other characters one '-', a letter first;
    None if nothing of it is left. Never a name the rule refuses."""
    text = re.sub(r"[^a-z0-9_]+", "-", str(key).lower()).strip("-_")[:63].rstrip("-_")
    if text and not text[0].isalpha():
        text = f"job-{text}"[:63].rstrip("-_")
    return text if JOB_NAME.match(text) else None


def team_job_failure(value: str) -> str | None:
    """Why TEAM/JOB (an argument of render, cancel, logs) names no job a stack can have, or None."""
    team, _, job = value.partition("/")
    if not team or not job or "/" in job:
        return f"{value!r} is not a job: write TEAM/JOB, as the stack config nests it (e.g. vision/resnet-smoke)"
    if not TEAM_NAME.match(team) or not JOB_NAME.match(job):
        return f"{value!r} names no job a stack can have: team names are 1-20 lowercase letters, digits and '-', and {RULE}"
    return None
