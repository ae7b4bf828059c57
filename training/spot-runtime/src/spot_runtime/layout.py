"""Names in a checkpoint directory (contract: the provider reads them; never rename)."""

from __future__ import annotations

import re
from datetime import datetime, timezone

MANIFEST = "MANIFEST.json"
PROGRESS = "progress.json"
# Twelve digits: folder names sort in step order as plain strings, locally and in a bucket listing.
_FOLDER = re.compile(r"^step-(\d{12})$")


def folder_name(step: int) -> str:
    return f"step-{step:012d}"


def folder_step(name: str) -> int | None:
    """The step of a checkpoint folder's name, or None for anything else in the directory."""
    match = _FOLDER.match(name)
    return int(match.group(1)) if match else None


def check_file_name(name: object) -> str:
    """A data file's name: one plain file name, so every store maps it to one object the same way."""
    if not isinstance(name, str) or not name or name in (".", "..") or "/" in name or "\\" in name:
        raise ValueError(f"checkpoint file name {name!r} must be a plain file name (no '/', not empty)")
    if name in (MANIFEST, PROGRESS) or name.startswith(".tmp-"):
        raise ValueError(f"checkpoint file name {name!r} is reserved by the runtime")
    return name


def check_step(step: object) -> int:
    if isinstance(step, bool) or not isinstance(step, int) or step < 0 or step >= 10**12:
        raise ValueError(f"checkpoint step {step!r} must be an int from 0 to 999999999999")
    return step


def utc_now() -> str:
    """RFC 3339 UTC with a Z, to the second, as the manifest and the progress record carry it."""
    return datetime.now(timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")
