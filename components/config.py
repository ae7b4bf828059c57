"""The stack config, read and validated before any resource is registered.

Errors name the config path (`spot-training:jobs.resnet.jobSpec...`) and the
program stops on them, so a typo never reaches Vertex AI or half a stack.
"""

from __future__ import annotations

from typing import Any

import pulumi

from .spot_job import spec
from .spot_job.resource import SpotTrainingJobArgs

JOBS_KEY = "spot-training:jobs"
# What a job entry may hold: a CustomJob REST body (displayName, labels,
# encryptionSpec, jobSpec), where it runs, and the provider's knobs.
_ENTRY_FIELDS = ("project", "location", "displayName", "labels", "encryptionSpec", "jobSpec", "deleteTimeout")


class ConfigError(pulumi.RunError):
    """A stack config that cannot be deployed; the message lists each offending path."""


def load_jobs(config: pulumi.Config, gcp: pulumi.Config) -> dict[str, SpotTrainingJobArgs]:
    entries = config.get_object("jobs") or {}
    if not isinstance(entries, dict):
        raise ConfigError(f"{JOBS_KEY}: must be a map of job name to job, got {type(entries).__name__}")
    failures: list[str] = []
    jobs: dict[str, SpotTrainingJobArgs] = {}
    for name, entry in entries.items():
        path = f"{JOBS_KEY}.{name}"
        if not isinstance(entry, dict):
            failures.append(f"{path}: must be a job (displayName, labels, jobSpec, ...)")
            continue
        failures += [f"{path}.{key}: unknown field; a job takes {', '.join(_ENTRY_FIELDS)}" for key in entry if key not in _ENTRY_FIELDS]
        inputs = {
            "project": gcp.get("project"),
            "location": gcp.get("region"),
            "displayName": name,
            **{key: value for key, value in entry.items() if key in _ENTRY_FIELDS},
        }
        failures += [f"{path}.{f.path}: {f.reason}" for f in spec.validate(inputs)]
        jobs[name] = SpotTrainingJobArgs.from_custom_job(
            inputs, project=inputs["project"], location=inputs["location"], delete_timeout=inputs.get("deleteTimeout")
        )
    if failures:
        raise ConfigError("invalid stack config:\n  " + "\n  ".join(failures))
    return jobs
