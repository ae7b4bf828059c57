"""Job bodies the tests share."""

import copy

IMAGE = "us-central1-docker.pkg.dev/acme-ml-dev/vision/trainer@sha256:" + "ab" * 32


def docs_request_body() -> dict:
    """The REST request body of Google's "Use Spot VMs for training", placeholders filled."""
    return {
        "displayName": "JOB_NAME",
        "jobSpec": {
            "workerPoolSpecs": [
                {
                    "machineSpec": {"machineType": "n1-standard-4"},
                    "replicaCount": 1,
                    "containerSpec": {
                        "imageUri": IMAGE,
                        "command": ["python", "-m", "trainer"],
                        "args": ["--epochs=3"],
                    },
                }
            ],
            "scheduling": {"strategy": "SPOT"},
        },
    }


def job_inputs(**overrides) -> dict:
    """A valid SpotTrainingJob input bag: the docs' body plus where it runs."""
    inputs = {"project": "acme-ml-dev", "location": "us-central1", **docs_request_body()}
    inputs.update(copy.deepcopy(overrides))
    return inputs


def python_package_pool(**overrides) -> dict:
    pool = {
        "machineSpec": {"machineType": "n1-standard-4"},
        "replicaCount": 1,
        "pythonPackageSpec": {
            "executorImageUri": "us-docker.pkg.dev/vertex-ai/training/sklearn-cpu.1-6:latest",
            "packageUris": ["gs://acme-ml-dev-staging/packages/trainer-0.1.0.tar.gz"],
            "pythonModule": "trainer.task",
        },
    }
    pool.update(overrides)
    return pool
