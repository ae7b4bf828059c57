"""A SpotTrainingJob's inputs: validation, defaults, canonical form and hash.

Pure on purpose: it imports neither Pulumi nor Google's clients, so the program
(to fail early, naming the config path), the provider (in `check` and `diff`)
and the tests share one definition of what a job is.
"""

from __future__ import annotations

import difflib
import hashlib
import json
import re
import unicodedata
from dataclasses import dataclass
from decimal import Decimal
from typing import Any, Callable

from . import labels as own_labels
from .errors import UserError
from . import schema
from . import tpu_machines

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
)

DEFAULT_STRATEGY = "SPOT"
DEFAULT_REPLICA_COUNT = 1
DEFAULT_WAIT_FOR = "none"
DEFAULT_WAIT_TIMEOUT = "600s"
DEFAULT_ON_DELETE = "delete"
DEFAULT_DELETE_TIMEOUT = "900s"
DEFAULT_REPLACE_ORDER = "cancelFirst"
DEFAULT_MAX_RESUBMISSIONS = 3
# Bounds that keep state small and `pulumi up` finite.
MAX_RESUBMISSIONS = 10
# The dynamic provider host serves 4 calls at once; no single call may hold
# one of those threads longer than this, waiting or deleting.
MAX_BLOCKING_SECONDS = 1800

# The label that makes `create` idempotent (see submission_key), beside the
# others spot-training sets (labels.py). They take some of the 64 label slots
# Vertex allows; users get the rest.
SUBMISSION_LABEL = own_labels.SUBMISSION_LABEL
MAX_LABELS = 64
MAX_USER_LABELS = MAX_LABELS - own_labels.OWN_LABELS
MAX_WORKER_POOLS = 4  # chief, workers, parameter servers, evaluators
MAX_PACKAGE_URIS = 100
MAX_DISPLAY_NAME = 128

_NO_UNKNOWN = object()

_DURATION = re.compile(r"^(\d+)(\.\d{1,9})?s$")
_PROJECT = re.compile(r"^(?:[a-z][a-z0-9.-]*:)?[a-z][a-z0-9-]{4,28}[a-z0-9]$|^\d{6,}$")
_LOCATION = re.compile(r"^[a-z]+(?:-[a-z]+)+\d+$")
_LABEL_KEY = re.compile(r"^[a-z][a-z0-9_-]{0,62}$")
# Label values take lowercase letters of any script (Unicode Ll, Lo), numbers,
# '_' and '-', at most 63 characters; keys stay ASCII as the Vertex docs show.
# CustomJob.labels: "International characters are allowed"
# https://cloud.google.com/java/docs/reference/google-cloud-aiplatform/3.45.0/com.google.cloud.aiplatform.v1.CustomJobOrBuilder
# and the value format [\p{Ll}\p{Lo}\p{N}_-]{0,63} Google's label docs give:
# https://googleapis.dev/dotnet/Google.Apis.Backupdr.v1/latest/api/Google.Apis.Backupdr.v1.Data.LabelKeyValPair.html
_LABEL_VALUE_MAX = 63
_GCS_URI = re.compile(r"^gs://[a-z0-9][a-z0-9._-]{1,220}[a-z0-9](/.*)?$")
_GCS_OBJECT = re.compile(r"^gs://[a-z0-9][a-z0-9._-]{1,220}[a-z0-9]/.+$")
_KMS_KEY = re.compile(r"^projects/[^/]+/locations/([^/]+)/keyRings/[^/]+/cryptoKeys/[^/]+$")
_NETWORK = re.compile(r"^projects/[^/]+/global/networks/[^/]+$")
_TENSORBOARD = re.compile(r"^projects/[^/]+/locations/([^/]+)/tensorboards/[^/]+$")
_EMAIL = re.compile(r"^[^@\s]+@[^@\s]+\.[^@\s]+$")
_ENV_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")
_TPU_TOPOLOGY = re.compile(r"^\d+(x\d+){1,2}$")
_DEPRECATED_STRATEGIES = {
    "ON_DEMAND": "is deprecated by Vertex AI; use STANDARD",
    "LOW_COST": "is deprecated by Vertex AI; use SPOT",
}


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
        lines = [f"{_join(prefix, f.path)}: {f.reason}" for f in failures]
        super().__init__("invalid Spot training job:\n  " + "\n  ".join(lines))


