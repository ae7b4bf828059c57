"""IAM: no basic roles, no project-wide service account impersonation, no service account keys."""

from __future__ import annotations

import members
from artifact_registry import REPOSITORY_IAM
from buckets import BUCKET_IAM
from pulumi_policy import EnforcementLevel, ResourceValidationPolicy, Severity
from pulumi_policy.proxy import UnknownValueError
from support import cis, of_types

PROJECT_IAM = (
    "gcp:projects/iAMMember:IAMMember",
    "gcp:projects/iAMBinding:IAMBinding",
    "gcp:projects/iAMPolicy:IAMPolicy",
)
SERVICE_ACCOUNT_IAM = (
    "gcp:serviceaccount/iAMMember:IAMMember",
    "gcp:serviceaccount/iAMBinding:IAMBinding",
    "gcp:serviceaccount/iAMPolicy:IAMPolicy",
)
# Every IAM resource of the families the stacks grant on.
ALL_IAM = PROJECT_IAM + SERVICE_ACCOUNT_IAM + BUCKET_IAM + REPOSITORY_IAM
SERVICE_ACCOUNT_KEY = "gcp:serviceaccount/key:Key"

BASIC_ROLES = ("roles/owner", "roles/editor", "roles/viewer")
# Either lets its holder act as every service account of the project when granted on the project.
IMPERSONATION_ROLES = ("roles/iam.serviceAccountUser", "roles/iam.serviceAccountTokenCreator")


def _no_basic_roles(args, report_violation) -> None:
    for role, field in members.roles(args.resource_type, args.props):
        if role in BASIC_ROLES:
            report_violation(
                f"{field} is {role}, a basic role (thousands of permissions across every service): grant the "
                "predefined role with only the permissions needed instead (e.g. roles/storage.objectViewer, "
                "roles/artifactregistry.reader, roles/logging.logWriter)"
            )


def _no_project_impersonation(args, report_violation) -> None:
    for role, field in members.roles(args.resource_type, args.props):
        if role in IMPERSONATION_ROLES:
            report_violation(
                f"{field} is {role} at project level: it lets the member act as every service account in the "
                "project; grant it on the one service account instead (gcp:serviceaccount/iAMMember:IAMMember, "
                "as TrainingServiceAccount does for deployers and members)"
            )


def _no_keys(args, report_violation) -> None:
    try:
        account = args.props.get("serviceAccountId") or "?"
    except UnknownValueError:
        account = "(known after deploy)"
    report_violation(
        f"serviceAccountId {account}: a gcp:serviceaccount/key:Key is a user-managed, long-lived credential; "
        "remove the Key and run as the account through its attachment (Vertex AI jobs use serviceAccount), "
        "workload identity, or short-lived impersonation (roles/iam.serviceAccountTokenCreator on the account)"
    )


POLICIES = [
    ResourceValidationPolicy(
        name="iam-no-basic-roles",
        description=(
            "No basic role (roles/owner, roles/editor, roles/viewer) in an IAM member, binding or policy of a "
            "project, service account, bucket or repository (CIS GCP 1.5; checkov CKV_GCP_117, CKV_GCP_42)."
        ),
        validate=of_types(ALL_IAM, _no_basic_roles),
        enforcement_level=EnforcementLevel.MANDATORY,
        severity=Severity.HIGH,
        framework=cis("1.5"),
        tags=["security", "iam"],
    ),
    ResourceValidationPolicy(
        name="iam-no-project-impersonation",
        description=(
            "No roles/iam.serviceAccountUser or roles/iam.serviceAccountTokenCreator granted at project level "
            "(CIS GCP 1.6; checkov CKV_GCP_41, CKV_GCP_49)."
        ),
        validate=of_types(PROJECT_IAM, _no_project_impersonation),
        enforcement_level=EnforcementLevel.MANDATORY,
        severity=Severity.HIGH,
        framework=cis("1.6"),
        tags=["security", "iam"],
    ),
    ResourceValidationPolicy(
        name="iam-no-service-account-keys",
        description="No user-managed service account keys, gcp:serviceaccount/key:Key (CIS GCP 1.4).",
        validate=of_types((SERVICE_ACCOUNT_KEY,), _no_keys),
        enforcement_level=EnforcementLevel.MANDATORY,
        severity=Severity.HIGH,
        framework=cis("1.4"),
        tags=["security", "iam"],
    ),
]
