"""The baseline program: the same resources as the project's, registered directly.

The pulumi_gcp classes and invokes the components register per team, and one
bare `pulumi.dynamic.Resource` per job (a trivial ResourceProvider whose state
is its inputs) with the job's REST inputs, straight from the config dict:
no components, no config validation, no job spec checks; the same exports.
"""

from __future__ import annotations

import json
from typing import Any

import pulumi
import pulumi.dynamic
import pulumi_gcp as gcp

from offline.program import set_mocks

AGENTS = {
    "vertex-agent": "@gcp-sa-aiplatform.iam.gserviceaccount.com",
    "vertex-code-agent": "@gcp-sa-aiplatform-cc.iam.gserviceaccount.com",
}


class BareJobProvider(pulumi.dynamic.ResourceProvider):
    """Trivial: creating returns the inputs as the state."""

    serialize_as_secret_always = False  # as the project's provider, so both blobs are plain

    def create(self, props: dict[str, Any]) -> pulumi.dynamic.CreateResult:
        return pulumi.dynamic.CreateResult("bare-job", dict(props))


class BareJob(pulumi.dynamic.Resource, module="bench", name="BareJob"):
    def __init__(self, name: str, props: dict[str, Any], opts: pulumi.ResourceOptions | None = None) -> None:
        super().__init__(BareJobProvider(), name, props, opts)


class ShapedJobProvider(pulumi.dynamic.ResourceProvider):
    """Trivial too, but its state has the shape of a SpotTrainingJob's: the id a full job name,
    and beside the inputs the 11 outputs a running job of ours has, with values as long as ours
    (bench/results/9-engine-state.txt). What a job's state alone costs the engine, the SDK's
    host and the program, without our provider's code."""

    serialize_as_secret_always = False

    def create(self, props: dict[str, Any]) -> pulumi.dynamic.CreateResult:
        number = 10**18 + int(str(props["displayName"]).rsplit("-", 1)[-1])
        name = f"projects/{props['project']}/locations/{props['location']}/customJobs/{number}"
        outputs = {
            "attempt": 1, "gone": False, "history": [], "state": "JOB_STATE_RUNNING", "strategy": "SPOT",
            "jobId": str(number), "jobName": name,
            "consoleUrl": f"https://console.cloud.google.com/vertex-ai/locations/{props['location']}/training/{number}/cpu"
                          f"?project={props['project']}",
            "createTime": "2026-12-05T10:00:00.000000Z", "updateTime": "2026-12-05T10:00:01.000000Z",
            "submissionKey": "0" * 40,
        }
        return pulumi.dynamic.CreateResult(name, {**props, **outputs})


class ShapedJob(pulumi.dynamic.Resource, module="bench", name="ShapedJob"):
    def __init__(self, name: str, props: dict[str, Any], opts: pulumi.ResourceOptions | None = None) -> None:
        super().__init__(ShapedJobProvider(), name, props, opts)


class DeclaredJob(pulumi.dynamic.Resource, module="bench", name="DeclaredJob"):
    """ShapedJob's state, and a program that declares the SpotTrainingJob's 13 outputs as ours does
    (an Output the SDK resolves for each, taken off its list of Outputs to wait for, as
    `resource._untrack` does for ours): what the resource's interface alone costs, with no code of
    our provider's."""

    def __init__(self, name: str, props: dict[str, Any], opts: pulumi.ResourceOptions | None = None) -> None:
        from components.spot_job.resource import OUTPUTS, _untrack

        declared = {**props, **dict.fromkeys(OUTPUTS)}
        super().__init__(ShapedJobProvider(), name, declared, opts)
        _untrack(self, declared)


def _slug(text: str) -> str:
    import re

    return re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-")


