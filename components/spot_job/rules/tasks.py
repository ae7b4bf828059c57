"""What a worker pool runs: a container image, or a Python package on one of
Google's prebuilt training images, with at most 100 environment variables.

googleapis/googleapis google/cloud/aiplatform/v1/custom_job.proto
(f8291d2b89f0017ab078a4c7378069bae5686f6f): PythonPackageSpec.executor_image_uri
"You must use an image from this list" (the prebuilt containers for training);
ContainerSpec.env and PythonPackageSpec.env "Maximum limit is 100";
package_uris "The maximum number of package URIs is 100".
google/cloud/aiplatform/v1/env_var.proto: EnvVar.name "Must be a valid C identifier".
The list of prebuilt training images, all under {us,europe,asia}-docker.pkg.dev/vertex-ai/training/
(the SDK's examples also write the older gcr.io/cloud-aiplatform/training/):
https://cloud.google.com/vertex-ai/docs/training/pre-built-containers
https://cloud.google.com/vertex-ai/docs/reference/rest/v1/CustomJobSpec#containerspec
https://cloud.google.com/vertex-ai/docs/reference/rest/v1/CustomJobSpec#pythonpackagespec
"""

from __future__ import annotations

import re
from typing import Any

from components.spot_job.rules.known import Fail, Known

# PythonPackageSpec.packageUris: "at most 100".
MAX_PACKAGE_URIS = 100
GCS_OBJECT = re.compile(r"^gs://[a-z0-9][a-z0-9._-]{1,220}[a-z0-9]/.+$")
ENV_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")
MAX_ENV = 100
# Google's prebuilt training images: the repositories the list names (and the
# SDK's older gcr.io one), an image name, and a tag or a digest.
PREBUILT_TRAINING_IMAGE = re.compile(
    r"^(?:(?:us|europe|asia)-docker\.pkg\.dev/vertex-ai/training|gcr\.io/cloud-aiplatform/training)"
    r"/[a-z0-9][a-z0-9._-]*(?::[A-Za-z0-9_][A-Za-z0-9._-]{0,127}|@sha256:[0-9a-f]{64})?$"
)
PREBUILT_LIST = "https://cloud.google.com/vertex-ai/docs/training/pre-built-containers"


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


def _python_package(k: Known, package: dict[str, Any], path: str, fail: Fail) -> None:
    for key in ("executorImageUri", "pythonModule"):
        if not k.has(package, key):
            fail(f"{path}.{key}", "is required")
    executor = k.text(package, "executorImageUri")
    if executor is not None and not PREBUILT_TRAINING_IMAGE.match(executor):
        # The value is not echoed: in the config layer an ${images.KEY} reference stands in for it.
        fail(
            f"{path}.executorImageUri",
            "must be one of Google's prebuilt training images, such as "
            f"us-docker.pkg.dev/vertex-ai/training/sklearn-cpu.1-6:latest (the list: {PREBUILT_LIST}); "
            "to run an image of your own (${images.KEY}), use containerSpec.imageUri instead of pythonPackageSpec",
        )
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


def _env(k: Known, task: dict[str, Any], path: str, fail: Fail) -> None:
    variables = k.get(task, "env", list) or []
    if len(variables) > MAX_ENV:
        fail(f"{path}.env", f"has {len(variables)} variables; Vertex AI takes at most {MAX_ENV}")
    for j, var in enumerate(variables):
        name = k.text(var, "name")
        if name is None:
            if isinstance(var, dict) and not k.has(var, "name"):
                fail(f"{path}.env[{j}].name", "is required")
            continue
        if not ENV_NAME.match(name):
            fail(f"{path}.env[{j}].name", f"{name!r} is not a valid environment variable name (a C identifier)")
        # A name set twice is not refused: no source says Vertex does (the pack's job-spec-advice warns).
