"""What a worker pool runs: a container image, or a Python package on a
prebuilt executor image, with its environment variables.
https://cloud.google.com/vertex-ai/docs/reference/rest/v1/CustomJobSpec#containerspec
https://cloud.google.com/vertex-ai/docs/reference/rest/v1/CustomJobSpec#pythonpackagespec
"""

from __future__ import annotations

import re

from .known import Fail, Known

# PythonPackageSpec.packageUris: "at most 100".
MAX_PACKAGE_URIS = 100
GCS_OBJECT = re.compile(r"^gs://[a-z0-9][a-z0-9._-]{1,220}[a-z0-9]/.+$")
ENV_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")


def tasks(k: Known, fail: Fail) -> None:
    for i, pool in k.pools():
        path = f"jobSpec.workerPoolSpecs[{i}]"
        container = k.get(pool, "containerSpec", dict)
        if container is not None:
            if not k.has(container, "imageUri"):
                fail(f"{path}.containerSpec.imageUri", "is required")
            _env(k, container, f"{path}.containerSpec", fail)
        package = k.get(pool, "pythonPackageSpec", dict)
        if package is not None:
            _python_package(k, package, f"{path}.pythonPackageSpec", fail)


def _python_package(k: Known, package: dict, path: str, fail: Fail) -> None:
    for key in ("executorImageUri", "pythonModule"):
        if not k.has(package, key):
            fail(f"{path}.{key}", "is required")
    uris = k.get(package, "packageUris", list)
    if not uris:
        if not k.is_unknown(package.get("packageUris")):
            fail(f"{path}.packageUris", "is required: at least one gs:// URI of the training package")
        return
    if len(uris) > MAX_PACKAGE_URIS:
        fail(f"{path}.packageUris", f"has {len(uris)} URIs; Vertex AI takes at most {MAX_PACKAGE_URIS}")
    for j, uri in enumerate(uris):
        if isinstance(uri, str) and not k.is_unknown(uri) and not GCS_OBJECT.match(uri):
            fail(f"{path}.packageUris[{j}]", f"must be a Cloud Storage object URI gs://BUCKET/OBJECT, got {uri!r}")
    _env(k, package, path, fail)


def _env(k: Known, task: dict, path: str, fail: Fail) -> None:
    seen: set[str] = set()
    for j, var in enumerate(k.get(task, "env", list) or []):
        name = k.text(var, "name")
        if name is None:
            if isinstance(var, dict) and not k.has(var, "name"):
                fail(f"{path}.env[{j}].name", "is required")
            continue
        if not ENV_NAME.match(name):
            fail(f"{path}.env[{j}].name", f"{name!r} is not a valid environment variable name")
        elif name in seen:
            fail(f"{path}.env[{j}].name", f"{name!r} is set twice")
        seen.add(name)
