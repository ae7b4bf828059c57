"""What a team is, as TeamTrainingEnvironment takes it: images, packages, secrets and jobs.

The component owns this shape; the stack config (stack_config/) parses a
stack file into it. The references a job's spec may carry are the
component's too: it resolves them.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

IMAGE_REF = re.compile(r"^\$\{images\.([A-Za-z0-9_-]+)\}$")
PACKAGE_REF = re.compile(r"^\$\{packages\.([A-Za-z0-9_-]+)\}$")
# Anywhere in an env value: resolved to the secret version's resource name,
# which the training code reads from Secret Manager at run time.
SECRET_REF = re.compile(r"\$\{secrets\.([A-Za-z0-9_-]+)\}")


def member_key(member: str) -> str:
    """group:vision-ml@acme.example -> group-vision-ml-acme-example: the name of a member's grants.

    Here, not in team.py, so the stack config can find two members whose grants
    would clash without importing the component (and pulumi_gcp with it).
    """
    return re.sub(r"[^a-z0-9]+", "-", member.lower()).strip("-")


@dataclass
class ImageConfig:
    name: str | None = None
    tag: str | None = None
    context: str | None = None  # built by the stack when set
    dockerfile: str | None = None


@dataclass
class SecretConfig:
    secret: str  # projects/P/secrets/S, a Secret Manager secret the team's account may read
    version: str = "latest"

    @property
    def version_name(self) -> str:
        return f"{self.secret}/versions/{self.version}"


@dataclass
class JobConfig:
    body: dict[str, Any]  # displayName, labels, encryptionSpec, jobSpec: image and package references still unresolved
    knobs: dict[str, Any] = field(default_factory=dict)  # SpotTrainingJobArgs field -> value
    # Paths into `body` (as the resource's inputs) of values set with `pulumi config set --secret`.
    secret_paths: list[str] = field(default_factory=list)
    secrets: list[str] = field(default_factory=list)  # keys of the team's secrets it refers to
    # The full name of a CustomJob started outside the stack that the resource adopts (the `import:` key).
    import_id: str | None = None


@dataclass
class TeamConfig:
    name: str
    members: list[str] = field(default_factory=list)
    service_account: dict[str, Any] = field(default_factory=dict)  # TrainingServiceAccountArgs field -> value
    bucket: dict[str, Any] = field(default_factory=dict)  # StagingBucketArgs field -> value
    repository: dict[str, Any] = field(default_factory=dict)  # ContainerRepositoryArgs field -> value
    images: dict[str, ImageConfig] = field(default_factory=dict)
    packages: dict[str, str] = field(default_factory=dict)  # key -> built sdist/wheel path
    secrets: dict[str, SecretConfig] = field(default_factory=dict)
    jobs: dict[str, JobConfig] = field(default_factory=dict)
