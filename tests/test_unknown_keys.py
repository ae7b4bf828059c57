"""An unknown key anywhere in a job is refused alike by `spot-training validate` (by its config
path) and by the provider's `check` (by its field path), with the same did-you-mean (issue 29.3).

The walk covers every object of the Vertex REST shape the spec layer knows (schema.MESSAGES): for
each, a job holding one, a misspelling of one of its fields planted in it, beside the valid fields
and alone. A message added to schema.py without a case here fails the first test.
"""

from __future__ import annotations

import copy
from typing import Any

import pytest
import yaml

from components.spot_job.model import property_paths, schema
from stack_config.keys import BODY_KEYS, KNOB_KEYS
from tests.cli_runner import spot_training_in_process
from tests.fixtures import IMAGE
from tests.program import one_job_inputs, render
from tests.provider_host import JOB_TYPE
from tests.shared_host import emulator, host  # noqa: F401 (fixtures: one host per module)

URN = f"urn:pulumi:dev::spot-training::{JOB_TYPE}::job"
JOB = "spot-training:teams.vision.jobs.job"
PREBUILT = "us-docker.pkg.dev/vertex-ai/training/sklearn-cpu.1-6:latest"
KEY = "projects/acme-ml-dev/locations/us-central1/keyRings/ml/cryptoKeys/jobs"
ATTACHMENT = "projects/acme-ml-dev/regions/us-central1/networkAttachments/training"


def pool(**fields: Any) -> dict[str, Any]:
    return {"machineSpec": {"machineType": "n1-standard-4"}, "replicaCount": 1, "containerSpec": {"imageUri": IMAGE}, **fields}


def job(**fields: Any) -> dict[str, Any]:
    """A job in the config's form (CustomJobSpec fields, plus displayName, labels, ... and the knobs)."""
    return {"workerPoolSpecs": [pool()], **fields}


GPU = {"machineType": "a2-highgpu-1g", "acceleratorType": "NVIDIA_TESLA_A100", "acceleratorCount": 1}
PSC = {"networkAttachment": ATTACHMENT}
DNS = {"domain": "corp.acme.example.", "targetProject": "acme-net", "targetNetwork": "shared-vpc"}

# message -> (a valid job holding one, the config path of that object within the job entry).
# SpotTrainingJob is the job entry itself; Quotas and ImageMirror are special (see the tests below).
WHERE: dict[str, tuple[dict[str, Any], str]] = {
    schema.RESOURCE: (job(), ""),
    "CustomJobSpec": (job(), ""),
    "WorkerPoolSpec": (job(), "workerPoolSpecs[0]"),
    "ContainerSpec": (job(), "workerPoolSpecs[0].containerSpec"),
    "EnvVar": (
        job(workerPoolSpecs=[pool(containerSpec={"imageUri": IMAGE, "env": [{"name": "A", "value": "1"}]})]),
        "workerPoolSpecs[0].containerSpec.env[0]",
    ),
    "PythonPackageSpec": (
        job(workerPoolSpecs=[{"machineSpec": {"machineType": "n1-standard-4"}, "replicaCount": 1, "pythonPackageSpec": {
            "executorImageUri": PREBUILT, "packageUris": ["gs://acme-ml-dev-staging/p.tar.gz"], "pythonModule": "trainer.task",
        }}]),
        "workerPoolSpecs[0].pythonPackageSpec",
    ),
    "MachineSpec": (job(), "workerPoolSpecs[0].machineSpec"),
    "ReservationAffinity": (
        job(
            workerPoolSpecs=[pool(machineSpec={**GPU, "reservationAffinity": {"reservationAffinityType": "ANY_RESERVATION"}})],
            scheduling={"strategy": "STANDARD"},
        ),
        "workerPoolSpecs[0].machineSpec.reservationAffinity",
    ),
    "DiskSpec": (job(workerPoolSpecs=[pool(diskSpec={"bootDiskType": "pd-ssd", "bootDiskSizeGb": 200})]), "workerPoolSpecs[0].diskSpec"),
    "NfsMount": (
        job(workerPoolSpecs=[pool(nfsMounts=[{"server": "10.0.0.2", "path": "/export", "mountPoint": "data"}])]),
        "workerPoolSpecs[0].nfsMounts[0]",
    ),
    "LustreMount": (
        job(workerPoolSpecs=[pool(lustreMounts=[{"instanceIp": "10.0.0.3", "volumeHandle": "v", "filesystem": "fs", "mountPoint": "lustre"}])]),
        "workerPoolSpecs[0].lustreMounts[0]",
    ),
    "Scheduling": (job(scheduling={"strategy": "SPOT", "timeout": "3600s"}), "scheduling"),
    "GcsDestination": (job(baseOutputDirectory={"outputUriPrefix": "gs://acme-ml-dev-out/runs"}), "baseOutputDirectory"),
    "PscInterfaceConfig": (job(pscInterfaceConfig=PSC), "pscInterfaceConfig"),
    "DnsPeeringConfig": (job(pscInterfaceConfig={**PSC, "dnsPeeringConfigs": [DNS]}), "pscInterfaceConfig.dnsPeeringConfigs[0]"),
    "EncryptionSpec": (job(encryptionSpec={"kmsKeyName": KEY}), "encryptionSpec"),
    "Resubmission": (job(resubmission={"maxResubmissions": 2}), "resubmission"),
    "FallbackRung": (
        job(resubmission={"maxResubmissions": 2, "fallback": [{"afterStockouts": 1, "strategy": "STANDARD"}]}),
        "resubmission.fallback[0]",
    ),
}
SPECIAL = {"Quotas", "ImageMirror"}


