"""Data residency: where jobs run and where the training data and images live.

`spot-training:policy.allowedLocations` in the stack's own file (stack_settings.py)
lists the regions allowed; absent, every region is. A SpotTrainingJob can run in
its own `location` and in the `location` of any `resubmission.fallback` rung (a
region ladder moves a later attempt elsewhere after stockouts), so each of those
is checked. A team's staging bucket (whose `location` Google writes upper-case,
US-CENTRAL1) and its Artifact Registry repository hold the data and the images
the jobs read: their `location` is checked too. Case does not matter.
"""

from __future__ import annotations

import stack_settings
from buckets import BUCKET
from jobs import JOB, by_config_path
from pulumi_policy import EnforcementLevel, ResourceValidationPolicy, Severity
from support import items, mapping, of_types

REPOSITORY = "gcp:artifactregistry/repository:Repository"


def _where(settings: stack_settings.StackSettings) -> str:
    return (
        f"stack {settings.stack} allows {', '.join(settings.allowed_locations or ())} "
        f"({stack_settings.KEY}.allowedLocations in {settings.source})"
    )


def _places(args) -> list[tuple[str, object, str]]:
    """(path, location, what to do instead) of each place the resource is or can run."""
    props = args.props
    if args.resource_type == JOB:
        places = [("location", props.get("location"), "run the job in one of those")]
        for i, rung in enumerate(items(mapping(props.get("resubmission")).get("fallback"))):
            location = mapping(rung).get("location")
            if location is not None:
                places.append((
                    f"resubmission.fallback[{i}].location",
                    location,
                    "remove the rung or move it to one of those",
                ))
        return places
    what = "the bucket" if args.resource_type == BUCKET else "the repository"
    return [("location", props.get("location"), f"put {what} in one of those (a new location replaces it)")]


def _allowed_locations(args, report_violation) -> None:
    settings = stack_settings.for_urn(args.urn)
    for message in settings.errors_for("allowedLocations"):
        report_violation(message)
    if settings.allowed_locations is None:
        return
    for path, location, fix in _places(args):
        if location is None:
            continue  # the provider's default region; the stack always sets it
        if not isinstance(location, str) or not settings.location_allowed(location):
            report_violation(
                f"{path} is {location}; {_where(settings)}: {fix}, or allow {location} for the stack there"
            )


POLICIES = [
    ResourceValidationPolicy(
        name="residency-allowed-locations",
        description=(
            "Data residency: training jobs run, and staging buckets and Artifact Registry repositories are, only in "
            "the regions the stack allows (spot-training:policy.allowedLocations; absent, every region): a job's "
            "location and the location of each of its resubmission.fallback rungs (a region ladder), a bucket's or "
            "repository's location, compared case-insensitively."
        ),
        validate=of_types((JOB, BUCKET, REPOSITORY), by_config_path(_allowed_locations)),
        enforcement_level=EnforcementLevel.MANDATORY,
        severity=Severity.HIGH,
        tags=["compliance", "data-residency", "vertex-ai", "storage", "artifact-registry"],
    ),
]
