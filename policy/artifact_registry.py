"""Artifact Registry repositories: no public readers of the teams' training images."""

from __future__ import annotations

import members
from pulumi_policy import EnforcementLevel, ResourceValidationPolicy, Severity
from support import of_types

REPOSITORY_IAM = (
    "gcp:artifactregistry/repositoryIamMember:RepositoryIamMember",
    "gcp:artifactregistry/repositoryIamBinding:RepositoryIamBinding",
    "gcp:artifactregistry/repositoryIamPolicy:RepositoryIamPolicy",
)


def _no_public_readers(args, report_violation) -> None:
    for grant in members.grants(args.resource_type, args.props):
        if members.is_public(grant.member):
            report_violation(
                f"{grant.member_field} is {grant.member} (with {grant.role_field} {grant.role}): "
                "that lets anyone pull the repository's images; grant the role to named members "
                "(the team's service account, the Vertex AI service agents, a group) instead"
            )


POLICIES = [
    ResourceValidationPolicy(
        name="artifact-registry-no-public-readers",
        description=(
            "No Artifact Registry repository IAM grant to allUsers or allAuthenticatedUsers, in a "
            "RepositoryIamMember, RepositoryIamBinding or RepositoryIamPolicy (checkov CKV_GCP_101)."
        ),
        validate=of_types(REPOSITORY_IAM, _no_public_readers),
        enforcement_level=EnforcementLevel.MANDATORY,
        severity=Severity.CRITICAL,
        tags=["security", "artifact-registry", "iam"],
    ),
]
