"""Bringing a CustomJob submitted outside the stack (gcloud, the SDK) under a resource: an import.

A job entry with `import: projects/P/locations/L/customJobs/ID` (or the resource
option `import_` in the code API) makes the engine read that job instead of
submitting one. The read checks it against the entry's spec first: the import
succeeds only when every field the config sets has the same value in the job,
so the stack never adopts a job that is not the one it declares, and never
replaces it silently. Fields the config leaves out and Vertex filled in (a boot
disk's defaults, say) are not differences. The job's labels are its own: a
CustomJob cannot change, so the stack's labels (the submission key's among
them) apply from the job's next submission; until then the orphan sweep does
not see the job, and its resource deletes it by name.

`differences` is pure; `adopt` reads the job once (the Google client is
imported inside it, as in every protocol module the provider calls).
"""

from __future__ import annotations

import logging
from typing import Any

from components.spot_job.model import property_paths, redaction, spec
from components.spot_job.model.errors import UserError
from components.spot_job.model.job_inputs import JobInputs
from components.spot_job.model.job_name import JobName
from components.spot_job.model.job_state import JobState

log = logging.getLogger("spot-training")

# Compared where the config sets them; `labels` is left out (see above).
COMPARED = ("project", "location", "displayName", "encryptionSpec", "jobSpec")
_SHOWN = 80  # characters of a value a difference quotes


def as_inputs(job: dict[str, Any]) -> dict[str, Any]:
    """A REST-shaped CustomJob as the resource's job-defining inputs."""
    name = JobName.parse(job["name"])
    found = {"project": name.project, "location": name.location}
    found.update({key: job[key] for key in ("displayName", "encryptionSpec", "jobSpec") if job.get(key)})
    return found


def differences(inputs: JobInputs, job: dict[str, Any]) -> list[str]:
    """One line per path where the config's spec (`inputs`) and the job differ, in canonical form."""
    want = {key: value for key, value in inputs.definition.items() if key in COMPARED}
    have = spec.job_definition(as_inputs(job))
    # A value at a secret path is named, never shown: neither the config's nor the one Vertex holds.
    secret = inputs.secret_paths
    return [
        f"{path}: {redaction.PLACEHOLDER} differs"
        if any(property_paths.is_within(path, s) for s in secret)
        else f"{path}: {_show(theirs)} in Vertex, {_show(ours)} in the config"
        for path, ours, theirs in _unequal(want, have, "")
    ]


def _unequal(ours: Any, theirs: Any, path: str) -> list[tuple[str, Any, Any]]:
    if isinstance(ours, dict) and isinstance(theirs, dict):
        found: list[tuple[str, Any, Any]] = []
        for key in sorted(ours):  # only what the config sets: the rest Vertex may have filled in
            found += _unequal(ours[key], theirs.get(key), f"{path}.{key}" if path else key)
        return found
    if isinstance(ours, list) and isinstance(theirs, list) and len(ours) == len(theirs):
        return [d for i, (a, b) in enumerate(zip(ours, theirs, strict=True)) for d in _unequal(a, b, f"{path}[{i}]")]
    return [] if ours == theirs else [(path, ours, theirs)]


def _show(value: Any) -> str:
    text = "(unset)" if value is None else repr(value)
    return text if len(text) <= _SHOWN else text[: _SHOWN - 3] + "..."


def adopt(inputs: JobInputs) -> JobState:
    """The state of the job `inputs.adopt` (its full name), started outside the stack, once it is checked
    against the resource's spec: only when they agree (`differences`); else an error naming each differing
    path. One GetCustomJob; nothing is submitted."""
    from components.spot_job.client import job_service

    label = inputs.label or str(inputs.adopt)
    try:
        name = JobName.parse(str(inputs.adopt))
    except ValueError as error:
        raise UserError(f"{label}: cannot adopt (adopt, the job entry's import): {error}") from None
    job = job_service.JobService(name.location, inputs.quotas).get(str(name))
    if job is None:
        raise UserError(f"{label}: cannot adopt {name}: no such job in Vertex AI (deleted, or another project or region)")
    found = differences(inputs, job)
    if found:
        raise UserError(
            f"{label}: cannot adopt {name}: it is not the job its spec declares. Where they differ:\n  "
            + "\n  ".join(found)
            + "\nMake the spec match the job to adopt it, or drop `import` (`adopt`) to submit the spec as a new job."
        )
    log.info("%s: adopted %s (%s), started outside the stack, without submitting it", label, name, job.get("state"))
    key, strategy = inputs.submission_key(1), ((job.get("jobSpec") or {}).get("scheduling") or {}).get("strategy")
    return JobState.observed(job, key=key, strategy=strategy, attempt=1, history=(), home=inputs.location)