def validate(inputs: dict[str, Any], unknown: Any = _NO_UNKNOWN) -> list[Failure]:
    """Every failure in `inputs`, the resource's input bag.

    `unknown` is the marker of a value not known yet (during a preview); such
    values are skipped here and checked again when they are known.
    """
    checker = _Checker(unknown)
    inputs = as_lists(inputs, unknown=unknown)
    checker.walk(inputs, schema.RESOURCE, "")
    # The rules see what Vertex sees: an empty value is no value (proto3 has
    # no presence for "", [], {} or false, and the API reads them as unset), so
    # `serviceAccount: ""` or `encryptionSpec: {kmsKeyName: ""}`, as pipeline
    # components send unset options, is valid and means the default.
    # https://protobuf.dev/programming-guides/proto3/#default
    present = _without_empty(inputs)
    for rule in _RULES:
        rule(_Known(present, checker.is_unknown), checker.fail)
    return checker.failures


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
    return _normalise(_with_defaults(as_lists(present)), schema.RESOURCE)


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


def submission(inputs: dict[str, Any], attempt: int = 1, strategy: str | None = None) -> tuple[str, str, dict[str, Any]]:
    """(parent, submission key, body) of the CreateCustomJob request for the
    `attempt`-th submission of these inputs, on `strategy` if it differs from
    the spec's own. The body carries the submission label: it is exactly what
    the provider submits, and what the offline render prints."""
    key = submission_key(inputs, attempt)
    body = request_body(inputs)
    scope = inputs.get("submissionScope") or ""
    body["labels"] = {**body.get("labels", {}), **own_labels.for_submission(scope, key, inputs.get("onDelete"))}
    if strategy is not None:
        body["jobSpec"]["scheduling"]["strategy"] = strategy
    return parent(inputs), key, body


def parent(inputs: dict[str, Any]) -> str:
    return f"projects/{inputs['project']}/locations/{inputs['location']}"


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
    material = _stable_json(
        {
            "scope": inputs.get("submissionScope", ""),
            "job": job_definition(inputs),
            "rerun": inputs.get("rerun"),
            "attempt": attempt,
        }
    )
    return hashlib.sha256(material.encode()).hexdigest()[:32]


# "Schedule training jobs based on resource availability" (Dynamic Workload
# Scheduler, strategy FLEX_START): the job requests L4, A100, H100, H200 or
# B200 GPUs, its timeout is 7 days or less, and every worker pool has the same
# machine configuration. "Use reservations with training": Flex-start cannot
# consume a reservation.
# https://cloud.google.com/vertex-ai/docs/training/schedule-jobs-dws
# https://cloud.google.com/vertex-ai/docs/training/use-reservations
FLEX_START_GPUS = (
    "NVIDIA_L4",
    "NVIDIA_TESLA_A100",
    "NVIDIA_A100_80GB",
    "NVIDIA_H100_80GB",
    "NVIDIA_H100_MEGA_80GB",
    "NVIDIA_H200_141GB",
    "NVIDIA_B200",
)
FLEX_START_MAX_TIMEOUT_SECONDS = 7 * 24 * 3600


def flex_start_problems(inputs: dict[str, Any]) -> list[tuple[str, str]]:
    """Why the job may not run with strategy FLEX_START, as (path, reason)
    pairs; empty when it may."""
    spec = inputs.get("jobSpec") or {}
    pools = [(i, p) for i, p in enumerate(spec.get("workerPoolSpecs") or []) if isinstance(p, dict) and p]
    if not pools:
        return [("jobSpec.workerPoolSpecs", "FLEX_START needs a GPU worker pool")]
    problems = []
    gpus = ", ".join(FLEX_START_GPUS)
    first = _machine_config(pools[0][1])
    for i, pool in pools:
        path = f"jobSpec.workerPoolSpecs[{i}].machineSpec"
        machine = pool.get("machineSpec") or {}
        if machine.get("acceleratorType") not in FLEX_START_GPUS or not (as_int(machine.get("acceleratorCount")) or 0) > 0:
            problems.append((f"{path}.acceleratorType", f"FLEX_START takes only these GPUs: {gpus}"))
        elif _machine_config(pool) != first:
            problems.append((path, "FLEX_START needs the same machineSpec in every worker pool as in workerPoolSpecs[0]"))
        if machine.get("reservationAffinity"):
            problems.append((f"{path}.reservationAffinity", "FLEX_START cannot consume a reservation; remove reservationAffinity"))
    timeout = (spec.get("scheduling") or {}).get("timeout")
    if isinstance(timeout, str) and _DURATION.match(timeout) and duration_seconds(timeout) > FLEX_START_MAX_TIMEOUT_SECONDS:
        problems.append(
            ("jobSpec.scheduling.timeout", f"FLEX_START allows at most 7 days; write {FLEX_START_MAX_TIMEOUT_SECONDS}s or less")
        )
    return problems


