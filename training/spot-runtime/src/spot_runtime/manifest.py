"""MANIFEST.json: written last, it is what makes a checkpoint folder complete."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping
from dataclasses import dataclass

from spot_runtime.errors import CheckpointError
from spot_runtime.layout import check_file_name, utc_now

VERSION = 1


@dataclass(frozen=True)
class FileEntry:
    size: int
    sha256: str


@dataclass(frozen=True)
class Manifest:
    step: int
    job_id: str | None
    time: str
    files: dict[str, FileEntry]

    @classmethod
    def of(cls, step: int, job_id: str | None, files: Mapping[str, bytes]) -> Manifest:
        entries = {name: FileEntry(len(data), hashlib.sha256(data).hexdigest()) for name, data in files.items()}
        return cls(step, job_id, utc_now(), entries)

    def to_bytes(self) -> bytes:
        body = {
            "version": VERSION,
            "step": self.step,
            "jobId": self.job_id,
            "time": self.time,
            "files": {name: {"size": e.size, "sha256": e.sha256} for name, e in sorted(self.files.items())},
        }
        return (json.dumps(body, indent=2) + "\n").encode()

    @classmethod
    def parse(cls, data: bytes, where: str) -> Manifest:
        """The manifest at ``where``, or a CheckpointError naming it and what is wrong."""
        try:
            body = json.loads(data.decode())
        except (UnicodeDecodeError, ValueError) as error:
            raise CheckpointError(f"corrupt manifest {where}: not JSON ({error})") from None
        if not isinstance(body, dict):
            raise CheckpointError(f"corrupt manifest {where}: not a JSON object")
        if body.get("version") != VERSION:
            raise CheckpointError(f"corrupt manifest {where}: version {body.get('version')!r}, this runtime reads {VERSION}")
        step, job_id, time, files = body.get("step"), body.get("jobId"), body.get("time"), body.get("files")
        if isinstance(step, bool) or not isinstance(step, int) or step < 0:
            raise CheckpointError(f"corrupt manifest {where}: step {step!r} is not a step")
        if job_id is not None and not isinstance(job_id, str):
            raise CheckpointError(f"corrupt manifest {where}: jobId {job_id!r} is not a string")
        if not isinstance(files, dict):
            raise CheckpointError(f"corrupt manifest {where}: files is not an object")
        entries: dict[str, FileEntry] = {}
        for name, entry in files.items():
            try:
                check_file_name(name)
                size, digest = entry["size"], entry["sha256"]
                if isinstance(size, bool) or not isinstance(size, int) or size < 0 or not isinstance(digest, str):
                    raise TypeError
            except (ValueError, TypeError, KeyError):
                raise CheckpointError(f"corrupt manifest {where}: file entry {name!r} is not {{size, sha256}}") from None
            entries[name] = FileEntry(size, digest)
        return cls(step, job_id, time if isinstance(time, str) else "", entries)

    def mismatch(self, name: str, data: bytes) -> str | None:
        """Why ``data`` is not the file this manifest lists as ``name`` (None when it is)."""
        entry = self.files[name]
        if len(data) != entry.size:
            return f"{name} has {len(data)} bytes, the manifest says {entry.size}"
        if hashlib.sha256(data).hexdigest() != entry.sha256:
            return f"{name} does not match its sha256 in the manifest"
        return None
