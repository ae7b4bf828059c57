"""Cloud Storage buckets: uniform access, public access prevention, no public members."""

from __future__ import annotations

import json

import members
from pulumi_policy import EnforcementLevel, ResourceValidationPolicy, Severity
from support import cis, of_types

BUCKET = "gcp:storage/bucket:Bucket"
BUCKET_IAM = (
    "gcp:storage/bucketIAMMember:BucketIAMMember",
    "gcp:storage/bucketIAMBinding:BucketIAMBinding",
    "gcp:storage/bucketIAMPolicy:BucketIAMPolicy",
)


def _uniform_access(args, report_violation) -> None:
    value = args.props.get("uniformBucketLevelAccess")
    if value is not True:
        report_violation(
            f"uniformBucketLevelAccess is {_shown(value)}: set it to true (uniform_bucket_level_access=True), "
            "so access is granted by bucket IAM only, never by per-object ACLs (StagingBucket always sets it)"
        )


def _public_access_prevention(args, report_violation) -> None:
    value = args.props.get("publicAccessPrevention")
    if value != "enforced":
        report_violation(
            f"publicAccessPrevention is {_shown(value)}: set it to \"enforced\" (public_access_prevention=\"enforced\"), "
            "so no IAM grant or ACL can ever make the bucket's objects public (StagingBucket always sets it)"
        )


def _no_public_members(args, report_violation) -> None:
    for grant in members.grants(args.resource_type, args.props):
        if members.is_public(grant.member):
            report_violation(
                f"{grant.member_field} is {grant.member} (with {grant.role_field} {grant.role}): "
                "that makes the bucket's objects readable by anyone; grant the role to named members "
                "(a service account, a group) instead"
            )


def _shown(value) -> str:
    return "not set" if value is None else json.dumps(value)


POLICIES = [
    ResourceValidationPolicy(
        name="bucket-uniform-access",
        description="Cloud Storage buckets use uniform bucket-level access (CIS GCP 5.2; checkov CKV_GCP_29).",
        validate=of_types((BUCKET,), _uniform_access),
        enforcement_level=EnforcementLevel.MANDATORY,
        severity=Severity.HIGH,
        framework=cis("5.2"),
        tags=["security", "storage"],
    ),
    ResourceValidationPolicy(
        name="bucket-public-access-prevention",
        description="Cloud Storage buckets enforce public access prevention (checkov CKV_GCP_114; CIS GCP 5.1).",
        validate=of_types((BUCKET,), _public_access_prevention),
        enforcement_level=EnforcementLevel.MANDATORY,
        severity=Severity.HIGH,
        framework=cis("5.1"),
        tags=["security", "storage"],
    ),
    ResourceValidationPolicy(
        name="bucket-no-public-members",
        description=(
            "No bucket IAM grant to allUsers or allAuthenticatedUsers, in a BucketIAMMember, BucketIAMBinding "
            "or BucketIAMPolicy (CIS GCP 5.1; checkov CKV_GCP_28)."
        ),
        validate=of_types(BUCKET_IAM, _no_public_members),
        enforcement_level=EnforcementLevel.MANDATORY,
        severity=Severity.CRITICAL,
        framework=cis("5.1"),
        tags=["security", "storage", "iam"],
    ),
]
