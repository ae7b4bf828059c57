"""A SpotTrainingJob's inputs: their canonical form, defaults, hash and submission.

Validation is the shape check (shape.py) and Google's rules (rules/), applied
here in one place. Pure on purpose: it imports neither Pulumi nor Google's
clients, so the program (to fail early, naming the config path), the provider
(in `check` and `diff`) and the tests share one definition of what a job is.
"""

from __future__ import annotations

import functools
import hashlib
import json
from dataclasses import dataclass
from typing import Any

from components.spot_job import rules
from components.spot_job.model import schema
from components.spot_job.model import submission_labels as own_labels
from components.spot_job.model.defaults import DEFAULT_REPLICA_COUNT, DEFAULT_STRATEGY
from components.spot_job.model.errors import UserError
from components.spot_job.model.first_causes import first_causes
from components.spot_job.model.shape import ShapeCheck, join
from components.spot_job.model.submission_key import submission_key_of
from components.spot_job.model.values import DURATION, as_int
from components.spot_job.rules.known import Known

# Inputs that define the job. Vertex cannot change a submitted CustomJob, so a
# change to any of them is a replacement: the job is resubmitted.
JOB_FIELDS = ("project", "location", "displayName", "labels", "encryptionSpec", "jobSpec")
# Not part of the CustomJob, but changing it submits the job again: the manual
# rerun trigger.
TRIGGER_FIELDS = ("rerun",)
# Inputs that only steer the provider; changing them updates state in place.
KNOB_FIELDS = (
    "resubmission",
    "waitFor",
    "waitTimeout",
    "onDelete",
    "deleteTimeout",
    "replaceOrder",
    "submissionScope",
    # Which inputs were secret (the provider sees them plain): for redaction only.
    "secretPaths",
    # Vertex AI's request quotas per region, for the provider's pacing (client/quota_pacing.py).
    "quotas",
    # Where an attempt in another region pulls its images from (the team's replica repositories).
    "imageMirrors",
    # A job started outside the stack that `create` adopts instead of submitting (adoption.py).
    "adopt",
)

# Where a worker pool names its image: each task's (field, image field).
IMAGE_FIELDS = (("containerSpec", "imageUri"), ("pythonPackageSpec", "executorImageUri"))

# The label that makes `create` idempotent (see submission_key), beside the
# others spot-training sets (model/submission_labels.py).
SUBMISSION_LABEL = own_labels.SUBMISSION_LABEL

_NO_UNKNOWN = object()


@dataclass(frozen=True)
class Failure:
    """One reason a spec is rejected, at the path of the offending field."""

    path: str
    reason: str

    def __str__(self) -> str:
        return f"{self.path}: {self.reason}"


class SpecError(UserError, ValueError):
    """A spec that failed validation; the message lists every failure by path."""

    def __init__(self, failures: list[Failure], prefix: str = "") -> None:
        self.failures = failures
        lines = [f"{join(prefix, f.path)}: {f.reason}" for f in failures]
        super().__init__("invalid Spot training job:\n  " + "\n  ".join(lines))


def validate(inputs: dict[str, Any], unknown: Any = _NO_UNKNOWN) -> list[Failure]:
    """Every failure in `inputs`, the resource's input bag.

    `unknown` is the marker of a value not known yet (during a preview); such
    values are skipped here and checked again when they are known.
    """
    failures: list[Failure] = []

    def fail(path: str, reason: str) -> None:
        failures.append(Failure(path, reason))

    def is_unknown(value: Any) -> bool:
        return unknown is not _NO_UNKNOWN and isinstance(value, str) and value == unknown

    inputs = as_lists(inputs, unknown=unknown)
    # The rules see what Vertex sees: an empty value is no value (proto3 has
    # no presence for "", [], {} or false, and the API reads them as unset), so
    # `serviceAccount: ""` or `encryptionSpec: {kmsKeyName: ""}`, as pipeline
    # components send unset options, is valid and means the default.
    # https://protobuf.dev/programming-guides/proto3/#default
    as_vertex_reads_it = _without_empty(inputs)
    ShapeCheck(is_unknown, fail).walk(inputs, schema.RESOURCE, "")
    rules.apply(Known(as_vertex_reads_it, is_unknown), fail)
    return first_causes(failures)