def misspelt(message: str) -> tuple[str, str]:
    """(a misspelling of the message's first field, that field): what a did-you-mean should name."""
    field = next(iter(schema.MESSAGES[message]))
    return field[:-1] + field[-1].upper() + "x", field


def planted(message: str, alone: bool) -> tuple[dict[str, Any], str, str]:
    """(the job with the misspelt key planted in its `message` object, the key's path in the job entry, the field)."""
    base, where = WHERE[message]
    entry = copy.deepcopy(base)
    typo, field = misspelt("CustomJobSpec" if message == schema.RESOURCE else message)
    target = property_paths.get(entry, property_paths.split(where)) if where else entry
    if alone and where:
        target.clear()
    target[typo] = target.pop(field, None) or "x" if alone else "x"
    return entry, f"{where}.{typo}" if where else typo, field


def field_path(config_path: str) -> str:
    top = property_paths.split(config_path)[0]
    return config_path if top in BODY_KEYS or top in KNOB_KEYS else f"jobSpec.{config_path}"


def stack_file(entry: dict[str, Any], **config: Any) -> str:
    return yaml.safe_dump({"config": {
        "gcp:project": "acme-ml-dev",
        "gcp:region": "us-central1",
        "spot-training:environment": "dev",
        "spot-training:teams": {"vision": {"members": ["group:vision-ml@acme.example"], "jobs": {"job": entry}}},
        **config,
    }})


def validate(tmp_path: Any, text: str) -> Any:
    (tmp_path / "Pulumi.dev.yaml").write_text(text, encoding="utf-8")
    return spot_training_in_process("validate", "dev", stacks_dir=tmp_path)


@pytest.fixture(scope="module")
def program_inputs() -> dict[str, Any]:
    return one_job_inputs()


def provider_inputs(base: dict[str, Any], entry: dict[str, Any]) -> dict[str, Any]:
    """What the program registers for the job entry: body keys and knobs at the top, the rest in jobSpec."""
    inputs = copy.deepcopy(base)
    for key, value in copy.deepcopy(entry).items():
        if key in BODY_KEYS or key in KNOB_KEYS:
            inputs[key] = value
        else:
            inputs["jobSpec"][key] = value
    return inputs


def test_every_object_of_the_schema_has_a_case():
    assert set(WHERE) | SPECIAL == set(schema.MESSAGES)


