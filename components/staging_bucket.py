"""StagingBucket: a team's Cloud Storage bucket for packages, checkpoints and outputs."""

from __future__ import annotations

from dataclasses import dataclass, field

import pulumi
import pulumi_gcp as gcp

from . import iam as iam_
from .renames import with_former_types

# Object prefixes the lifecycle rules act on; the job defaults write under them.
PACKAGES_PREFIX = "packages/"
OUTPUTS_PREFIX = "jobs/"


@dataclass
class StagingBucketArgs:
    project: pulumi.Input[str]
    location: str  # the jobs' region: a bucket far from the job costs egress and time
    team: str
    environment: str
    name: str | None = None  # default: {project}-{team}-staging
    package_retention_days: int = 30
    output_retention_days: int = 90
    abort_incomplete_upload_days: int = 1
    versioning: bool = False
    kms_key_name: pulumi.Input[str] | None = None
    # None: decided by environment. Never destroyable with data in prod by default.
    force_destroy: bool | None = None
    protect: bool | None = None
    iam: iam_.Iam = field(default_factory=dict)


def is_production(environment: str) -> bool:
    return environment in ("prod", "production")


class StagingBucket(pulumi.ComponentResource):
    TYPE = "spot-training:storage:StagingBucket"
    # The types it was registered as before a rename: aliases, so nothing under it is replaced (renames.py).
    FORMER_TYPES: tuple[str, ...] = ()

    bucket: gcp.storage.Bucket
    name: pulumi.Output[str]
    url: pulumi.Output[str]

    def __init__(self, name: str, args: StagingBucketArgs, opts: pulumi.ResourceOptions | None = None) -> None:
        super().__init__(self.TYPE, name, None, with_former_types(opts, self.FORMER_TYPES))
        prod = is_production(args.environment)
        force_destroy = (not prod) if args.force_destroy is None else args.force_destroy
        protect = prod if args.protect is None else args.protect
        self.bucket = gcp.storage.Bucket(
            name,
            name=args.name or pulumi.Output.concat(args.project, f"-{args.team}-staging"),
            project=args.project,
            location=args.location.upper(),  # GCS reports locations upper-case; avoid a perpetual diff
            uniform_bucket_level_access=True,
            public_access_prevention="enforced",
            versioning=gcp.storage.BucketVersioningArgs(enabled=args.versioning),
            encryption=gcp.storage.BucketEncryptionArgs(default_kms_key_name=args.kms_key_name) if args.kms_key_name else None,
            force_destroy=force_destroy,
            labels={"team": args.team, "environment": args.environment},
            lifecycle_rules=[
                _delete_after(args.package_retention_days, PACKAGES_PREFIX),
                _delete_after(args.output_retention_days, OUTPUTS_PREFIX),
                gcp.storage.BucketLifecycleRuleArgs(
                    action=gcp.storage.BucketLifecycleRuleActionArgs(type="AbortIncompleteMultipartUpload"),
                    condition=gcp.storage.BucketLifecycleRuleConditionArgs(age=args.abort_incomplete_upload_days),
                ),
            ],
            opts=pulumi.ResourceOptions(parent=self, protect=protect),
        )
        self.grants = iam_.grant_members(
            name,
            args.iam,
            lambda child, role, member: gcp.storage.BucketIAMMember(
                child, bucket=self.bucket.name, role=role, member=member, opts=pulumi.ResourceOptions(parent=self)
            ),
        )
        # Consumers get the name only once the grants exist, so nothing they
        # start (a job writing to the bucket) races its own permissions.
        self.name = pulumi.Output.all(self.bucket.name, *[grant.id for grant in self.grants]).apply(lambda v: v[0])
        self.url = pulumi.Output.concat("gs://", self.name)
        self.register_outputs({"name": self.name, "url": self.url})


def _delete_after(days: int, prefix: str) -> gcp.storage.BucketLifecycleRuleArgs:
    return gcp.storage.BucketLifecycleRuleArgs(
        action=gcp.storage.BucketLifecycleRuleActionArgs(type="Delete"),
        condition=gcp.storage.BucketLifecycleRuleConditionArgs(age=days, matches_prefixes=[prefix]),
    )
