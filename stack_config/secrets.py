"""Which values of the config are secret, and `${secrets.KEY}` in a job's env values."""

from __future__ import annotations

import functools
import re
from collections.abc import Collection
from typing import Any

from components.spot_job.model import property_paths
from components.team_definition import SECRET_REF, TeamConfig

from .keys import BODY_KEYS, KNOB_KEYS


def resolve_secret_refs(job_spec: dict[str, Any], path: str, team: TeamConfig, failures: list[str]) -> list[str]:
    """Replaces ${secrets.KEY} in env values by the secret version's name; the keys it found.

    Known from the config alone, so resolved here (unlike an image's digest).
    """
    used: list[str] = []

    def resolve(match: re.Match[str], where: str) -> str:
        key = match.group(1)
        if key not in team.secrets:
            failures.append(f"{where}: {match.group(0)} names no secret of this team; it has {', '.join(team.secrets) or 'no secrets'}")
            return match.group(0)
        used.append(key)
        return str(team.secrets[key].version_name)

    for env_path, env in envs(job_spec):
        for j, var in enumerate(env):
            if isinstance(var, dict) and isinstance(var.get("value"), str):
                where = f"{path}.{env_path}[{j}].value"
                var["value"] = SECRET_REF.sub(functools.partial(resolve, where=where), var["value"])
    return sorted(set(used))


def envs(job_spec: dict[str, Any]) -> list[tuple[str, list[Any]]]:
    """Each env list of a job's pools, with its path: workerPoolSpecs[0].containerSpec.env."""
    found = []
    for i, pool in enumerate(job_spec.get("workerPoolSpecs") or []):
        for task in ("containerSpec", "pythonPackageSpec"):
            task_spec = pool.get(task) if isinstance(pool, dict) else None
            env = task_spec.get("env") if isinstance(task_spec, dict) else None
            if isinstance(env, list):
                found.append((f"workerPoolSpecs[{i}].{task}.env", env))
    return found


class Secrets:
    """Which values of the config are secret, job by job, and what they are (never to be shown)."""

    def __init__(self, leaves: Collection[str], env_values: bool) -> None:
        self.leaves = list(leaves)
        self.env_values = env_values
        self.placed: set[str] = set()  # leaves that fell inside a job's spec
        self.paths: dict[str, list[str]] = {}  # job config path -> paths of its inputs that are secret

    def of_job(self, path: str, raw: dict[str, Any]) -> list[str]:
        paths = []
        for leaf in self.leaves:
            relative = leaf.removeprefix(path + ".")
            top = re.split(r"[.\[]", relative, maxsplit=1)[0]
            if relative == leaf or top in KNOB_KEYS:
                continue  # not this job's; or a lifecycle knob, which is never a credential
            paths.append(relative if top in BODY_KEYS else f"jobSpec.{relative}")
            self.placed.add(leaf)
        if self.env_values:
            paths += [f"jobSpec.{env_path}[{j}].value" for env_path, env in envs(raw) for j in range(len(env))]
        self.paths[path] = paths
        return paths

    def misplaced(self) -> list[str]:
        return [
            f"{leaf}: is secret, but only the values of a job's spec are kept secret; give a job a credential through the "
            "team's secrets: (Secret Manager) and ${secrets.NAME}, or set this value in plain text"
            for leaf in self.leaves
            if leaf not in self.placed
        ]

    def values(self, get: Any) -> set[str]:
        """The secret strings of the config, to keep out of any message."""
        found: set[str] = set()
        wheres = list(self.leaves)
        wheres += [f"{job}.{p.removeprefix('jobSpec.')}" for job, paths in self.paths.items() for p in paths]
        for where in wheres:
            match = re.match(r"^([^.\[]+)\.?(.*)$", where)  # spot-training:teams, vision.jobs...
            if match is None:
                raise ValueError(f"not a config path: {where!r}")
            key, rest = match.groups()
            value = property_paths.get(get(key), property_paths.split(rest))
            found |= {v for _, v in property_paths.leaves(value) if isinstance(v, str)}
        return found