def _without_empty(value: Any) -> Any:
    """`value` with every empty string, list, map and false dropped from its maps
    (list positions are kept: an empty worker pool `{}` holds a place). Numbers
    stay: their own rules say where 0 is allowed."""
    if isinstance(value, list):
        return [_without_empty(item) for item in value]
    if not isinstance(value, dict):
        return value
    kept = {}
    for key, item in value.items():
        item = _without_empty(item)
        if item is False or (isinstance(item, (str, list, dict)) and len(item) == 0):
            continue
        kept[key] = item
    return kept


def require_valid(inputs: dict[str, Any], prefix: str = "") -> None:
    failures = validate(inputs)
    if failures:
        raise SpecError(failures, prefix)


def job_definition(inputs: dict[str, Any]) -> dict[str, Any]:
    """The canonical form of the job-defining inputs, the thing `diff` compares.

    Defaults are filled (strategy SPOT, replicaCount 1), proto3 zero values
    (false, 0, "", [], {}) dropped as the API itself does, numbers written as
    strings made numbers, and durations written one way, so two configs that
    differ only in form are equal here.
    """
    present = {k: inputs[k] for k in JOB_FIELDS if inputs.get(k) is not None}
    if not _plain_json(present):
        return _canonical(present)
    found: dict[str, Any] = json.loads(_canonical_json(json.dumps(present)))  # a fresh copy for each caller
    return found


def _canonical(present: dict[str, Any]) -> dict[str, Any]:
    canonical: dict[str, Any] = _normalise(_with_defaults(as_lists(present)), schema.RESOURCE)
    return canonical


# A `pulumi up` makes the canonical form of every job's definition on each of the host's calls
# for it (the refresh's read and diff, check, diff: five times in a no-change `up`), and it is
# most of what those calls compute (bench/host_calls.py). It is a function of the definition
# alone, so the form of each definition seen recently is kept, as JSON. Exact: the key is the
# JSON of a value made only of JSON's own types (`_plain_json`), from which `json.loads` makes
# back an equal value of the same types in the same order; anything else is not kept.
@functools.lru_cache(maxsize=4096)
def _canonical_json(key: str) -> str:
    return json.dumps(_canonical(json.loads(key)))


def _plain_json(value: Any) -> bool:
    """Whether `value` is made only of dict (with str keys), list, str, int, float, bool and None,
    those exact types: JSON writes a tuple as a list, and a subclass as its base."""
    kind = type(value)
    if kind is dict:
        return all(type(key) is str and _plain_json(item) for key, item in value.items())
    if kind is list:
        return all(_plain_json(item) for item in value)
    return kind in (str, int, float, bool, type(None))


def as_lists(value: Any, kind: Any = schema.RESOURCE, unknown: Any = _NO_UNKNOWN) -> Any:
    """`value` with a lone item written for a repeated field made a one-item list.

    gcloud's `--config` YAML takes `workerPoolSpecs:` as a single mapping (its
    own help example) and `args: --epochs=3` as a scalar: it loads the file with
    apitools' protojson, which for a repeated field turns a value that is not a
    list into `[value]` and submits that. So both spellings are the same job, and
    the list is the canonical one (no diff between them).
    gcloud: surface/ai/custom_jobs/create.py -> api_lib/ai/custom_jobs/client.py
    ImportResourceMessage -> command_lib/export/util.py Import ->
    apitools encoding.PyValueToMessage; apitools/base/protorpclite/protojson.py
    (github.com/google/apitools) "Normalize values in to a list".
    https://cloud.google.com/sdk/gcloud/reference/ai/custom-jobs/create (--config)
    """
    if isinstance(kind, tuple):
        if kind[0] != "list" or value is None or (isinstance(value, str) and value == unknown):
            return value  # a value a preview cannot know yet stays itself
        items = value if isinstance(value, list) else [value]
        return [as_lists(item, kind[1], unknown) for item in items]
    if kind in schema.MESSAGES and isinstance(value, dict):
        fields = schema.MESSAGES[kind]
        return {key: as_lists(item, fields[key], unknown) if key in fields else item for key, item in value.items()}
    return value


