"""TrainingPackage: a Python training package, uploaded content-addressed.

The source is a built sdist or wheel, or a package directory (with a
pyproject.toml) that is built into an sdist with `uv build` when the program
runs. The object's name carries the SHA-256 of the file, or of the directory's
source files, so `pythonPackageSpec.packageUris`
change exactly when the code does: a rebuild of the same code is no change,
and any change to it is a new URI, hence a visible spec change that resubmits.
The hash goes in a folder, not in the file name, because pip reads a package's
name and version from its file name.
"""

from __future__ import annotations

import hashlib
import os
import subprocess
import tempfile
from dataclasses import dataclass
from pathlib import Path

import pulumi
import pulumi_gcp as gcp

from .renames import with_former_types
from .staging_bucket import PACKAGES_PREFIX

# What Vertex AI's prebuilt training images pip-install.
PACKAGE_SUFFIXES = (".tar.gz", ".whl")


@dataclass
class TrainingPackageArgs:
    bucket: pulumi.Input[str]  # the team's staging bucket name
    source: str  # a built sdist (.tar.gz) or wheel (.whl), or a directory with a pyproject.toml


def content_hash(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as stream:
        for block in iter(lambda: stream.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def object_name(path: Path) -> str:
    return f"{PACKAGES_PREFIX}{content_hash(path)[:16]}/{path.name}"


# What in a package directory is not its code.
_NOT_SOURCE = {".git", ".venv", "dist", "build", "__pycache__", ".pytest_cache"}
_BUILT: dict[str, Path] = {}  # tree hash -> sdist, so one program run builds a package once
# Built sdists are kept on disk by tree hash, so the next run (a `pulumi preview`, `render`, `diff`, each in a
# process of its own) takes the same file instead of building it again (about 1 s a package): the object name
# comes from the source either way, and the same bytes are no change of the BucketObject's source either.
CACHE_DIR_ENV = "SPOT_TRAINING_CACHE_DIR"


def tree_hash(root: Path) -> str:
    digest = hashlib.sha256()
    for path in sorted(root.rglob("*")):
        relative = path.relative_to(root)
        if path.is_file() and not _NOT_SOURCE & set(relative.parts) and not path.name.endswith(".egg-info"):
            digest.update(str(relative).encode() + b"\0" + path.read_bytes() + b"\0")
    return digest.hexdigest()


def cache_dir() -> Path:
    """Where built sdists are kept: $SPOT_TRAINING_CACHE_DIR, else $XDG_CACHE_HOME/spot-training, else ~/.cache/spot-training."""
    if os.environ.get(CACHE_DIR_ENV):
        return Path(os.environ[CACHE_DIR_ENV])
    return Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "spot-training"


def build_sdist(root: Path, digest: str) -> Path:
    """Builds the directory's sdist, or takes the one built before from the same source (cache_dir). Its
    bytes may differ between builds (the archive records times); its object name does not, as it comes
    from the source, so a rebuild of unchanged code is no change of the job."""
    if digest not in _BUILT:
        kept = cache_dir() / "sdists" / digest
        found = sorted(kept.glob("*.tar.gz")) if kept.is_dir() else []
        _BUILT[digest] = found[0] if len(found) == 1 else _build_and_keep(root, kept)
    return _BUILT[digest]


def _build_and_keep(root: Path, kept: Path) -> Path:
    try:  # built beside the cache entry, so it is renamed into place whole
        kept.parent.mkdir(parents=True, exist_ok=True)
        out = Path(tempfile.mkdtemp(prefix=".building-", dir=kept.parent))
    except OSError:  # the cache cannot be written: build where the system keeps temporary files
        out = Path(tempfile.mkdtemp(prefix="spot-training-package-"))
    env = {**os.environ, "SOURCE_DATE_EPOCH": "315532800"}  # reproducible where the backend honours it
    uv = os.environ.get("UV", "uv")  # `uv run` names its own binary here
    result = subprocess.run([uv, "build", "--sdist", "--out-dir", str(out), str(root)], env=env, capture_output=True, text=True)
    if result.returncode != 0:
        raise ValueError(f"building the training package in {root} failed:\n{result.stderr.strip()}")
    [built] = out.glob("*.tar.gz")
    try:  # atomic on one file system: a process racing this one finds all of the entry or none of it
        os.rename(out, kept)
        return kept / built.name
    except OSError:  # another process kept it first, or the build is on another file system: this one serves
        return built


class TrainingPackage(pulumi.ComponentResource):
    TYPE = "spot-training:storage:TrainingPackage"
    # The types it was registered as before a rename: aliases, so nothing under it is replaced (renames.py).
    FORMER_TYPES: tuple[str, ...] = ()

    uri: pulumi.Output[str]

    def __init__(self, name: str, args: TrainingPackageArgs, opts: pulumi.ResourceOptions | None = None) -> None:
        path = Path(args.source)
        if path.is_dir():
            if not (path / "pyproject.toml").is_file():
                raise ValueError(f"{name}: source {args.source!r} is a directory without a pyproject.toml")
            digest = tree_hash(path)
            path = build_sdist(path, digest)
            key = f"{PACKAGES_PREFIX}{digest[:16]}/{path.name}"
        elif not path.name.endswith(PACKAGE_SUFFIXES):
            raise ValueError(f"{name}: source {args.source!r} must be a built sdist (.tar.gz), a wheel (.whl) or a package directory")
        elif not path.is_file():
            raise ValueError(f"{name}: source {args.source!r} does not exist (build it first, e.g. `uv build`)")
        else:
            key = object_name(path)
        super().__init__(self.TYPE, name, None, with_former_types(opts, self.FORMER_TYPES))
        self.object = gcp.storage.BucketObject(
            name,
            bucket=args.bucket,
            name=key,
            source=pulumi.FileAsset(str(path)),
            content_type="application/gzip" if path.name.endswith(".tar.gz") else "application/zip",
            opts=pulumi.ResourceOptions(parent=self),
        )
        self.uri = pulumi.Output.concat("gs://", self.object.bucket, "/", self.object.name)
        self.register_outputs({"uri": self.uri})
