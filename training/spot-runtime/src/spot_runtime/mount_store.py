"""A gs:// checkpoint dir read and written through the Cloud Storage FUSE mount (/gcs on Vertex)."""

from __future__ import annotations

import os

from spot_runtime.local_store import LocalStore


class MountStore(LocalStore):
    """``gs://BUCKET/PATH`` as ``<mount_root>/BUCKET/PATH``: a local directory to the code, with
    Cloud Storage FUSE's guarantees (docs/training.md, "The runtime"). The temp-file-then-rename
    write stays right there: FUSE uploads a file when it is closed or fsynced, and renames a file
    by copying the object, so the target object appears whole. Messages name the gs:// URI the
    user configured as well as the mounted path."""

    def __init__(self, uri: str, path: str | os.PathLike[str]) -> None:
        super().__init__(path, location=f"{uri} (mounted at {os.fspath(path)})")
        self.uri = uri.rstrip("/")

    def describe(self, key: str) -> str:
        return f"{self.uri}/{key} (mounted at {self.root / key})"
