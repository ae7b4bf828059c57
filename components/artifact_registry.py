"""ContainerRepository: a team's Docker repository, and training images pinned by digest.

A job runs `name@sha256:...`, never a moving tag: a new push under the same
tag resolves to a new digest, a visible spec change in `pulumi preview` that
resubmits the job, instead of a silent change of what a rerun executes.
"""

from __future__ import annotations

import asyncio
from collections.abc import Mapping
from dataclasses import dataclass, field

import pulumi
import pulumi_docker_build as docker_build
import pulumi_gcp as gcp

from . import iam as iam_
from .renames import with_former_types
from .team_definition import ImageConfig

READER_ROLE = "roles/artifactregistry.reader"


@dataclass
class ContainerRepositoryArgs:
    project: pulumi.Input[str]
    location: str  # the jobs' region
    team: str
    environment: str
    repository_id: str | None = None  # default: the team
    keep_recent_versions: int = 10
    delete_untagged_after_days: int = 7
    cleanup_dry_run: bool = False
    immutable_tags: bool = False
    # key -> member that pulls images: the Vertex AI service agents, the team's trainer
    readers: dict[str, pulumi.Input[str]] = field(default_factory=dict)
    # Regions where a job's fallback ladder may run it: each gets a remote repository reading
    # through to this one, so an attempt there pulls its image in its own region.
    replica_regions: list[str] = field(default_factory=list)
    # Who reads this repository for the replicas: the Artifact Registry service agent.
    replica_reader: pulumi.Input[str] | None = None
    # key -> the image jobs run: {name, tag} already pushed, or a local context the stack builds and pushes.
    images: dict[str, ImageConfig] = field(default_factory=dict)


