"""SecretAccess: one member may read exactly the Secret Manager secrets named, and no other.

How a job gets a credential: the secret stays in Secret Manager, the team's
service account gets `secretmanager.secretAccessor` on that secret alone (a
grant on the secret, not on the project, which would open every secret in
it), and the job is told only the secret version's resource name, which its
code reads at run time. The secrets themselves are not managed here: whoever
owns a credential creates it and adds versions.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

import pulumi
import pulumi_gcp as gcp

from .iam import grant_members
from .renames import with_former_types

ACCESSOR = "roles/secretmanager.secretAccessor"


@dataclass
class SecretAccessArgs:
    secrets: Mapping[str, str]  # key -> projects/P/secrets/S
    member: pulumi.Input[str]  # e.g. the team's serviceAccount:...


class SecretAccess(pulumi.ComponentResource):
    TYPE = "spot-training:secrets:SecretAccess"
    # The types it was registered as before a rename: aliases, so nothing under it is replaced (renames.py).
    FORMER_TYPES: tuple[str, ...] = ()

    def __init__(self, name: str, args: SecretAccessArgs, opts: pulumi.ResourceOptions | None = None) -> None:
        super().__init__(self.TYPE, name, None, with_former_types(opts, self.FORMER_TYPES))
        child = pulumi.ResourceOptions(parent=self)
        self.grants: dict[str, gcp.secretmanager.SecretIamMember] = {}
        for key, secret in sorted(args.secrets.items()):
            project = secret.split("/")[1]  # the secret's own project, which may not be the stack's

            # project and secret bound as defaults: each grant reads this iteration's, not the loop's last.
            def accessor(
                resource_name: str, role: str, member: pulumi.Input[str], project: str = project, secret: str = secret
            ) -> gcp.secretmanager.SecretIamMember:
                return gcp.secretmanager.SecretIamMember(
                    resource_name, project=project, secret_id=secret, role=role, member=member, opts=child
                )

            [self.grants[key]] = grant_members(f"{name}-{key}", {ACCESSOR: {"trainer": args.member}}, accessor)
        self.register_outputs({})