def team(config: dict[str, Any], name: str, raw: dict[str, Any]) -> None:
    project, region = config["gcp:project"], config["gcp:region"]
    env = config["spot-training:environment"]
    labels = {"team": name, "environment": env}

    account = gcp.serviceaccount.Account(
        f"{name}-trainer", project=project, account_id=f"{name}-train-{env}", display_name=f"Spot training jobs of {name} ({env})"
    )
    trainer = pulumi.Output.concat("serviceAccount:", account.email)
    for role in ("roles/logging.logWriter", "roles/monitoring.metricWriter"):
        gcp.projects.IAMMember(f"{name}-trainer-{_slug(role.removeprefix('roles/'))}-trainer", project=project, role=role, member=trainer)
    for member in sorted([*config["spot-training:deployers"], *raw.get("members", [])]):
        gcp.serviceaccount.IAMMember(
            f"{name}-trainer-iam-serviceaccountuser-{_slug(member)}",
            service_account_id=account.name, role="roles/iam.serviceAccountUser", member=member,
        )

    bucket = gcp.storage.Bucket(
        f"{name}-staging",
        name=f"{project}-{name}-staging",
        project=project,
        location=region.upper(),
        uniform_bucket_level_access=True,
        public_access_prevention="enforced",
        versioning=gcp.storage.BucketVersioningArgs(enabled=False),
        force_destroy=True,
        labels=labels,
        lifecycle_rules=[
            gcp.storage.BucketLifecycleRuleArgs(
                action=gcp.storage.BucketLifecycleRuleActionArgs(type="Delete"),
                condition=gcp.storage.BucketLifecycleRuleConditionArgs(age=30, matches_prefixes=["packages/"]),
            ),
            gcp.storage.BucketLifecycleRuleArgs(
                action=gcp.storage.BucketLifecycleRuleActionArgs(type="Delete"),
                condition=gcp.storage.BucketLifecycleRuleConditionArgs(age=90, matches_prefixes=["jobs/"]),
            ),
            gcp.storage.BucketLifecycleRuleArgs(
                action=gcp.storage.BucketLifecycleRuleActionArgs(type="AbortIncompleteMultipartUpload"),
                condition=gcp.storage.BucketLifecycleRuleConditionArgs(age=1),
            ),
        ],
    )
    for role in ("roles/storage.objectCreator", "roles/storage.objectViewer"):
        gcp.storage.BucketIAMMember(f"{name}-staging-{_slug(role.removeprefix('roles/'))}-trainer", bucket=bucket.name, role=role, member=trainer)

    number = gcp.organizations.get_project_output(project_id=project).number
    repository = gcp.artifactregistry.Repository(
        f"{name}-images",
        project=project,
        location=region,
        repository_id=name,
        format="DOCKER",
        description=f"Training images of {name} ({env})",
        labels=labels,
        docker_config=gcp.artifactregistry.RepositoryDockerConfigArgs(immutable_tags=False),
        cleanup_policy_dry_run=False,
        cleanup_policies=[
            gcp.artifactregistry.RepositoryCleanupPolicyArgs(
                id="keep-recent", action="KEEP",
                most_recent_versions=gcp.artifactregistry.RepositoryCleanupPolicyMostRecentVersionsArgs(keep_count=10),
            ),
            gcp.artifactregistry.RepositoryCleanupPolicyArgs(
                id="delete-untagged", action="DELETE",
                condition=gcp.artifactregistry.RepositoryCleanupPolicyConditionArgs(tag_state="UNTAGGED", older_than=f"{7 * 86400}s"),
            ),
        ],
    )
    readers = {"trainer": trainer, **{key: pulumi.Output.concat("serviceAccount:service-", number, domain) for key, domain in AGENTS.items()}}
    for key, member in sorted(readers.items()):
        gcp.artifactregistry.RepositoryIamMember(
            f"{name}-images-artifactregistry-reader-{key}",
            project=project, location=region, repository=repository.repository_id, role="roles/artifactregistry.reader", member=member,
        )
    images = {
        key: gcp.artifactregistry.get_docker_image_output(
            project=repository.project, location=region, repository_id=repository.repository_id, image_name=f"{image['name']}:{image['tag']}"
        ).self_link
        for key, image in raw.get("images", {}).items()
    }

    jobs = {}
    for key, job in raw.get("jobs", {}).items():
        pool = job["workerPoolSpecs"][0]
        image_key = pool["containerSpec"]["imageUri"].removeprefix("${images.").removesuffix("}")
        jobs[key] = BareJob(f"{name}-{key}", {
            "project": project,
            "location": region,
            "displayName": f"{name}-{key}",
            "labels": {**job["labels"], **labels},
            "jobSpec": {
                "workerPoolSpecs": [{**pool, "containerSpec": {**pool["containerSpec"], "imageUri": images[image_key]}}],
                "scheduling": job["scheduling"],
                "serviceAccount": account.email,
                "baseOutputDirectory": {"outputUriPrefix": pulumi.Output.concat("gs://", bucket.name, f"/jobs/{key}")},
            },
            "rerun": job["rerun"],
            "waitFor": job["waitFor"],
            "waitTimeout": job["waitTimeout"],
            "submissionScope": f"{pulumi.get_project()}/{pulumi.get_stack()}/{name}-{key}",
        })
    # The same exports as the program's (__main__.py: a team's outputs): four values per
    # job, here the bare resource's id standing in for its name, state, attempt and URL.
    pulumi.export(name, {
        "bucket": pulumi.Output.concat("gs://", bucket.name),
        "serviceAccount": account.email,
        "repository": pulumi.Output.concat(f"{region}-docker.pkg.dev/", repository.project, "/", repository.repository_id),
        "images": images,
        "packages": {},
        "jobs": {key: {"jobName": bare.id, "state": bare.id, "attempt": bare.id, "consoleUrl": bare.id} for key, bare in jobs.items()},
    })


def run(config: dict[str, Any], stack: str, mocks: pulumi.runtime.Mocks) -> pulumi.runtime.Mocks:
    """Runs the baseline under the mocks, set up as offline.program.run sets up the real program."""
    set_mocks(mocks, stack)
    pulumi.runtime.set_all_config({key: value if isinstance(value, str) else json.dumps(value) for key, value in config.items()})

    @pulumi.runtime.test
    def program():
        for name, raw in config["spot-training:teams"].items():
            team(config, name, raw)

    program()
    return mocks