def _machine_config(pool: dict) -> tuple:
    machine = pool.get("machineSpec") or {}
    return (machine.get("machineType"), machine.get("acceleratorType"), as_int(machine.get("acceleratorCount")))


def flex_start_qualifies(inputs: dict[str, Any]) -> bool:
    """Whether the job may run with strategy FLEX_START (see flex_start_problems)."""
    return not flex_start_problems(inputs)


def duration_seconds(value: str) -> float:
    match = _DURATION.match(value)
    if not match:
        raise ValueError(f"not a duration like '86400s': {value!r}")
    return float(Decimal(match.group(1) + (match.group(2) or "")))


# --- validation: the shape -------------------------------------------------


class _Checker:
    def __init__(self, unknown: Any) -> None:
        self.unknown = unknown
        self.failures: list[Failure] = []

    def is_unknown(self, value: Any) -> bool:
        return self.unknown is not _NO_UNKNOWN and isinstance(value, str) and value == self.unknown

    def fail(self, path: str, reason: str) -> None:
        self.failures.append(Failure(path, reason))

    def walk(self, value: Any, kind: Any, path: str) -> None:
        if value is None or self.is_unknown(value):
            return
        if isinstance(kind, tuple):
            tag, inner = kind
            if tag == "list":
                if not isinstance(value, list):
                    return self.fail(path, f"must be a list, got {_type_name(value)}")
                for i, item in enumerate(value):
                    self.walk(item, inner, f"{path}[{i}]")
            elif value not in schema.ENUMS[inner]:
                allowed = ", ".join(v for v in schema.ENUMS[inner] if v not in _DEPRECATED_STRATEGIES)
                self.fail(path, f"unknown value {value!r}; expected one of {allowed}")
        elif kind == schema.STRING:
            if not isinstance(value, str):
                self.fail(path, f"must be a string, got {_type_name(value)}")
        elif kind == schema.INT:
            if as_int(value) is None:
                self.fail(path, f"must be a whole number, got {value!r}")
        elif kind == schema.BOOL:
            if not isinstance(value, bool):
                self.fail(path, f"must be true or false, got {value!r}")
        elif kind == schema.DURATION:
            if not isinstance(value, str) or not _DURATION.match(value):
                self.fail(path, f"must be a duration in seconds such as \"86400s\", got {value!r}")
        elif kind == schema.STRING_MAP:
            if not isinstance(value, dict):
                return self.fail(path, f"must be a map of strings, got {_type_name(value)}")
            for key, item in value.items():
                if not isinstance(item, str) and not self.is_unknown(item):
                    self.fail(_join(path, key), f"must be a string, got {_type_name(item)}")
        else:
            self._message(value, kind, path)

    def _message(self, value: Any, name: str, path: str) -> None:
        if not isinstance(value, dict):
            return self.fail(path, f"must be an object ({name}), got {_type_name(value)}")
        fields = schema.MESSAGES[name]
        for key, item in value.items():
            if key.startswith("__") or item is None:  # the dynamic provider's own bookkeeping; unset
                continue
            if key not in fields:
                hint = difflib.get_close_matches(key, list(fields), n=1)
                suggestion = f"; did you mean {hint[0]!r}?" if hint else f"; known fields: {', '.join(fields)}"
                self.fail(_join(path, key), f"unknown field{suggestion}")
                continue
            self.walk(item, fields[key], _join(path, key))


# --- validation: the rules -------------------------------------------------


class _Known:
    """Typed, unknown-free access to the inputs, so a rule never trips over a
    value the shape check already rejected or one that a preview cannot know."""

    def __init__(self, inputs: dict[str, Any], is_unknown: Callable[[Any], bool]) -> None:
        self.inputs = inputs
        self.is_unknown = is_unknown

    def get(self, obj: Any, key: str, kind: type | tuple[type, ...]) -> Any:
        if not isinstance(obj, dict):
            return None
        value = obj.get(key)
        if self.is_unknown(value) or not isinstance(value, kind) or (kind is not bool and isinstance(value, bool)):
            return None
        return value

    def has(self, obj: Any, key: str) -> bool:
        return isinstance(obj, dict) and obj.get(key) is not None

    def text(self, obj: Any, key: str) -> str | None:
        return self.get(obj, key, str)

    def number(self, obj: Any, key: str) -> int | None:
        return as_int(self.get(obj, key, (int, float, str)))

    def spec(self) -> dict:
        return self.get(self.inputs, "jobSpec", dict) or {}

    def pools(self) -> list[tuple[int, dict]]:
        pools = self.get(self.spec(), "workerPoolSpecs", list) or []
        return [(i, p) for i, p in enumerate(pools) if isinstance(p, dict)]

    def strategy(self) -> str | None:
        scheduling = self.get(self.spec(), "scheduling", dict) or {}
        if self.is_unknown(scheduling.get("strategy")):
            return None
        return self.text(scheduling, "strategy") or DEFAULT_STRATEGY