@pytest.mark.parametrize("alone", [False, True], ids=["beside-valid-fields", "alone"])
@pytest.mark.parametrize("message", sorted(WHERE))
def test_validate_and_check_refuse_an_unknown_key_alike(tmp_path, host, emulator, program_inputs, message, alone):
    entry, path, field = planted(message, alone)
    done = validate(tmp_path, stack_file(entry))
    said = [line.strip() for line in done.stderr.splitlines() if line.strip().startswith(f"{JOB}.{path}: ")]
    assert done.returncode == 1 and len(said) == 1, done.stderr
    inputs = provider_inputs(program_inputs, entry)
    if message == schema.RESOURCE:  # the resource's own top level, where a hand-written program may misspell
        inputs[path] = inputs["jobSpec"].pop(path)
        checked_path = path
    else:
        checked_path = field_path(path)
    checked = {f.property: f.reason for f in host.check(URN, {}, inputs).failures}
    assert checked_path in checked, checked
    for reason in (said[0], checked[checked_path]):
        assert "unknown" in reason, reason
    assert f"did you mean {field!r}?" in said[0], said[0]
    if message != schema.RESOURCE:
        assert said[0] == f"{JOB}.{path}: {checked[checked_path]}"
    assert "Traceback" not in done.stderr
    assert sum(emulator.calls.values()) == 0


def test_the_issues_misspelt_output_directory_is_refused_not_replaced(tmp_path, host, emulator, program_inputs):
    """`baseOutputDirectory: {outputUri: ...}` once passed validate, and the program registered the team's default
    output directory in its place: the job's output went elsewhere, silently."""
    entry = job(baseOutputDirectory={"outputUri": "gs://acme-ml-dev-out/runs"})
    done = validate(tmp_path, stack_file(entry))
    assert done.returncode == 1
    assert f"{JOB}.baseOutputDirectory.outputUri: unknown field; did you mean 'outputUriPrefix'?" in done.stderr, done.stderr
    checked = {f.property: f.reason for f in host.check(URN, {}, provider_inputs(program_inputs, entry)).failures}
    assert checked["jobSpec.baseOutputDirectory.outputUri"] == "unknown field; did you mean 'outputUriPrefix'?", checked
    config = yaml.safe_load(stack_file(entry))["config"]
    with pytest.raises(Exception, match=r"baseOutputDirectory\.outputUri: unknown field"):
        render(config)


def test_an_unknown_quota_is_refused_alike(tmp_path, host, emulator, program_inputs):
    """Quotas reach each job as the knob `quotas`, from the stack key spot-training:quotas."""
    done = validate(tmp_path, stack_file(job(), **{"spot-training:quotas": {"callsPerMinut": 300}}))
    assert done.returncode == 1
    assert "spot-training:quotas.callsPerMinut: unknown key; did you mean 'callsPerMinute'?" in done.stderr, done.stderr
    inputs = {**program_inputs, "quotas": {"callsPerMinut": 300}}
    checked = {f.property: f.reason for f in host.check(URN, {}, inputs).failures}
    assert checked == {"quotas.callsPerMinut": "unknown field; did you mean 'callsPerMinute'?"}


def test_image_mirrors_are_the_stacks_own_and_refused_in_a_job_entry(tmp_path, host, emulator, program_inputs):
    """The team derives imageMirrors from repository.replicaRegions: a job entry cannot set them, and check
    refuses an unknown key in one that a hand-written program registers."""
    mirror = {"location": "us-east1", "from": "us-central1-docker.pkg.dev/", "to": "us-east1-docker.pkg.dev/"}
    done = validate(tmp_path, stack_file(job(imageMirrors=[mirror])))
    assert done.returncode == 1
    assert f"{JOB}.imageMirrors: unknown field" in done.stderr, done.stderr
    inputs = {**program_inputs, "imageMirrors": [{**mirror, "locaton": "us-east1"}]}
    checked = {f.property: f.reason for f in host.check(URN, {}, inputs).failures}
    assert checked == {"imageMirrors[0].locaton": "unknown field; did you mean 'location'?"}
