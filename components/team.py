"""TeamTrainingEnvironment: everything one team's Spot training jobs need, and the jobs."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import pulumi
import pulumi_gcp as gcp

from .artifact_registry import ContainerRepository, ContainerRepositoryArgs
from .job_body import job_body
from .renames import with_former_types
from .secret_access import SecretAccess, SecretAccessArgs
from .service_account import TrainingServiceAccount, TrainingServiceAccountArgs
from .spot_job.model import property_paths
from .spot_job.resource import SpotTrainingJob, SpotTrainingJobArgs
from .staging_bucket import OUTPUTS_PREFIX, StagingBucket, StagingBucketArgs
from .team_definition import JobConfig, TeamConfig, member_key
from .training_package import TrainingPackage, TrainingPackageArgs

# Vertex AI pulls custom training images as its service agents.
_SERVICE_AGENTS = {
    "vertex-agent": "@gcp-sa-aiplatform.iam.gserviceaccount.com",
    "vertex-code-agent": "@gcp-sa-aiplatform-cc.iam.gserviceaccount.com",
}
# A remote repository reads its upstream repository as the Artifact Registry service agent.
# https://cloud.google.com/artifact-registry/docs/repositories/remote-repo
_REGISTRY_AGENT = "@gcp-sa-artifactregistry.iam.gserviceaccount.com"


@dataclass
class TeamTrainingEnvironmentArgs:
    project: str
    region: str
    environment: str
    deployers: list[str]
    team: TeamConfig


class TeamTrainingEnvironment(pulumi.ComponentResource):
    TYPE = "spot-training:team:TeamTrainingEnvironment"
    # The types it was registered as before a rename: aliases, so nothing under it is replaced (renames.py).
    FORMER_TYPES: tuple[str, ...] = ()

    def __init__(self, name: str, args: TeamTrainingEnvironmentArgs, opts: pulumi.ResourceOptions | None = None) -> None:
        super().__init__(self.TYPE, name, None, with_former_types(opts, self.FORMER_TYPES))
        team, child = args.team, pulumi.ResourceOptions(parent=self)

        self.service_account = TrainingServiceAccount(
            f"{name}-trainer",
            TrainingServiceAccountArgs(
                project=args.project, team=team.name, environment=args.environment,
                users={member_key(m): m for m in [*args.deployers, *team.members]}, **team.service_account,
            ),
            opts=child,
        )
        trainer = {"trainer": self.service_account.member}
        self.bucket = StagingBucket(
            f"{name}-staging",
            StagingBucketArgs(
                project=args.project, team=team.name, environment=args.environment,
                location=args.region,
                # Write and read objects, not administer the bucket.
                iam={"roles/storage.objectCreator": trainer, "roles/storage.objectViewer": trainer},
                **team.bucket,
            ),
            opts=child,
        )
        number = gcp.organizations.get_project_output(project_id=args.project, opts=pulumi.InvokeOutputOptions(parent=self)).number
        agents = {key: pulumi.Output.concat("serviceAccount:service-", number, domain) for key, domain in _SERVICE_AGENTS.items()}
        self.repository = ContainerRepository(
            f"{name}-images",
            ContainerRepositoryArgs(
                project=args.project, team=team.name, environment=args.environment,
                location=args.region, readers={**trainer, **agents},
                replica_reader=pulumi.Output.concat("serviceAccount:service-", number, _REGISTRY_AGENT),
                images=team.images, **team.repository,
            ),
            opts=child,
        )
        self.images = self.repository.images
        self.packages = {
            key: TrainingPackage(f"{name}-package-{key}", TrainingPackageArgs(bucket=self.bucket.name, source=source), opts=child).uri
            for key, source in team.packages.items()
        }
        self.secret_access = SecretAccess(
            f"{name}-secrets",
            SecretAccessArgs(secrets={key: s.secret for key, s in team.secrets.items()}, member=self.service_account.member),
            opts=child,
        ) if team.secrets else None
        secret_grants = self.secret_access.grants if self.secret_access is not None else {}
        self.jobs = {
            key: SpotTrainingJob(
                f"{name}-{key}",
                SpotTrainingJobArgs.from_custom_job(
                    self._job_body(key, job, args),
                    project=args.project,
                    location=args.region,
                    # Where an attempt a fallback rung moves pulls the team's images from, in its region.
                    image_mirrors=self.repository.mirrors or None,
                    adopt=job.import_id,
                    **job.knobs,
                ),
                # A job that reads a secret starts only once its account may read it.
                opts=pulumi.ResourceOptions(parent=self, depends_on=[secret_grants[k] for k in job.secrets])
                if job.secrets
                else child,
            )
            for key, job in team.jobs.items()
        }
        self.outputs = {
            "bucket": self.bucket.url,
            "serviceAccount": self.service_account.email,
            "repository": self.repository.url,
            "images": self.images,
            "packages": self.packages,
            "jobs": {
                key: {"jobName": job.jobName, "state": job.state, "attempt": job.attempt, "consoleUrl": job.consoleUrl}
                for key, job in self.jobs.items()
            },
        }
        self.register_outputs(self.outputs)

    def _job_body(self, key: str, job: JobConfig, args: TeamTrainingEnvironmentArgs) -> dict[str, Any]:
        """The body the stack config validated (job_body), with this team's values, its secret values marked."""
        body = job_body(
            key, job.body, team=args.team.name, environment=args.environment,
            service_account=self.service_account.email,
            output_uri_prefix=pulumi.Output.concat(self.bucket.url, f"/{OUTPUTS_PREFIX}{key}"),
            images=self.images, packages=self.packages,
        )
        for path in job.secret_paths:
            # Only this leaf becomes secret: the engine encrypts it in state and
            # a preview shows it as [secret], the rest of the spec stays readable.
            *parents, last = property_paths.split(path)
            holder = _copied_along(body, parents)
            if isinstance(holder, dict) and last in holder:
                holder[last] = pulumi.Output.secret(holder[last])
            elif isinstance(holder, list) and isinstance(last, int) and last < len(holder):
                holder[last] = pulumi.Output.secret(holder[last])
        return body


def _copied_along(body: dict[str, Any], parts: list[property_paths.Part]) -> Any:
    """property_paths.get(body, parts), each container on the way copied (and put in its
    parent's place) so that writing into the one returned leaves the config's body as it is."""
    holder: Any = body  # a JSON value of the body: a dict, a list or a leaf
    for part in parts:
        # One branch per container kind: the part indexes only the kind it was checked against.
        if isinstance(part, int) and isinstance(holder, list) and 0 <= part < len(holder):
            child = holder[part] = _copied(holder[part])
        elif isinstance(part, str) and isinstance(holder, dict) and part in holder:
            child = holder[part] = _copied(holder[part])
        else:
            return None  # where property_paths.get finds nothing (a missing key reads as None there)
        holder = child
    return holder


def _copied(value: Any) -> Any:
    """A dict or a list copied (one level deep); a leaf as it is."""
    if isinstance(value, dict):
        return dict(value)
    if isinstance(value, list):
        return list(value)
    return value