Fail = Callable[[str, str], None]


def _required_place(k: _Known, fail: Fail) -> None:
    for key, pattern, example in (
        ("project", _PROJECT, "acme-ml-dev"),
        ("location", _LOCATION, "us-central1"),
    ):
        if not k.has(k.inputs, key):
            fail(key, f"is required (e.g. {example!r}); set it on the job or as gcp:{'region' if key == 'location' else key}")
        elif (value := k.text(k.inputs, key)) is not None and not pattern.match(value):
            fail(key, f"{value!r} is not a valid {key} (e.g. {example!r})")


def _display_name(k: _Known, fail: Fail) -> None:
    if not k.has(k.inputs, "displayName"):
        return fail("displayName", "is required")
    name = k.text(k.inputs, "displayName")
    if name is not None and not name.strip():
        fail("displayName", "must not be empty")
    elif name is not None and len(name) > MAX_DISPLAY_NAME:
        fail("displayName", f"is {len(name)} characters; Vertex AI allows at most {MAX_DISPLAY_NAME}")


def _labels(k: _Known, fail: Fail) -> None:
    labels = k.get(k.inputs, "labels", dict) or {}
    if len(labels) > MAX_USER_LABELS:
        fail(
            "labels",
            f"has {len(labels)} labels; at most {MAX_USER_LABELS} (Vertex allows {MAX_LABELS}, "
            f"spot-training sets up to {own_labels.OWN_LABELS} of its own)",
        )
    for key, value in labels.items():
        path = f"labels.{key}"
        if key in own_labels.RESERVED:
            fail(path, "is reserved: spot-training sets it to find its own submissions")
        elif not _LABEL_KEY.match(key):
            fail(path, "label keys are 1-63 characters of lowercase letters, digits, '_' and '-', starting with a letter")
        if isinstance(value, str) and not k.is_unknown(value) and not label_value_ok(value):
            fail(
                path,
                "label values are at most 63 characters of lowercase letters (any script), digits, '_' and '-'; "
                f"write e.g. {_label_value_hint(value)!r}",
            )


def label_value_ok(value: str) -> bool:
    """A Vertex label value: [\\p{Ll}\\p{Lo}\\p{N}_-]{0,63} (international characters allowed)."""
    return len(value) <= _LABEL_VALUE_MAX and all(
        c in "_-" or unicodedata.category(c) in ("Ll", "Lo") or unicodedata.category(c).startswith("N") for c in value
    )


def _label_value_hint(value: str) -> str:
    return "".join(c if label_value_ok(c) else "-" for c in value.lower())[:_LABEL_VALUE_MAX]


def _encryption(k: _Known, fail: Fail) -> None:
    encryption = k.get(k.inputs, "encryptionSpec", dict)
    if encryption is None:
        return
    key = k.text(encryption, "kmsKeyName")
    if key is None:
        if not k.has(encryption, "kmsKeyName"):
            fail("encryptionSpec.kmsKeyName", "is required when encryptionSpec is set")
        return
    match = _KMS_KEY.match(key)
    if not match:
        fail("encryptionSpec.kmsKeyName", "must look like projects/P/locations/L/keyRings/R/cryptoKeys/K")
    elif (location := k.text(k.inputs, "location")) and match.group(1) != location:
        fail("encryptionSpec.kmsKeyName", f"the key is in {match.group(1)!r}; Vertex AI needs a key in the job's location {location!r}")