class ContainerRepository(pulumi.ComponentResource):
    TYPE = "spot-training:artifactregistry:ContainerRepository"
    # The types it was registered as before a rename: aliases, so nothing under it is replaced (renames.py).
    FORMER_TYPES: tuple[str, ...] = ()

    repository: gcp.artifactregistry.Repository
    url: pulumi.Output[str]  # {location}-docker.pkg.dev/{project}/{repository}

    def __init__(self, name: str, args: ContainerRepositoryArgs, opts: pulumi.ResourceOptions | None = None) -> None:
        super().__init__(self.TYPE, name, None, with_former_types(opts, self.FORMER_TYPES))
        child = pulumi.ResourceOptions(parent=self)
        self._args = args
        self._name = name
        self.repository = gcp.artifactregistry.Repository(
            name,
            project=args.project,
            location=args.location,
            repository_id=args.repository_id or args.team,
            format="DOCKER",
            description=f"Training images of {args.team} ({args.environment})",
            labels={"team": args.team, "environment": args.environment},
            docker_config=gcp.artifactregistry.RepositoryDockerConfigArgs(immutable_tags=args.immutable_tags),
            cleanup_policy_dry_run=args.cleanup_dry_run,
            cleanup_policies=[
                gcp.artifactregistry.RepositoryCleanupPolicyArgs(
                    id="keep-recent",
                    action="KEEP",
                    most_recent_versions=gcp.artifactregistry.RepositoryCleanupPolicyMostRecentVersionsArgs(
                        keep_count=args.keep_recent_versions
                    ),
                ),
                gcp.artifactregistry.RepositoryCleanupPolicyArgs(
                    id="delete-untagged",
                    action="DELETE",
                    condition=gcp.artifactregistry.RepositoryCleanupPolicyConditionArgs(
                        tag_state="UNTAGGED", older_than=f"{args.delete_untagged_after_days * 86400}s"
                    ),
                ),
            ],
            opts=child,
        )
        home_readers = {**args.readers, **({"replicas": args.replica_reader} if args.replica_regions and args.replica_reader else {})}
        self.grants = self._readers(name, self.repository, args.location, home_readers, child)
        self.url = pulumi.Output.all(
            self.repository.project, self.repository.repository_id, *[g.id for g in self.grants]
        ).apply(lambda v: f"{args.location}-docker.pkg.dev/{v[0]}/{v[1]}")
        self.replicas = {region: self._replica(name, region, child) for region in args.replica_regions}
        # Where an attempt in each replica's region pulls the team's images from instead:
        # {location, from, to}, URL prefixes, for the jobs' imageMirrors.
        self.mirrors = [
            {"location": region, "from": pulumi.Output.concat(self.url, "/"), "to": pulumi.Output.concat(url, "/")}
            for region, (_, url) in self.replicas.items()
        ]
        # key -> `{url}/{name}@sha256:...`; a built image is the last child, so it is made here,
        # before register_outputs (Pulumi's component contract: the outputs come last).
        self.images = {key: self._image(key, image) for key, image in args.images.items()}
        self.register_outputs({"url": self.url, "images": self.images})

    def _readers(
        self,
        name: str,
        repository: gcp.artifactregistry.Repository,
        location: str,
        readers: Mapping[str, pulumi.Input[str]],
        child: pulumi.ResourceOptions,
    ) -> list[gcp.artifactregistry.RepositoryIamMember]:
        return iam_.grant_members(
            name,
            {READER_ROLE: readers} if readers else {},
            lambda resource, role, member: gcp.artifactregistry.RepositoryIamMember(
                resource,
                project=self._args.project,
                location=location,
                repository=repository.repository_id,
                role=role,
                member=member,
                opts=child,
            ),
        )

    def _replica(
        self, name: str, region: str, child: pulumi.ResourceOptions
    ) -> tuple[gcp.artifactregistry.Repository, pulumi.Output[str]]:
        """A remote repository in `region` whose upstream is this one: it pulls an image (by
        digest) from here once and serves it in its region after that.
        https://cloud.google.com/artifact-registry/docs/repositories/remote-repo (upstream: a
        standard Artifact Registry repository; the Artifact Registry service agent reads it)."""
        args = self._args
        replica = gcp.artifactregistry.Repository(
            f"{name}-{region}",
            project=args.project,
            location=region,
            repository_id=self.repository.repository_id,  # ids are unique per location
            format="DOCKER",
            mode="REMOTE_REPOSITORY",
            description=f"Training images of {args.team} ({args.environment}), read through from {args.location}",
            labels={"team": args.team, "environment": args.environment},
            remote_repository_config=gcp.artifactregistry.RepositoryRemoteRepositoryConfigArgs(
                description=f"{args.team}'s images in {args.location}",
                common_repository=gcp.artifactregistry.RepositoryRemoteRepositoryConfigCommonRepositoryArgs(uri=self.repository.id),
            ),
            opts=child,
        )
        grants = self._readers(f"{name}-{region}", replica, region, args.readers, child)
        url = pulumi.Output.all(replica.project, replica.repository_id, *[g.id for g in grants]).apply(
            lambda v: f"{region}-docker.pkg.dev/{v[0]}/{v[1]}"
        )
        return replica, url

    def _image(self, key: str, image: ImageConfig) -> pulumi.Output[str]:
        """The image `key` jobs run: built here from its context, or already pushed as name:tag."""
        if image.context is not None:
            return self._built_image(image.name or key, image.context, image.dockerfile)
        if image.name is None or image.tag is None:
            # The stack config never makes one (stack_config/loader.py); a program building the args itself may.
            raise ValueError(
                f"{self._name}: images.{key} needs a name and a tag (an image already pushed) or a build context"
            )
        return self._pinned_image(image.name, image.tag)

    def _pinned_image(self, name: str, tag: str) -> pulumi.Output[str]:
        """`name:tag`, already pushed, resolved to `{url}/{name}@sha256:...` at deploy time."""
        if pulumi.runtime.is_dry_run():
            # Tracked by the runtime like any output, so the preview waits for it. Its type is written out:
            # from a coroutine alone mypy infers no U for the SDK's Input[U] (U | Awaitable[U] | Output[U]).
            _warned: pulumi.Output[None] = pulumi.Output.from_input(self._say_what_to_push_first(name, tag))
        image = gcp.artifactregistry.get_docker_image_output(
            project=self.repository.project,
            location=self._args.location,
            repository_id=self.repository.repository_id,
            image_name=f"{name}:{tag}",
            opts=pulumi.InvokeOutputOptions(parent=self),
        )
        return image.self_link

    async def _say_what_to_push_first(self, name: str, tag: str) -> None:
        """A preview of the update that creates this repository says what to push
        before `up`: the new repository cannot hold the image yet, and resolving
        its tag would fail with NOT_FOUND halfway through the first `up`.
        A resource's id is unknown in a preview exactly when the update creates it."""
        if await self.repository.id.is_known():  # the SDK's Output.is_known: False for what a preview cannot know
            return
        project, repository_id, urn = await asyncio.gather(
            pulumi.Output.from_input(self._args.project).future(),
            self.repository.repository_id.future(),
            self.repository.urn.future(),
        )
        url = f"{self._args.location}-docker.pkg.dev/{project}/{repository_id}"
        pulumi.log.warn(
            f"image {name}:{tag} is read from {url}, which this update creates, so it cannot hold the image yet "
            f"and `pulumi up` would stop with NOT_FOUND. Create the repository first: pulumi up --target '{urn}'; "
            f"then push the image: docker push {url}/{name}:{tag}; then run pulumi up.",
            resource=self,
        )

    def _built_image(self, name: str, context: str, dockerfile: str | None = None) -> pulumi.Output[str]:
        """An image built from a local context and pushed here by the stack; its pushed digest.

        The build reruns when the context changes (pulumi-docker-build hashes
        it), and the new digest resubmits the jobs that run the image.
        """
        registry = f"{self._args.location}-docker.pkg.dev"
        token = gcp.organizations.get_client_config_output(opts=pulumi.InvokeOutputOptions(parent=self)).access_token
        image = docker_build.Image(
            f"{self._name}-{name}",
            context=docker_build.BuildContextArgs(location=context),
            dockerfile=docker_build.DockerfileArgs(location=dockerfile) if dockerfile else None,
            platforms=[docker_build.Platform.LINUX_AMD64],  # what Vertex AI's machines run
            push=True,
            tags=[pulumi.Output.concat(self.url, "/", name, ":", pulumi.get_stack())],
            registries=[
                docker_build.RegistryArgs(
                    address=registry, username="oauth2accesstoken", password=pulumi.Output.secret(token)
                )
            ],
            opts=pulumi.ResourceOptions(parent=self),
        )
        # ref: the pushed tag with the build's digest, name:tag@sha256:...; jobs get name@sha256:...
        return pulumi.Output.all(self.url, image.digest).apply(lambda v: f"{v[0]}/{name}@{v[1]}")