def request_body(inputs: dict[str, Any]) -> dict[str, Any]:
    """The CustomJob body submitted to Vertex (the `request.json` of Google's docs)."""
    body = job_definition(inputs)
    body.pop("project", None)
    body.pop("location", None)
    return body


def spec_hash(inputs: dict[str, Any]) -> str:
    return hashlib.sha256(_stable_json(job_definition(inputs)).encode()).hexdigest()


def submission_key(inputs: dict[str, Any], attempt: int = 1) -> str:
    """The label value the `attempt`-th submission of these inputs carries.

    CreateCustomJob takes no request id, so a retried or interrupted create can
    only find out whether its job was already accepted by looking this label up.
    It is derived from the resource's scope (project, stack, resource name) and
    its job definition: the same resource with the same spec finds its own job,
    and two stacks sharing a Vertex project never adopt each other's. The rerun
    trigger and the attempt number are in it too, so a rerun or a resubmission
    after a preemption is a new submission, and its retry still finds its own.
    """
    return submission_key_of(inputs.get("submissionScope", ""), job_definition(inputs), inputs.get("rerun"), attempt)


# --- canonical form --------------------------------------------------------


def _with_defaults(inputs: dict[str, Any]) -> dict[str, Any]:
    job: dict[str, Any] = json.loads(json.dumps(inputs))  # a deep copy that also rejects non-JSON values
    spec = job.get("jobSpec")
    if not isinstance(spec, dict):
        return job
    scheduling = spec.get("scheduling")
    if scheduling is None:
        scheduling = spec["scheduling"] = {}
    if isinstance(scheduling, dict) and scheduling.get("strategy") is None:
        scheduling["strategy"] = DEFAULT_STRATEGY
    for pool in spec.get("workerPoolSpecs") or []:
        # Only filled where it is absent: an explicit 0 stays 0 (proto3 has no
        # presence for it, so it is dropped below exactly as the API would).
        if isinstance(pool, dict) and pool and pool.get("replicaCount") is None:
            pool["replicaCount"] = DEFAULT_REPLICA_COUNT
    return job


def _normalise(value: Any, kind: Any) -> Any:
    """Writes `value` one way per meaning; values of the wrong shape pass through
    unchanged (validation reports them, and an unknown preview value must stay
    itself so that diff sees it as a change)."""
    if isinstance(kind, tuple):
        if kind[0] == "list" and isinstance(value, list):
            return [_normalise(item, kind[1]) for item in value]
        return value
    if kind == schema.INT and as_int(value) is not None:
        return as_int(value)
    if kind == schema.DURATION and isinstance(value, str) and (match := DURATION.match(value)):
        fraction = (match.group(2) or "").rstrip("0").rstrip(".")
        return f"{int(match.group(1))}{fraction}s"
    if kind in schema.MESSAGES and isinstance(value, dict):
        fields = schema.MESSAGES[kind]
        out = {}
        for key in sorted(value):
            item = _normalise(value[key], fields.get(key, schema.STRING))
            if item in (None, "", 0, False, [], {}) and not isinstance(item, float):
                continue  # proto3 zero values: the API reads them as unset
            out[key] = item
        return out
    return value


def _stable_json(value: Any) -> str:
    return json.dumps(value, sort_keys=True, separators=(",", ":"))