def _pools(k: _Known, fail: Fail) -> None:
    if not k.has(k.inputs, "jobSpec"):
        return fail("jobSpec", "is required: the CustomJobSpec with workerPoolSpecs")
    spec = k.spec()
    pools = k.get(spec, "workerPoolSpecs", list)
    if k.is_unknown(spec.get("workerPoolSpecs")):
        return
    if not pools:
        return fail("jobSpec.workerPoolSpecs", "is required: at least one worker pool")
    if len(pools) > MAX_WORKER_POOLS:
        fail("jobSpec.workerPoolSpecs", f"has {len(pools)} pools; Vertex AI takes at most {MAX_WORKER_POOLS}")
    for i, pool in k.pools():
        path = f"jobSpec.workerPoolSpecs[{i}]"
        if not pool:
            if i == 0:
                fail(path, "the first worker pool (the chief) must not be empty")
            continue  # an empty pool only holds the position of a later one
        tasks = [t for t in ("containerSpec", "pythonPackageSpec") if k.has(pool, t)]
        if len(tasks) != 1:
            which = "both" if tasks else "neither"
            fail(path, f"needs exactly one of containerSpec or pythonPackageSpec, has {which}")
        if not k.has(k.get(pool, "machineSpec", dict), "machineType") and not k.is_unknown(pool.get("machineSpec")):
            fail(f"{path}.machineSpec.machineType", "is required")
        replicas = k.number(pool, "replicaCount")
        if replicas is not None and replicas < 0:
            fail(f"{path}.replicaCount", f"must not be negative, got {replicas}")
        elif i == 0 and replicas is not None and replicas != 1:
            fail(f"{path}.replicaCount", f"the first worker pool runs the chief and takes replicaCount 1, got {replicas}")


def _zero_replicas(k: _Known, fail: Fail) -> None:
    """A pool that is set must run at least one replica: Vertex refuses
    replicaCount 0 there. A pool to skip is written empty ({}), the placeholder
    the API documents ("All worker pools except the first one are optional and
    can be skipped by providing an empty value").
    https://docs.cloud.google.com/gemini-enterprise-agent-platform/reference/rest/Shared.Types/CustomJobSpec"""
    for i, pool in k.pools():
        if i > 0 and pool and k.number(pool, "replicaCount") == 0:
            fail(
                f"jobSpec.workerPoolSpecs[{i}].replicaCount",
                "must be at least 1; to leave this pool out, write the whole pool as {} (an empty placeholder)",
            )


# Boot disk options of a worker pool.
# https://cloud.google.com/vertex-ai/docs/training/configure-compute (boot disk type and size)
# https://docs.cloud.google.com/dotnet/docs/reference/Google.Cloud.AIPlatform.V1Beta1/latest/Google.Cloud.AIPlatform.V1Beta1.DiskSpec
# (valid types "pd-ssd", "pd-standard" or "hyperdisk-balanced"; default size 100GB)
BOOT_DISK_TYPES = ("pd-ssd", "pd-standard", "hyperdisk-balanced")
MIN_BOOT_DISK_GB = 100
MAX_BOOT_DISK_GB = 64000


def _disks(k: _Known, fail: Fail) -> None:
    for i, pool in k.pools():
        disk = k.get(pool, "diskSpec", dict)
        if disk is None:
            continue
        path = f"jobSpec.workerPoolSpecs[{i}].diskSpec"
        size = k.number(disk, "bootDiskSizeGb")
        if size is not None and size != 0 and not MIN_BOOT_DISK_GB <= size <= MAX_BOOT_DISK_GB:
            fail(
                f"{path}.bootDiskSizeGb",
                f"must be between {MIN_BOOT_DISK_GB} and {MAX_BOOT_DISK_GB} (GB), got {size}; leave it out for the default 100",
            )
        kind = k.text(disk, "bootDiskType")
        if kind is not None and kind not in BOOT_DISK_TYPES:
            hint = difflib.get_close_matches(kind, BOOT_DISK_TYPES, n=1)
            fail(
                f"{path}.bootDiskType",
                f"unknown boot disk type {kind!r}; expected one of {', '.join(BOOT_DISK_TYPES)}"
                + (f" (did you mean {hint[0]!r}?)" if hint else ""),
            )


def _tasks(k: _Known, fail: Fail) -> None:
    for i, pool in k.pools():
        path = f"jobSpec.workerPoolSpecs[{i}]"
        container = k.get(pool, "containerSpec", dict)
        if container is not None:
            if not k.has(container, "imageUri"):
                fail(f"{path}.containerSpec.imageUri", "is required")
            _env(k, container, f"{path}.containerSpec", fail)
        package = k.get(pool, "pythonPackageSpec", dict)
        if package is not None:
            _python_package(k, package, f"{path}.pythonPackageSpec", fail)


