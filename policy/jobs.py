"""Spot training jobs (the SpotTrainingJob dynamic resource): strategy, pinned images, labels, CMEK.

A job's props are the Vertex REST shape the stack writes: `displayName`,
`labels`, `encryptionSpec.kmsKeyName`, `jobSpec` (a CustomJobSpec:
`workerPoolSpecs[i].containerSpec.imageUri`, `scheduling.strategy`, ...) and
the provider's lifecycle keys (`resubmission.fallback[i].strategy`, ...).
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

import credentials
import stack_settings
from pulumi_policy import EnforcementLevel, ResourceValidationPolicy, Severity
from pulumi_policy.proxy import UnknownValueError
from support import Validation, items, mapping, of_types

JOB = "pulumi-python:dynamic/spot-training:SpotTrainingJob"
DEFAULT_STRATEGY = "SPOT"  # a job without scheduling.strategy runs on Spot
REQUIRED_LABELS = ("team", "environment")
_PINNED = re.compile(r"^[^\s@]+@sha256:[0-9a-f]{64}$")
# Google's prebuilt training containers, as its Spot example puts one in containerSpec.imageUri
# (us-docker.pkg.dev/vertex-ai/training/tf-cpu.2-17.py310:latest): Google-managed and versioned by name,
# exempt as the prebuilt executor images of pythonPackageSpec are. The hosts and repository are the ones
# https://cloud.google.com/vertex-ai/docs/training/pre-built-containers lists (us-, europe-, asia-docker.pkg.dev).
_GOOGLE_PREBUILT = re.compile(r"^(?:us|europe|asia)-docker\.pkg\.dev/vertex-ai/training/[^\s/]+$")
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
        if declared is None:
            # A rung that only moves the attempt ({afterStockouts, location}: a region ladder) keeps a
            # strategy already checked here, the job's own or an earlier rung's.
            continue
        effective = _auto_strategy(spec) if declared == "auto" else declared
        if effective not in allowed:
            shown = f"auto, {effective} for this job (not every worker pool has NVIDIA GPUs)" if declared == "auto" else declared
            report_violation(
                f"resubmission.fallback[{i}].strategy is {shown}; {where}: remove the rung, give it an allowed "
                f"strategy, or allow {effective} for the stack there"
            )


# What Dynamic Workload Scheduler takes on Vertex training: L4, A100, H100,
# H200 or B200 GPUs, the same machine in every pool, timeout 7 days or less, no
# reservation. Mirrors components/spot_job/model/spec.py FLEX_START_GPUS.
# https://cloud.google.com/vertex-ai/docs/training/schedule-jobs-dws
_FLEX_START_GPUS = (
    "NVIDIA_L4",
    "NVIDIA_TESLA_A100",
    "NVIDIA_A100_80GB",
    "NVIDIA_H100_80GB",
    "NVIDIA_H100_MEGA_80GB",
    "NVIDIA_H200_141GB",
    "NVIDIA_B200",
)
_FLEX_START_MAX_TIMEOUT_SECONDS = 7 * 24 * 3600


def _auto_strategy(spec) -> str:
    """What the provider resolves a fallback rung `auto` to (components/spot_job/model/spec.py:
    flex_start_qualifies): FLEX_START where Dynamic Workload Scheduler takes the job, else STANDARD."""
    pools = [mapping(p) for p in items(spec.get("workerPoolSpecs")) if mapping(p)]

    def config(pool):
        machine = mapping(pool.get("machineSpec"))
        count = machine.get("acceleratorCount")
        return (machine.get("machineType"), machine.get("acceleratorType"), int(count) if isinstance(count, (int, float)) else count)

    def fits(pool) -> bool:
        machine = mapping(pool.get("machineSpec"))
        count = machine.get("acceleratorCount")
        return (
            machine.get("acceleratorType") in _FLEX_START_GPUS
            and isinstance(count, (int, float))
            and count > 0
            # NO_RESERVATION consumes none, so Flex-start takes it (issue 23.12)
            and mapping(machine.get("reservationAffinity")).get("reservationAffinityType") not in ("ANY_RESERVATION", "SPECIFIC_RESERVATION")
        )

    timeout = str(mapping(spec.get("scheduling")).get("timeout") or "")
    try:
        long_timeout = timeout.endswith("s") and float(timeout[:-1]) > _FLEX_START_MAX_TIMEOUT_SECONDS
    except ValueError:
        long_timeout = False
    qualifies = bool(pools) and all(fits(p) for p in pools) and len({config(p) for p in pools}) == 1 and not long_timeout
    return "FLEX_START" if qualifies else "STANDARD"


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
        if isinstance(uri, str) and _GOOGLE_PREBUILT.match(uri):
            continue
        if not (isinstance(uri, str) and _PINNED.match(uri)):
            shown = "not set" if uri is None else f'"{uri}"'
            report_violation(
                f"jobSpec.workerPoolSpecs[{i}].containerSpec.imageUri is {shown}, not pinned by digest: refer to a "
                'team image ("${images.<key>}" in the stack config, resolved to name@sha256:...), or write '
                "the image as <repository>/<name>@sha256:<64 hex digits> (Google's prebuilt training images, "
                "{us,europe,asia}-docker.pkg.dev/vertex-ai/training/<name>:<tag>, are exempt as written)"
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


def _envs(spec) -> Iterator[tuple[str, list[tuple[int, Any, Any]]]]:
    """Each known env list of the spec's pools: (its path, [(index, name, value)] of its known entries).
    A part computed at deploy time is skipped: it is checked when `up` knows it."""
    try:
        pools = items(spec.get("workerPoolSpecs"))
    except UnknownValueError:
        return
    for i, pool in enumerate(pools):
        for task in ("containerSpec", "pythonPackageSpec"):
            try:
                env = items(mapping(mapping(pool).get(task)).get("env"))
            except UnknownValueError:
                continue
            known = []
            for j, var in enumerate(env):
                try:
                    name = mapping(var).get("name")
                except UnknownValueError:
                    continue
                try:
                    value = mapping(var).get("value")
                except UnknownValueError:
                    value = None  # computed at deploy time
                known.append((j, name, value))
            yield f"jobSpec.workerPoolSpecs[{i}].{task}.env", known


def _no_credentials_in_env(args, report_violation) -> None:
    try:
        spec = mapping(args.props.get("jobSpec"))
    except UnknownValueError:
        return  # the whole spec is computed; it is checked when `up` knows it
    # Never quote the value: this message is printed in every preview.
    for path, reason in credentials.findings(spec, UnknownValueError):
        report_violation(f"{path} {reason}: {credentials.ADVICE}")


# The fields of a job a message may start with, as the program registers them.
_JOB_FIELDS = ("jobSpec.", "resubmission.", "labels.", "encryptionSpec.", "displayName")


def by_config_path(validate: Validation) -> Validation:
    """`validate`, its messages naming the stack file's config path instead of the job's field path when
    the job is an entry of that file (`spot-training:teams.vision.jobs.resnet.workerPoolSpecs[0]...` for
    `jobSpec.workerPoolSpecs[0]...`): that is where it is fixed. A job built in code keeps its field path."""

    def validation(args, report_violation) -> None:
        where = stack_settings.for_urn(args.urn).config_path(_team(args), args.name) if args.resource_type == JOB else None
        if where is None:
            return validate(args, report_violation)

        def report(message: str, urn: str | None = None) -> None:
            if message.startswith(_JOB_FIELDS):
                message = f"{where}.{message.removeprefix('jobSpec.')}"
            report_violation(message, urn)

        return validate(args, report)

    return validation


def _team(args) -> str:
    try:
        team = mapping(args.props.get("labels")).get("team")
    except UnknownValueError:
        return ""
    return team if isinstance(team, str) else ""


def _spec_advice(args, report_violation) -> None:
    """What Vertex takes but most likely is not meant: this project's own advice, no rule of Google's
    (docs/rules.md, "The project's own choices"), so it lives here and not among the resource's rules."""
    try:
        spec = mapping(args.props.get("jobSpec"))
    except UnknownValueError:
        return  # the whole spec is computed; it is checked when `up` knows it
    for path, env in _envs(spec):
        seen: set[str] = set()
        for j, name, _ in env:
            if isinstance(name, str) and name in seen:
                report_violation(
                    f"{path}[{j}] sets {name} a second time; the API documents no order between the two: set it once"
                )
            if isinstance(name, str):
                seen.add(name)
    # maxWaitDuration off FLEX_START is no longer advice: the resource's rules refuse it (rules/scheduling.py).
    try:
        board, location = spec.get("tensorboard"), args.props.get("location")
    except UnknownValueError:
        return
    match = re.match(r"^projects/[^/]+/locations/([^/]+)/tensorboards/[^/]+$", board) if isinstance(board, str) else None
    if match and isinstance(location, str) and match.group(1) != location:
        report_violation(
            f"jobSpec.tensorboard is in {match.group(1)}, the job in {location}: a job writes to a TensorBoard of "
            "its own region"
        )


