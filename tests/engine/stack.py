"""The engine tests' stack: one team, a pushed image, a Secret Manager reference, two jobs.

Small, so each `pulumi up` is seconds, and nothing in it needs a provider the
tests have no stand-in for (an image built by the stack would need docker-build).
"""

STACK = "enginetest"
PROJECT = "acme-ml-test"
REGION = "us-central1"

CONFIG = {
    "gcp:project": PROJECT,
    "gcp:region": REGION,
    "spot-training:environment": "test",
    "spot-training:deployers": [f"serviceAccount:ci@{PROJECT}.iam.gserviceaccount.com"],
    "spot-training:teams": {
        "vision": {
            "members": ["group:vision-ml@acme.example"],
            "images": {"trainer": {"name": "trainer", "tag": "2026-11-30"}},
            "secrets": {"hf-token": {"secret": f"projects/{PROJECT}/secrets/hf-token"}},
            "jobs": {
                "resnet": {
                    "labels": {"purpose": "smoke"},
                    "workerPoolSpecs": [{
                        "machineSpec": {"machineType": "n1-standard-8", "acceleratorType": "NVIDIA_TESLA_T4", "acceleratorCount": 1},
                        "replicaCount": 1,
                        "containerSpec": {
                            "imageUri": "${images.trainer}",
                            "args": ["--epochs=1"],
                            "env": [{"name": "HF_TOKEN_SECRET", "value": "${secrets.hf-token}"}, {"name": "MODE", "value": "smoke"}],
                        },
                    }],
                    "scheduling": {"strategy": "SPOT", "timeout": "7200s"},
                },
                "eval": {
                    "workerPoolSpecs": [{
                        "machineSpec": {"machineType": "n1-standard-4"},
                        "containerSpec": {"imageUri": "${images.trainer}", "args": ["--eval"]},
                    }],
                },
            },
        },
    },
}