def _python_package(k: _Known, package: dict, path: str, fail: Fail) -> None:
    for key in ("executorImageUri", "pythonModule"):
        if not k.has(package, key):
            fail(f"{path}.{key}", "is required")
    uris = k.get(package, "packageUris", list)
    if not uris:
        if not k.is_unknown(package.get("packageUris")):
            fail(f"{path}.packageUris", "is required: at least one gs:// URI of the training package")
        return
    if len(uris) > MAX_PACKAGE_URIS:
        fail(f"{path}.packageUris", f"has {len(uris)} URIs; Vertex AI takes at most {MAX_PACKAGE_URIS}")
    for j, uri in enumerate(uris):
        if isinstance(uri, str) and not k.is_unknown(uri) and not _GCS_OBJECT.match(uri):
            fail(f"{path}.packageUris[{j}]", f"must be a Cloud Storage object URI gs://BUCKET/OBJECT, got {uri!r}")
    _env(k, package, path, fail)


def _env(k: _Known, task: dict, path: str, fail: Fail) -> None:
    seen: set[str] = set()
    for j, var in enumerate(k.get(task, "env", list) or []):
        name = k.text(var, "name")
        if name is None:
            if isinstance(var, dict) and not k.has(var, "name"):
                fail(f"{path}.env[{j}].name", "is required")
            continue
        if not _ENV_NAME.match(name):
            fail(f"{path}.env[{j}].name", f"{name!r} is not a valid environment variable name")
        elif name in seen:
            fail(f"{path}.env[{j}].name", f"{name!r} is set twice")
        seen.add(name)


def _machines(k: _Known, fail: Fail) -> None:
    strategy = k.strategy()
    for i, pool in k.pools():
        machine = k.get(pool, "machineSpec", dict)
        if machine is None:
            continue
        path = f"jobSpec.workerPoolSpecs[{i}].machineSpec"
        count = k.number(machine, "acceleratorCount")
        has_type = k.has(machine, "acceleratorType")
        if count is not None and count < 0:
            fail(f"{path}.acceleratorCount", f"must not be negative, got {count}")
        elif count and not has_type:
            fail(f"{path}.acceleratorType", "is required when acceleratorCount is set")
        elif has_type and not count and not k.has(machine, "acceleratorCount"):
            fail(f"{path}.acceleratorCount", "is required when acceleratorType is set")
        elif has_type and count == 0:
            fail(f"{path}.acceleratorCount", "must be at least 1 when acceleratorType is set")
        topology = k.text(machine, "tpuTopology")
        if topology is not None and not _TPU_TOPOLOGY.match(topology):
            fail(f"{path}.tpuTopology", f"must look like '2x2' or '2x2x1', got {topology!r}")
        elif strategy == "SPOT" and _is_tpu_pod(k, machine, topology):
            fail(
                f"{path}.tpuTopology" if topology else path,
                "TPU Pods (multi-host TPU slices) cannot run on Spot VMs; use a single-host slice or scheduling.strategy STANDARD",
            )


def _is_tpu_pod(k: _Known, machine: dict, topology: str | None) -> bool:
    # Google's table of machine types and chips per host, not a name pattern:
    # tpu7x-standard-4t with 2x2x1 is one host. A machine type the table does
    # not know is left to Google to judge.
    # https://cloud.google.com/vertex-ai/docs/training/configure-compute#tpu
    machine_type = k.text(machine, "machineType") or ""
    return bool(tpu_machines.is_multi_host(machine_type, topology, k.number(machine, "acceleratorCount")))


def _scheduling(k: _Known, fail: Fail) -> None:
    scheduling = k.get(k.spec(), "scheduling", dict) or {}
    strategy = k.text(scheduling, "strategy")
    if strategy in _DEPRECATED_STRATEGIES:
        fail("jobSpec.scheduling.strategy", f"{strategy} {_DEPRECATED_STRATEGIES[strategy]}")
    timeout = k.text(scheduling, "timeout")
    if timeout and _DURATION.match(timeout) and duration_seconds(timeout) <= 0:
        fail("jobSpec.scheduling.timeout", "must be longer than 0s")
    if k.has(scheduling, "maxWaitDuration") and k.strategy() not in (None, "FLEX_START"):
        fail(
            "jobSpec.scheduling.maxWaitDuration",
            f"only applies to strategy FLEX_START; the strategy here is {k.strategy()}",
        )
    # "Use Spot VMs for training": Spot VMs are for serverless training only.
    # https://cloud.google.com/vertex-ai/docs/training/use-spot-vms
    if k.strategy() == "SPOT" and k.has(k.spec(), "persistentResourceId"):
        fail(
            "jobSpec.persistentResourceId",
            "Spot VMs run only on serverless training, not on a persistent resource; "
            "use scheduling.strategy STANDARD on the persistent resource, or drop persistentResourceId to run on Spot",
        )


