"""Spot training jobs (the SpotTrainingJob dynamic resource): strategy, pinned images, labels, CMEK.

A job's props are the Vertex REST shape the stack writes: `displayName`,
`labels`, `encryptionSpec.kmsKeyName`, `jobSpec` (a CustomJobSpec:
`workerPoolSpecs[i].containerSpec.imageUri`, `scheduling.strategy`, ...) and
the provider's lifecycle keys (`resubmission.fallback[i].strategy`, ...).
"""

from __future__ import annotations

import re

from pulumi_policy import EnforcementLevel, ResourceValidationPolicy, Severity
from pulumi_policy.proxy import UnknownValueError

import stack_settings
from support import items, mapping, of_types

JOB = "pulumi-python:dynamic/spot-training:SpotTrainingJob"
DEFAULT_STRATEGY = "SPOT"  # a job without scheduling.strategy runs on Spot
REQUIRED_LABELS = ("team", "environment")
_PINNED = re.compile(r"^[^\s@]+@sha256:[0-9a-f]{64}$")


def _spot_strategy(args, report_violation) -> None:
    settings = stack_settings.for_urn(args.urn)
    for message in settings.errors_for("allowedStrategies"):
        report_violation(message)
    allowed = settings.allowed_strategies
    where = (
        f"stack {settings.stack} allows {', '.join(allowed)} "
        f"({stack_settings.KEY}.allowedStrategies in {settings.source})"
    )
    spec = mapping(args.props.get("jobSpec"))
    strategy = mapping(spec.get("scheduling")).get("strategy") or DEFAULT_STRATEGY
    if strategy not in allowed:
        report_violation(
            f"jobSpec.scheduling.strategy is {strategy}; {where}: set jobSpec.scheduling.strategy to one of "
            f"those, or allow {strategy} for the stack there"
        )
    for i, rung in enumerate(items(mapping(args.props.get("resubmission")).get("fallback"))):
        declared = mapping(rung).get("strategy")
        effective = _auto_strategy(spec) if declared == "auto" else declared
        if effective not in allowed:
            shown = f"auto, {effective} for this job (not every worker pool has NVIDIA GPUs)" if declared == "auto" else declared
            report_violation(
                f"resubmission.fallback[{i}].strategy is {shown}; {where}: remove the rung, give it an allowed "
                f"strategy, or allow {effective} for the stack there"
            )


def _auto_strategy(spec) -> str:
    """What the provider resolves a fallback rung `auto` to (components/spot_job/spec.py:
    flex_start_qualifies): FLEX_START where every worker pool has NVIDIA GPUs, else STANDARD."""
    pools = [mapping(p) for p in items(spec.get("workerPoolSpecs")) if mapping(p)]

    def gpus(pool) -> bool:
        machine = mapping(pool.get("machineSpec"))
        count = machine.get("acceleratorCount")
        return str(machine.get("acceleratorType") or "").startswith("NVIDIA_") and isinstance(count, (int, float)) and count > 0

    return "FLEX_START" if pools and all(gpus(p) for p in pools) else "STANDARD"


def _image_pinned(args, report_violation) -> None:
    try:
        pools = items(mapping(args.props.get("jobSpec")).get("workerPoolSpecs"))
    except UnknownValueError:
        return  # the whole spec is computed; it is checked when `up` knows it
    for i, pool in enumerate(pools):
        try:
            container = mapping(pool).get("containerSpec")
            if container is None:
                continue  # a pythonPackageSpec pool, or an empty {} slot
            uri = mapping(container).get("imageUri")
        except UnknownValueError:
            continue  # a digest still being resolved (a pinned or a built image): known, and checked, at `up`
        if not (isinstance(uri, str) and _PINNED.match(uri)):
            shown = "not set" if uri is None else f'"{uri}"'
            report_violation(
                f"jobSpec.workerPoolSpecs[{i}].containerSpec.imageUri is {shown}, not pinned by digest: refer to a "
                'team image ("${images.<key>}" in the stack config, resolved to name@sha256:...), or write '
                "the image as <repository>/<name>@sha256:<64 hex digits>"
            )


def _labels(args, report_violation) -> None:
    labels = mapping(args.props.get("labels"))
    for key in REQUIRED_LABELS:
        value = labels.get(key)
        if not (isinstance(value, str) and value.strip()):
            state = "missing" if value is None else "empty"
            report_violation(
                f"labels.{key} is {state}: every job carries labels team and environment (the stack sets them on "
                f"each job; a job built in code needs labels={{'team': ..., 'environment': ...}})"
            )


def _cmek(args, report_violation) -> None:
    settings = stack_settings.for_urn(args.urn)
    for message in settings.errors_for("requireCmek"):
        report_violation(message)
    if not settings.require_cmek:
        return
    key = mapping(args.props.get("encryptionSpec")).get("kmsKeyName")
    if not (isinstance(key, str) and key.strip()):
        report_violation(
            f"encryptionSpec.kmsKeyName is not set; stack {settings.stack} requires CMEK "
            f"({stack_settings.KEY}.requireCmek in {settings.source}): give the job "
            "encryptionSpec: {kmsKeyName: projects/<project>/locations/<region>/keyRings/<ring>/cryptoKeys/<key>}"
        )


POLICIES = [
    ResourceValidationPolicy(
        name="job-spot-strategy",
        description=(
            "Training jobs run on SPOT or FLEX_START capacity, and so do their fallback rungs, unless the stack "
            "allows more (spot-training:policy.allowedStrategies); STANDARD is on-demand, at full price (cost)."
        ),
        validate=of_types((JOB,), _spot_strategy),
        enforcement_level=EnforcementLevel.ADVISORY,
        severity=Severity.MEDIUM,
        tags=["cost", "vertex-ai"],
    ),
    ResourceValidationPolicy(
        name="job-image-pinned",
        description=(
            "Every containerSpec.imageUri of a training job is pinned by digest (@sha256:...), so a job runs the "
            "image it was reviewed with and a push under the same tag is a visible change. Google's prebuilt "
            "executor images (pythonPackageSpec.executorImageUri, e.g. .../sklearn-cpu.1-6:latest) are exempt: "
            "Google-managed, and versioned by name (framework and version)."
        ),
        validate=of_types((JOB,), _image_pinned),
        enforcement_level=EnforcementLevel.MANDATORY,
        severity=Severity.HIGH,
        tags=["security", "supply-chain", "vertex-ai"],
    ),
    ResourceValidationPolicy(
        name="job-labels",
        description="Training jobs carry non-empty labels team and environment (cost attribution, ownership).",
        validate=of_types((JOB,), _labels),
        enforcement_level=EnforcementLevel.MANDATORY,
        severity=Severity.LOW,
        tags=["governance", "vertex-ai"],
    ),
    ResourceValidationPolicy(
        name="job-cmek",
        description=(
            "Training jobs set encryptionSpec.kmsKeyName (a customer-managed key) where the stack requires CMEK "
            "(spot-training:policy.requireCmek)."
        ),
        validate=of_types((JOB,), _cmek),
        enforcement_level=EnforcementLevel.MANDATORY,
        severity=Severity.HIGH,
        tags=["security", "encryption", "vertex-ai"],
    ),
]
