"""TrainingPackage: a built Python training package, uploaded content-addressed.

The object's name carries the file's SHA-256, so `pythonPackageSpec.packageUris`
change exactly when the code does: a rebuild of the same code is no change,
and any change to it is a new URI, hence a visible spec change that resubmits.
The hash goes in a folder, not in the file name, because pip reads a package's
name and version from its file name.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from pathlib import Path
from typing import Optional

import pulumi
import pulumi_gcp as gcp

from .staging_bucket import PACKAGES_PREFIX

# What Vertex AI's prebuilt training images pip-install.
PACKAGE_SUFFIXES = (".tar.gz", ".whl")


@dataclass
class TrainingPackageArgs:
    bucket: pulumi.Input[str]  # the team's staging bucket name
    source: str  # a built sdist (.tar.gz) or wheel (.whl)


def content_hash(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as stream:
        for block in iter(lambda: stream.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def object_name(path: Path) -> str:
    return f"{PACKAGES_PREFIX}{content_hash(path)[:16]}/{path.name}"


class TrainingPackage(pulumi.ComponentResource):
    uri: pulumi.Output[str]

    def __init__(self, name: str, args: TrainingPackageArgs, opts: Optional[pulumi.ResourceOptions] = None) -> None:
        path = Path(args.source)
        if not path.name.endswith(PACKAGE_SUFFIXES):
            raise ValueError(f"{name}: source {args.source!r} must be a built sdist (.tar.gz) or wheel (.whl)")
        if not path.is_file():
            raise ValueError(f"{name}: source {args.source!r} does not exist (build it first, e.g. `uv build`)")
        super().__init__("spot-training:storage:TrainingPackage", name, None, opts)
        self.object = gcp.storage.BucketObject(
            name,
            bucket=args.bucket,
            name=object_name(path),
            source=pulumi.FileAsset(str(path)),
            content_type="application/gzip" if path.name.endswith(".tar.gz") else "application/zip",
            opts=pulumi.ResourceOptions(parent=self),
        )
        self.uri = pulumi.Output.concat("gs://", self.object.bucket, "/", self.object.name)
        self.register_outputs({"uri": self.uri})
