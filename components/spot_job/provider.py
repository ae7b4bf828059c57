"""The SpotTrainingJob dynamic provider: check, diff, create, read, update, delete.

This module is pickled by reference into every job's `__provider` property and
re-imported by the dynamic provider host, so it keeps no state, imports
nothing heavy at module level and holds no client: `vertex` (the Google client)
is imported inside the methods that call Vertex AI.
"""

from __future__ import annotations

import logging
from typing import Any

from pulumi.dynamic import (
    CheckFailure,
    CheckResult,
    CreateResult,
    DiffResult,
    ReadResult,
    ResourceProvider,
    UpdateResult,
)
from pulumi.runtime import rpc

from . import spec

log = logging.getLogger("spot-training")

PROVIDER_KEY = "__provider"

# What Vertex reports about a job, refreshed by every read.
OUTPUT_FIELDS = (
    "jobId",
    "state",
    "createTime",
    "startTime",
    "endTime",
    "updateTime",
    "error",
    "consoleUrl",
    "submissionKey",
)


class SpotTrainingJobProvider(ResourceProvider):
    # The provider carries no secrets (it has no state at all), so its blob
    # stays readable and small in the state file.
    serialize_as_secret_always = False

    def check(self, olds: dict[str, Any], news: dict[str, Any]) -> CheckResult:
        failures = spec.validate(news, unknown=rpc.UNKNOWN)
        return CheckResult(news, [CheckFailure(f.path, f.reason) for f in failures])

    def diff(self, id_: str, olds: dict[str, Any], news: dict[str, Any]) -> DiffResult:
        before, after = spec.job_definition(olds), spec.job_definition(news)
        replaces = [key for key in spec.JOB_FIELDS if before.get(key) != after.get(key)]
        knobs = [key for key in spec.KNOB_FIELDS if olds.get(key) != news.get(key)]
        # A CustomJob cannot be changed, so a new definition is a new job. The
        # old one is cancelled first: two copies of a training run never bill
        # at once, and the new one may reuse the same output directory.
        return DiffResult(changes=bool(replaces or knobs), replaces=replaces, delete_before_replace=True)

    def create(self, props: dict[str, Any]) -> CreateResult:
        spec.require_valid(props)
        from . import vertex

        key = spec.submission_key(props)
        with vertex.JobService(props["location"]) as service:
            job, adopted = service.submit(spec.parent(props), spec.request_body(props), key)
        if adopted:
            log.warning("adopted %s, submitted earlier under submission key %s", job["name"], key)
        return CreateResult(job["name"], _outputs(props, job, key))

    def read(self, id_: str, props: dict[str, Any]) -> ReadResult:
        from . import vertex

        location = props.get("location") or id_.split("/")[3]
        with vertex.JobService(location) as service:
            job = service.get(id_)
        if job is None:  # deleted out of band: an empty id tells the engine it is gone
            return ReadResult("", {})
        return ReadResult(id_, _outputs(props, job, props.get("submissionKey")))

    def update(self, id_: str, olds: dict[str, Any], news: dict[str, Any]) -> UpdateResult:
        # Only provider knobs reach here (everything else replaces): no API call.
        outs = {key: value for key, value in olds.items() if key not in spec.KNOB_FIELDS}
        outs.update({key: news[key] for key in spec.KNOB_FIELDS if news.get(key) is not None})
        return UpdateResult(outs)

    def delete(self, id_: str, props: dict[str, Any]) -> None:
        from . import vertex

        timeout = spec.duration_seconds(props.get("deleteTimeout") or spec.DEFAULT_DELETE_TIMEOUT)
        location = props.get("location") or id_.split("/")[3]
        with vertex.JobService(location) as service:
            service.delete(id_, timeout)


def _outputs(props: dict[str, Any], job: dict[str, Any], key: str | None) -> dict[str, Any]:
    from . import vertex

    inputs = {k: v for k, v in props.items() if k != PROVIDER_KEY and k not in OUTPUT_FIELDS}
    error = job.get("error")
    return {
        **inputs,
        "jobId": job["name"].rsplit("/", 1)[-1],
        "state": job.get("state"),
        "createTime": job.get("createTime"),
        "startTime": job.get("startTime"),
        "endTime": job.get("endTime"),
        "updateTime": job.get("updateTime"),
        "error": {"code": error.get("code", 0), "message": error.get("message", "")} if error else None,
        "consoleUrl": vertex.console_url(job["name"]),
        "submissionKey": key,
    }