POLICIES = [
    ResourceValidationPolicy(
        name="job-spot-strategy",
        description=(
            "Training jobs run on SPOT or FLEX_START capacity, and so do their fallback rungs, unless the stack "
            "allows more (spot-training:policy.allowedStrategies); STANDARD is on-demand, at full price (cost)."
        ),
        validate=of_types((JOB,), by_config_path(_spot_strategy)),
        enforcement_level=EnforcementLevel.ADVISORY,
        severity=Severity.MEDIUM,
        tags=["cost", "vertex-ai"],
    ),
    ResourceValidationPolicy(
        name="job-image-pinned",
        description=(
            "Every containerSpec.imageUri of a training job is pinned by digest (@sha256:...), so a job runs the "
            "image it was reviewed with and a push under the same tag is a visible change. Google's prebuilt "
            "images (pythonPackageSpec.executorImageUri, e.g. .../sklearn-cpu.1-6:latest, and a containerSpec.imageUri "
            "under {us,europe,asia}-docker.pkg.dev/vertex-ai/training/, as Google's Spot example writes) are exempt: "
            "Google-managed, and versioned by name (framework and version)."
        ),
        validate=of_types((JOB,), by_config_path(_image_pinned)),
        enforcement_level=EnforcementLevel.MANDATORY,
        severity=Severity.HIGH,
        tags=["security", "supply-chain", "vertex-ai"],
    ),
    ResourceValidationPolicy(
        name="job-labels",
        description="Training jobs carry non-empty labels team and environment (cost attribution, ownership).",
        validate=of_types((JOB,), by_config_path(_labels)),
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
        validate=of_types((JOB,), by_config_path(_cmek)),
        enforcement_level=EnforcementLevel.MANDATORY,
        severity=Severity.HIGH,
        tags=["security", "encryption", "vertex-ai"],
    ),
    ResourceValidationPolicy(
        name="job-env-no-credentials",
        description=(
            "No credential in a training job's env, args or command: a variable or flag named like one (TOKEN, "
            "PASSWORD, SECRET, API_KEY, ...) holds a Secret Manager resource name, not a literal, and no value looks "
            "like a well-known token (hf_, ghp_, AKIA, sk-, ...). A CustomJob's env, args and command are readable "
            "by anyone who may get the job; use the team's secrets: and ${secrets.NAME}."
        ),
        validate=of_types((JOB,), by_config_path(_no_credentials_in_env)),
        enforcement_level=EnforcementLevel.MANDATORY,
        severity=Severity.CRITICAL,
        tags=["security", "secrets", "vertex-ai"],
    ),
    ResourceValidationPolicy(
        name="job-spec-advice",
        description=(
            "What Vertex AI takes but a job most likely does not mean: an env variable set twice, a TensorBoard in "
            "another region than the job. spot-training's own advice, no rule of Google's."
        ),
        validate=of_types((JOB,), by_config_path(_spec_advice)),
        enforcement_level=EnforcementLevel.ADVISORY,
        severity=Severity.LOW,
        tags=["correctness", "vertex-ai"],
    ),
]
