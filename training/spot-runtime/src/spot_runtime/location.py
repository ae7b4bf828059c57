"""Which store a checkpoint directory is: the /gcs mount, the Cloud Storage client, or a local dir."""

from __future__ import annotations

import os

from spot_runtime.errors import CheckpointError
from spot_runtime.gcs_store import GcsStore
from spot_runtime.local_store import LocalStore
from spot_runtime.mount_store import MountStore
from spot_runtime.store import Store

# Where a run on a laptop (no AIP_CHECKPOINT_DIR) keeps its checkpoints, relative to the working dir.
LOCAL_DEFAULT = "checkpoints"


def open_store(directory: str | os.PathLike[str] | None, *, mount_root: str = "/gcs") -> Store:
    """``gs://BUCKET/PATH`` -> ``<mount_root>/BUCKET/PATH`` when ``<mount_root>/BUCKET`` exists
    (Vertex mounts every bucket the job can read there), else the client; a path -> that dir."""
    text = os.fspath(directory) if directory is not None else ""
    if not text:
        return LocalStore(LOCAL_DEFAULT)
    if text.startswith("gs://"):
        bucket, _, path = text[5:].partition("/")
        if not bucket:
            raise CheckpointError(f"checkpoint dir {text} names no bucket (expected gs://BUCKET/PATH)")
        mounted = os.path.join(mount_root, bucket)
        if os.path.isdir(mounted):
            return MountStore(text, os.path.join(mounted, path.strip("/")) if path.strip("/") else mounted)
        return GcsStore(text)
    if "://" in text:
        raise CheckpointError(f"checkpoint dir {text}: only gs:// URIs and local paths are supported")
    return LocalStore(text)
