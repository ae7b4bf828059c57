"""fake-gcs-server, Cloud Storage's stand-in: the binary tools/gcs/go.mod pins, built once on first use.

tools/gcs/build.sh builds it from the Go module proxy into .engine/bin/ (ignored by
git), with a stamp of its inputs beside it. Whoever finds it missing, or built from
another go.mod, builds it: the sandbox's first `up`, or the first of the test
workers, which may all ask at once, so one builds under a file lock and the others
wait for it and find it built.
"""

from __future__ import annotations

import fcntl
import hashlib
import os
import shutil
import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
MODULE = ROOT / "tools" / "gcs"
BUILD = MODULE / "build.sh"
BINARY = ROOT / ".engine" / "bin" / "fake-gcs-server"
STAMP = BINARY.parent / ".fake-gcs-server.stamp"
LOCK = ROOT / ".engine" / "fake-gcs-server.lock"


class Unavailable(RuntimeError):
    """fake-gcs-server could not be built: the message says why and what to do."""


def _current_stamp() -> str:
    # build.sh's stamp: sha256 of go.mod, go.sum and the script, as `cat ... | sha256sum` writes it.
    digest = hashlib.sha256()
    for path in (MODULE / "go.mod", MODULE / "go.sum", BUILD):
        digest.update(path.read_bytes())
    return digest.hexdigest()


def _is_built() -> bool:
    try:
        return os.access(BINARY, os.X_OK) and STAMP.read_text().strip() == _current_stamp()
    except FileNotFoundError:
        return False


def _shown(path: Path) -> str:
    return str(path.relative_to(ROOT)) if path.is_relative_to(ROOT) else str(path)


def ensure_binary() -> Path:
    """The fake-gcs-server binary tools/gcs/go.mod pins, built once by whichever process asks first."""
    if _is_built():
        return BINARY
    LOCK.parent.mkdir(parents=True, exist_ok=True)
    with open(LOCK, "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # the others wait here while one builds
        if not _is_built():
            if shutil.which("go") is None:
                raise Unavailable(
                    f"Cloud Storage's stand-in ({_shown(BINARY)}) is not built (or was built from another "
                    "tools/gcs/go.mod) and Go is not installed: install Go (https://go.dev/doc/install), then run tools/gcs/build.sh"
                )
            result = subprocess.run([str(BUILD)], capture_output=True, text=True)
            if result.returncode != 0:
                raise Unavailable(f"tools/gcs/build.sh failed ({result.returncode}):\n{result.stdout}{result.stderr}")
    return BINARY
