"""TrainingServiceAccount: the identity a team's jobs run as, with least privilege.

No key is ever made for it. Grants go on resources wherever the API allows
(the bucket grants are the StagingBucket's, the image reads the repository's);
at project level only what cannot be scoped: writing logs and metrics.
`roles/iam.serviceAccountUser` (actAs) is granted on this account alone, to the
stack's deployers and the team's members, so they can submit jobs that run as it.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field

import pulumi
import pulumi_gcp as gcp

from . import iam as iam_
from .renames import with_former_types

# What a training job writes that no narrower resource can be granted on.
PROJECT_ROLES = ("roles/logging.logWriter", "roles/monitoring.metricWriter")
ACT_AS_ROLE = "roles/iam.serviceAccountUser"
_ACCOUNT_ID = re.compile(r"^[a-z][a-z0-9-]{4,28}[a-z0-9]$")


@dataclass
class TrainingServiceAccountArgs:
    project: pulumi.Input[str]
    team: str
    environment: str
    account_id: str | None = None  # default: {team}-train-{environment}
    # key -> member (user:, group:, serviceAccount:) allowed to run jobs as this account
    users: dict[str, pulumi.Input[str]] = field(default_factory=dict)
    project_roles: Sequence[str] = PROJECT_ROLES


class TrainingServiceAccount(pulumi.ComponentResource):
    TYPE = "spot-training:iam:TrainingServiceAccount"
    # The types it was registered as before a rename: aliases, so nothing under it is replaced (renames.py).
    FORMER_TYPES: tuple[str, ...] = ()

    account: gcp.serviceaccount.Account
    email: pulumi.Output[str]
    member: pulumi.Output[str]

    def __init__(
        self, name: str, args: TrainingServiceAccountArgs, opts: pulumi.ResourceOptions | None = None
    ) -> None:
        account_id = args.account_id or f"{args.team}-train-{args.environment}"
        if not _ACCOUNT_ID.match(account_id):
            raise ValueError(
                f"{name}: account_id {account_id!r} must be 6-30 characters of lowercase letters, digits and '-', "
                "starting with a letter; set a shorter one"
            )
        super().__init__(self.TYPE, name, None, with_former_types(opts, self.FORMER_TYPES))
        child = pulumi.ResourceOptions(parent=self)
        self.account = gcp.serviceaccount.Account(
            name,
            project=args.project,
            account_id=account_id,
            display_name=f"Spot training jobs of {args.team} ({args.environment})",
            opts=child,
        )
        self.member = pulumi.Output.concat("serviceAccount:", self.account.email)
        # Two kinds of grant (on the project, on the account): what they share, an id, is what is read.
        grants: list[pulumi.CustomResource] = iam_.grant_members(
            name,
            {role: {"trainer": self.member} for role in args.project_roles},
            lambda resource, role, member: gcp.projects.IAMMember(
                resource, project=args.project, role=role, member=member, opts=child
            ),
        )
        grants += iam_.grant_members(
            name,
            {ACT_AS_ROLE: args.users} if args.users else {},
            lambda resource, role, member: gcp.serviceaccount.IAMMember(
                resource, service_account_id=self.account.name, role=role, member=member, opts=child
            ),
        )
        self.grants = grants
        # Resolves once the grants are in place: a job submitted as this
        # account never starts before it may write its logs.
        self.email = pulumi.Output.all(self.account.email, *[g.id for g in grants]).apply(lambda v: v[0])
        self.register_outputs({"email": self.email, "member": self.member})
