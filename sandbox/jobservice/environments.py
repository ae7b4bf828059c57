"""PythonEnvironment: the interpreter a pythonPackageSpec job's replicas run, made from its packageUris.

Vertex runs a Python package on a prebuilt executor image: it pip-installs the
packageUris, in order, then runs `python -m pythonModule args...`. The sandbox
has no image to run: it downloads the packages from the sandbox's bucket, and
installs them with uv into a virtual environment of their own, on this
machine's Python, with google-cloud-storage (which every prebuilt training
image has). The environment is cached by the packages' content, under
~/.cache/spot-training/sandbox/ (or $SPOT_TRAINING_CACHE_DIR/sandbox/): a job
whose packages did not change starts at once. What the executor image itself
holds besides (its framework, its Python version) is not reproduced: the
packages' own dependencies come from PyPI.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

# What each prebuilt training image has, and spot_runtime's gs:// store needs.
IMAGE_PACKAGES = ("google-cloud-storage>=2",)


class PackageError(RuntimeError):
    """A package that cannot be fetched or installed: the job fails with this message, as Vertex's would."""


def cache_root() -> Path:
    base = os.environ.get("SPOT_TRAINING_CACHE_DIR") or str(Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "spot-training")
    return Path(base) / "sandbox"


def _uv() -> list[str]:
    found = os.environ.get("UV") or shutil.which("uv")
    return [found] if found else [sys.executable, "-m", "uv"]


def download(uris: list[str]) -> list[Path]:
    """Each gs:// package, from the sandbox's Cloud Storage (STORAGE_EMULATOR_HOST), into the cache."""
    from sandbox.gcp.storage import Storage

    storage = Storage.from_environment()
    if storage is None:
        raise PackageError("STORAGE_EMULATOR_HOST is not set: the sandbox has no bucket to read packages from")
    files = []
    for uri in uris:
        if not uri.startswith("gs://"):
            raise PackageError(f"packageUris: {uri!r} is not a gs:// URI")
        bucket, _, name = uri[5:].partition("/")
        data = storage.read(bucket, name)
        if data is None:
            raise PackageError(f"packageUris: {uri} does not exist in the sandbox's Cloud Storage")
        folder = cache_root() / "packages" / hashlib.sha256(data).hexdigest()[:32]
        folder.mkdir(parents=True, exist_ok=True)
        path = folder / Path(name).name  # pip reads the name and version from the file name
        if not path.exists():
            path.write_bytes(data)
        files.append(path)
    return files


def environment_for(packages: list[Path]) -> Path:
    """The python of a virtual environment with `packages` installed in order (cached by their content)."""
    digest = hashlib.sha256(sys.version.encode())
    for package in packages:
        digest.update(package.name.encode() + b"\0" + package.read_bytes())
    home = cache_root() / "venvs" / digest.hexdigest()[:32]
    python = home / "bin" / "python"
    if python.exists():
        return python
    home.parent.mkdir(parents=True, exist_ok=True)
    building = Path(tempfile.mkdtemp(prefix=".building-", dir=home.parent))
    steps = [
        [*_uv(), "venv", "--quiet", "--python", sys.executable, str(building)],
        [*_uv(), "pip", "install", "--quiet", "--python", str(building / "bin" / "python"), *map(str, packages), *IMAGE_PACKAGES],
    ]
    for step in steps:
        done = subprocess.run(step, capture_output=True, text=True, env={**os.environ, "VIRTUAL_ENV": ""})
        if done.returncode != 0:
            shutil.rmtree(building, ignore_errors=True)
            raise PackageError(f"installing {', '.join(p.name for p in packages)} failed: {done.stderr.strip()[-800:]}")
    try:
        # Whole or not at all. A moved venv still runs `python -m` (python finds its prefix from pyvenv.cfg
        # beside it); only its console scripts' shebangs name the build directory, and none is run.
        os.rename(building, home)
    except OSError:
        shutil.rmtree(building, ignore_errors=True)  # another sandbox built it first
    return python
