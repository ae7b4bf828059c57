"""The Vertex AI REST shape of a CustomJob, as a table the spec layer walks.

Field names are the REST (camelCase) JSON names of google.cloud.aiplatform.v1,
so a body copied from Google's docs or a `gcloud ai custom-jobs create --config`
file is read as it is. tests/test_schema.py holds this table against the
installed protos, so a field Google adds or renames shows up as a failing test
instead of a silently dropped key.
"""

from components.spot_job.model.defaults import OnDelete, ReplaceOrder, WaitFor

STRING = "string"
INT = "int"
BOOL = "bool"
DURATION = "duration"
STRING_MAP = "map<string,string>"


def list_of(kind: str) -> tuple[str, str]:
    return ("list", kind)


def enum(name: str) -> tuple[str, str]:
    return ("enum", name)


# Top-level inputs of the SpotTrainingJob resource: the CustomJob's own fields
# plus the location it is submitted to and the provider's knobs.
RESOURCE = "SpotTrainingJob"

MESSAGES: dict[str, dict[str, object]] = {
    RESOURCE: {
        "project": STRING,
        "location": STRING,
        "displayName": STRING,
        "labels": STRING_MAP,
        "encryptionSpec": "EncryptionSpec",
        "jobSpec": "CustomJobSpec",
        # The provider's knobs, not part of the CustomJob (see lifecycle.py).
        "rerun": STRING,
        "resubmission": "Resubmission",
        "waitFor": enum("WaitFor"),
        "waitTimeout": DURATION,
        "onDelete": enum("OnDelete"),
        "deleteTimeout": DURATION,
        "replaceOrder": enum("ReplaceOrder"),
        "submissionScope": STRING,
        "secretPaths": list_of(STRING),
        "quotas": "Quotas",
        "imageMirrors": list_of("ImageMirror"),
        "adopt": STRING,
    },
    # An image source in another region: a URI starting with `from` is pulled from `to` in `location`.
    "ImageMirror": {"location": STRING, "from": STRING, "to": STRING},
    # Vertex AI's per-region request quotas the provider paces its calls to (client/quota_pacing.py).
    "Quotas": {"submissionsPerMinute": INT, "callsPerMinute": INT},
    # What `pulumi up` does with a job that failed (see decision/resubmission_policy.py).
    "Resubmission": {
        "maxResubmissions": INT,
        "onOtherFailures": BOOL,
        "stopWithoutProgress": INT,
        "fallback": list_of("FallbackRung"),
    },
    # A rung changes the strategy, the region (with the CMEK key that region needs), or both.
    "FallbackRung": {"afterStockouts": INT, "strategy": enum("FallbackStrategy"), "location": STRING, "kmsKeyName": STRING},
    "EncryptionSpec": {"kmsKeyName": STRING},
    "CustomJobSpec": {
        "persistentResourceId": STRING,
        "workerPoolSpecs": list_of("WorkerPoolSpec"),
        "scheduling": "Scheduling",
        "serviceAccount": STRING,
        "network": STRING,
        "reservedIpRanges": list_of(STRING),
        "pscInterfaceConfig": "PscInterfaceConfig",
        "baseOutputDirectory": "GcsDestination",
        "protectedArtifactLocationId": STRING,
        "tensorboard": STRING,
        "enableWebAccess": BOOL,
        "enableDashboardAccess": BOOL,
        "experiment": STRING,
        "experimentRun": STRING,
        "models": list_of(STRING),
    },
    "WorkerPoolSpec": {
        "containerSpec": "ContainerSpec",
        "pythonPackageSpec": "PythonPackageSpec",
        "machineSpec": "MachineSpec",
        "replicaCount": INT,
        "nfsMounts": list_of("NfsMount"),
        "lustreMounts": list_of("LustreMount"),
        "diskSpec": "DiskSpec",
    },
    "ContainerSpec": {
        "imageUri": STRING,
        "command": list_of(STRING),
        "args": list_of(STRING),
        "env": list_of("EnvVar"),
    },
    "PythonPackageSpec": {
        "executorImageUri": STRING,
        "packageUris": list_of(STRING),
        "pythonModule": STRING,
        "args": list_of(STRING),
        "env": list_of("EnvVar"),
    },
    "EnvVar": {"name": STRING, "value": STRING},
    "MachineSpec": {
        "machineType": STRING,
        "acceleratorType": enum("AcceleratorType"),
        "acceleratorCount": INT,
        "gpuPartitionSize": STRING,
        "tpuTopology": STRING,
        "reservationAffinity": "ReservationAffinity",
    },
    "ReservationAffinity": {
        "reservationAffinityType": enum("ReservationAffinity.Type"),
        "key": STRING,
        "values": list_of(STRING),
    },
    "DiskSpec": {"bootDiskType": STRING, "bootDiskSizeGb": INT},
    "NfsMount": {"server": STRING, "path": STRING, "mountPoint": STRING},
    "LustreMount": {
        "instanceIp": STRING,
        "volumeHandle": STRING,
        "filesystem": STRING,
        "mountPoint": STRING,
    },
    "Scheduling": {
        "timeout": DURATION,
        "restartJobOnWorkerRestart": BOOL,
        "strategy": enum("Scheduling.Strategy"),
        "disableRetries": BOOL,
        "maxWaitDuration": DURATION,
    },
    "GcsDestination": {"outputUriPrefix": STRING},
    "PscInterfaceConfig": {
        "networkAttachment": STRING,
        "dnsPeeringConfigs": list_of("DnsPeeringConfig"),
    },
    "DnsPeeringConfig": {"domain": STRING, "targetProject": STRING, "targetNetwork": STRING},
}

# Enum values accepted in a spec. The *_UNSPECIFIED zero values are left out on
# purpose: writing one is always a mistake in a config.
ENUMS: dict[str, tuple[str, ...]] = {
    "AcceleratorType": (
        "NVIDIA_TESLA_K80",
        "NVIDIA_TESLA_P100",
        "NVIDIA_TESLA_V100",
        "NVIDIA_TESLA_P4",
        "NVIDIA_TESLA_T4",
        "NVIDIA_TESLA_A100",
        "NVIDIA_A100_80GB",
        "NVIDIA_L4",
        "NVIDIA_H100_80GB",
        "NVIDIA_H100_MEGA_80GB",
        "NVIDIA_H200_141GB",
        "NVIDIA_B200",
        "NVIDIA_GB200",
        "NVIDIA_RTX_PRO_6000",
        "TPU_V2",
        "TPU_V3",
        "TPU_V4_POD",
        "TPU_V5_LITEPOD",
    ),
    "ReservationAffinity.Type": ("NO_RESERVATION", "ANY_RESERVATION", "SPECIFIC_RESERVATION"),
    # ON_DEMAND and LOW_COST are deprecated aliases in the API; spec.py rejects
    # them with a pointer to their replacements rather than as unknown words.
    "Scheduling.Strategy": ("STANDARD", "SPOT", "FLEX_START", "ON_DEMAND", "LOW_COST"),
    # The provider's own enums, not Vertex's.
    "WaitFor": tuple(word.value for word in WaitFor),
    "OnDelete": tuple(word.value for word in OnDelete),
    "ReplaceOrder": tuple(word.value for word in ReplaceOrder),
    # `auto`: FLEX_START where every pool's machine qualifies, else STANDARD.
    "FallbackStrategy": ("auto", "FLEX_START", "STANDARD"),
}