def _references(k: _Known, fail: Fail) -> None:
    spec = k.spec()
    output = k.get(spec, "baseOutputDirectory", dict)
    if output is not None:
        prefix = k.text(output, "outputUriPrefix")
        if prefix is None and not k.has(output, "outputUriPrefix"):
            fail("jobSpec.baseOutputDirectory.outputUriPrefix", "is required when baseOutputDirectory is set")
        elif prefix is not None and not _GCS_URI.match(prefix):
            fail("jobSpec.baseOutputDirectory.outputUriPrefix", f"must be a gs:// URI, got {prefix!r}")
    account = k.text(spec, "serviceAccount")
    if account is not None and not _EMAIL.match(account):
        fail("jobSpec.serviceAccount", f"must be a service account email, got {account!r}")
    network = k.text(spec, "network")
    if network is not None and not _NETWORK.match(network):
        fail("jobSpec.network", "must look like projects/PROJECT_NUMBER/global/networks/NETWORK")
    board = k.text(spec, "tensorboard")
    if board is not None:
        match = _TENSORBOARD.match(board)
        if not match:
            fail("jobSpec.tensorboard", "must look like projects/P/locations/L/tensorboards/T")
        elif (location := k.text(k.inputs, "location")) and match.group(1) != location:
            fail("jobSpec.tensorboard", f"the TensorBoard is in {match.group(1)!r}, the job in {location!r}")


def _knobs(k: _Known, fail: Fail) -> None:
    for key in ("waitTimeout", "deleteTimeout"):
        timeout = k.text(k.inputs, key)
        if not timeout or not _DURATION.match(timeout):
            continue
        if duration_seconds(timeout) <= 0:
            fail(key, "must be longer than 0s")
        elif duration_seconds(timeout) > MAX_BLOCKING_SECONDS:
            fail(
                key,
                f"is {timeout}; at most {MAX_BLOCKING_SECONDS}s: the dynamic provider host has 4 threads "
                "for all resources, and a longer wait would stall the whole `pulumi up`",
            )


def _resubmission(k: _Known, fail: Fail) -> None:
    policy = k.get(k.inputs, "resubmission", dict)
    if policy is None:
        return
    limit = k.number(policy, "maxResubmissions")
    if limit is not None and not 0 <= limit <= MAX_RESUBMISSIONS:
        fail("resubmission.maxResubmissions", f"must be between 0 and {MAX_RESUBMISSIONS}, got {limit}")
    rungs = [(i, r) for i, r in enumerate(k.get(policy, "fallback", list) or []) if isinstance(r, dict)]
    if rungs and k.strategy() not in (None, "SPOT"):
        fail("resubmission.fallback", f"falls back from SPOT; the strategy here is already {k.strategy()}")
    previous = 0
    for i, rung in rungs:
        path = f"resubmission.fallback[{i}]"
        after = k.number(rung, "afterStockouts")
        if after is None:
            if not k.has(rung, "afterStockouts"):
                fail(f"{path}.afterStockouts", "is required: after how many STOCKOUT failures this rung applies")
        elif after <= previous:
            fail(f"{path}.afterStockouts", f"must be more than {previous} (each rung comes after the one before)")
        else:
            previous = after
        if not k.has(rung, "strategy"):
            fail(f"{path}.strategy", "is required: FLEX_START, STANDARD or auto")
        elif k.text(rung, "strategy") == "FLEX_START" and _machines_known(k) and not flex_start_qualifies(k.inputs):
            why = "; ".join(f"{p}: {r}" for p, r in flex_start_problems(k.inputs))
            fail(
                f"{path}.strategy",
                f"this job cannot run on FLEX_START ({why}); use STANDARD, or auto to pick FLEX_START only where it applies",
            )


def _machines_known(k: _Known) -> bool:
    """Whether every pool's accelerator is known (a preview may not know it yet)."""
    return all(
        not k.is_unknown(pool.get("machineSpec"))
        and not any(k.is_unknown(v) for v in (k.get(pool, "machineSpec", dict) or {}).values())
        for _, pool in k.pools()
    )


