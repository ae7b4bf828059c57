"""Where a test's checkpoints live: a local dir, a gs:// dir through a FUSE-style mount, a gs:// dir
in the emulated bucket. Each place is looked at independently of the runtime (the file system, or
the emulator's own client), so a test checks what is really there, not what the runtime believes."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import spot_runtime

BUCKET = "acme-ml-dev-vision-output"
PREFIX = "jobs/train-7/checkpoints"


@dataclass
class Place:
    kind: str
    directory: str  # what AIP_CHECKPOINT_DIR holds
    mount_root: str
    root: Path | None = None  # the directory on disk (local and mount)
    bucket: Any = None  # the emulator's bucket (bucket)
    env: dict[str, str] = field(default_factory=dict)

    def checkpointer(self, **kwargs: Any) -> spot_runtime.Checkpointer:
        environ = {"AIP_CHECKPOINT_DIR": self.directory, **self.env, **kwargs.pop("environ", {})}
        return spot_runtime.Checkpointer.from_environment(environ=environ, mount_root=self.mount_root, **kwargs)

    def keys(self) -> set[str]:
        """Every file under the checkpoint dir, as ``folder/name`` or ``name``."""
        if self.root is not None:
            return {str(p.relative_to(self.root)) for p in self.root.rglob("*") if p.is_file()} if self.root.exists() else set()
        prefix = PREFIX + "/"
        return {blob.name[len(prefix) :] for blob in self.bucket.list_blobs(prefix=prefix)}

    def read(self, key: str) -> bytes:
        if self.root is not None:
            return (self.root / key).read_bytes()
        data: bytes = self.bucket.blob(f"{PREFIX}/{key}").download_as_bytes()
        return data

    def write(self, key: str, data: bytes) -> None:
        """Tamper with a file behind the runtime's back (a corrupt manifest, a flipped byte)."""
        if self.root is not None:
            (self.root / key).parent.mkdir(parents=True, exist_ok=True)
            (self.root / key).write_bytes(data)
        else:
            self.bucket.blob(f"{PREFIX}/{key}").upload_from_string(data)

    def delete(self, key: str) -> None:
        if self.root is not None:
            (self.root / key).unlink()
        else:
            self.bucket.blob(f"{PREFIX}/{key}").delete()

    def folders(self) -> list[str]:
        return sorted({key.split("/", 1)[0] for key in self.keys() if "/" in key})


def local(tmp_path: Path) -> Place:
    root = tmp_path / "checkpoints"
    # No /gcs here: a mount_root that does not exist, so nothing is taken for a mount by accident.
    return Place("local", str(root), str(tmp_path / "no-mount"), root=root)


def mount(tmp_path: Path) -> Place:
    """Vertex's /gcs/BUCKET/... as a tmp dir: the runtime must take the gs:// URI to the mount."""
    mount_root = tmp_path / "gcs"
    (mount_root / BUCKET).mkdir(parents=True)
    return Place("mount", f"gs://{BUCKET}/{PREFIX}/", str(mount_root), root=mount_root / BUCKET / PREFIX)


def bucket(tmp_path: Path, emulator: Any) -> Place:
    """The emulated bucket through the Cloud Storage client (no mount: mount_root does not exist)."""
    return Place("bucket", f"gs://{BUCKET}/{PREFIX}/", str(tmp_path / "no-mount"), bucket=emulator.bucket(BUCKET))