def _flex_start(k: _Known, fail: Fail) -> None:
    # https://cloud.google.com/vertex-ai/docs/training/schedule-jobs-dws
    if k.strategy() == "FLEX_START" and _machines_known(k):
        for path, reason in flex_start_problems(k.inputs):
            fail(path, f"{reason}; or use scheduling.strategy SPOT or STANDARD")


# Spot VMs cannot consume reservations: "All Spot VMs limitations apply when
# using Spot VMs with Vertex AI", and Compute Engine's Spot VMs do not consume
# reserved capacity; a reservation is consumed by STANDARD (on-demand) jobs.
# NO_RESERVATION says the same as no affinity and is accepted.
# https://cloud.google.com/vertex-ai/docs/training/use-spot-vms
# https://cloud.google.com/compute/docs/instances/spot#limitations
# https://cloud.google.com/vertex-ai/docs/training/use-reservations
_CONSUMING_AFFINITIES = ("ANY_RESERVATION", "SPECIFIC_RESERVATION")


def _spot_reservation(k: _Known, fail: Fail) -> None:
    if k.strategy() != "SPOT":
        return
    for i, pool in k.pools():
        affinity = k.get(k.get(pool, "machineSpec", dict), "reservationAffinity", dict)
        kind = k.text(affinity, "reservationAffinityType")
        if kind in _CONSUMING_AFFINITIES:
            fail(
                f"jobSpec.workerPoolSpecs[{i}].machineSpec.reservationAffinity.reservationAffinityType",
                f"{kind} cannot be used with Spot VMs (a Spot VM consumes no reservation); "
                "remove reservationAffinity to run on Spot, or use scheduling.strategy STANDARD to consume the reservation",
            )


# TPU training on Vertex AI runs on one worker pool with one replica: the
# slice's hosts are the job's machines, so no second pool and no replicaCount
# above 1 (a multi-host slice is asked for with tpuTopology, not replicas).
# https://cloud.google.com/vertex-ai/docs/training/configure-compute#tpu
def _tpu_single_pool(k: _Known, fail: Fail) -> None:
    pools = [(i, p) for i, p in k.pools() if p]
    tpu = [i for i, p in pools if _is_tpu_pool(k, p)]
    if not tpu:
        return
    if len(pools) > 1:
        extra = next(i for i, _ in pools if i != pools[0][0])
        fail(
            f"jobSpec.workerPoolSpecs[{extra}]",
            "a TPU job takes exactly one worker pool; remove the other pools "
            "and size the slice with machineSpec.tpuTopology",
        )
    for i, pool in pools:
        replicas = k.number(pool, "replicaCount")
        if i in tpu and replicas is not None and replicas > 1:
            fail(
                f"jobSpec.workerPoolSpecs[{i}].replicaCount",
                f"a TPU worker pool takes replicaCount 1, got {replicas}; size the slice with machineSpec.tpuTopology",
            )


def _is_tpu_pool(k: _Known, pool: dict) -> bool:
    machine = k.get(pool, "machineSpec", dict) or {}
    return (
        tpu_machines.is_tpu_machine(k.text(machine, "machineType") or "")
        or (k.text(machine, "acceleratorType") or "").startswith("TPU_")
        or k.has(machine, "tpuTopology")
    )


_RULES = (
    _required_place,
    _display_name,
    _labels,
    _encryption,
    _pools,
    _zero_replicas,
    _disks,
    _tasks,
    _machines,
    _scheduling,
    _references,
    _knobs,
    _resubmission,
    _flex_start,
    _spot_reservation,
    _tpu_single_pool,
)


# --- canonical form --------------------------------------------------------


def _with_defaults(inputs: dict[str, Any]) -> dict[str, Any]:
    job = json.loads(json.dumps(inputs))  # a deep copy that also rejects non-JSON values
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
    if kind == schema.DURATION and isinstance(value, str) and (match := _DURATION.match(value)):
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


def as_int(value: Any) -> int | None:
    """A whole number however it arrives: 1, "1" (REST writes int64 as a string)
    or 1.0 (Pulumi's wire format carries every number as a double)."""
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value
    if isinstance(value, float) and value.is_integer():
        return int(value)
    if isinstance(value, str) and re.fullmatch(r"-?\d+", value):
        return int(value)
    return None


def _stable_json(value: Any) -> str:
    return json.dumps(value, sort_keys=True, separators=(",", ":"))


def _join(path: str, key: str) -> str:
    return f"{path}.{key}" if path else key


def _type_name(value: Any) -> str:
    return {dict: "an object", list: "a list", str: "a string", bool: "a boolean"}.get(type(value), type(value).__name__)
