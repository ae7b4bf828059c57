"""Google's rules from Google's own definitions (issue 23): what Vertex refuses is
refused by its config path before any call, what it accepts is accepted.

Each case goes through the two layers a user meets: `spot-training validate`
on a stack file (the config path), and the provider's `Check` under the
dynamic provider host (the field path). The sources are cited per case; the
rules and their sources are listed in docs/rules.md.
"""

from __future__ import annotations

import copy
import re

import pytest
import yaml

from components.spot_job.rules.reservations import BY_NAME
from tests.cli_runner import spot_training_in_process
from tests.fixtures import IMAGE
from tests.program import one_job_inputs
from tests.provider_host import JOB_TYPE
from tests.shared_host import emulator, host  # noqa: F401 (fixtures: one host per module)

URN = f"urn:pulumi:dev::spot-training::{JOB_TYPE}::job"
POOL = "workerPoolSpecs[0]"
MACHINE = f"{POOL}.machineSpec"
PREBUILT = "us-docker.pkg.dev/vertex-ai/training/sklearn-cpu.1-6:latest"
PACKAGE = "gs://acme-ml-dev-staging/packages/trainer-0.1.0.tar.gz"
PROJECT_NUMBER_NETWORK = "projects/123456789012/global/networks/training-vpc"
EXPERIMENT = "projects/acme-ml-dev/locations/us-central1/metadataStores/default/contexts/resnet"
TENSORBOARD = "projects/acme-ml-dev/locations/us-central1/tensorboards/123"
ATTACHMENT = "projects/acme-ml-dev/regions/us-central1/networkAttachments/training"


def container(machine: dict | None = None, **spec) -> dict:
    """A job (the config's form: CustomJobSpec fields, plus labels, ...) on one container pool."""
    pool = {"machineSpec": machine or {"machineType": "n1-standard-4"}, "replicaCount": 1, "containerSpec": {"imageUri": IMAGE}}
    return {"workerPoolSpecs": [pool], **spec}


def gpu(machine_type: str, accelerator_type: str, count: int, strategy: str | None = None, **machine) -> dict:
    job = container({"machineType": machine_type, "acceleratorType": accelerator_type, "acceleratorCount": count, **machine})
    if strategy:
        job["scheduling"] = {"strategy": strategy}
    return job


def package(executor: str, env: list | None = None) -> dict:
    spec = {"executorImageUri": executor, "packageUris": [PACKAGE], "pythonModule": "trainer.task", **({"env": env} if env else {})}
    return {"workerPoolSpecs": [{"machineSpec": {"machineType": "n1-standard-4"}, "replicaCount": 1, "pythonPackageSpec": spec}]}


def with_env(n: int) -> dict:
    job = container()
    job["workerPoolSpecs"][0]["containerSpec"]["env"] = [{"name": f"V{i}", "value": "1"} for i in range(n)]
    return job


def tpu_with(machine_type: str, topology: str, accelerator_type: str, count: int) -> dict:
    return container({"machineType": machine_type, "tpuTopology": topology, "acceleratorType": accelerator_type, "acceleratorCount": count})


def tpu(machine_type: str, topology: str | None) -> dict:
    return container({"machineType": machine_type, **({"tpuTopology": topology} if topology else {})})


REFUSED = [
    # 1. PythonPackageSpec.executor_image_uri: "You must use an image from this list" (custom_job.proto).
    ("a python package on an image of the team's own", package(IMAGE), "us-central1", f"{POOL}.pythonPackageSpec.executorImageUri"),
    # 2. ContainerSpec.env, PythonPackageSpec.env: "Maximum limit is 100." (custom_job.proto)
    ("101 env entries in a container", with_env(101), "us-central1", f"{POOL}.containerSpec.env"),
    (
        "101 env entries in a python package",
        package(PREBUILT, [{"name": f"V{i}", "value": "1"} for i in range(101)]),
        "us-central1",
        f"{POOL}.pythonPackageSpec.env",
    ),
    # 3. MachineSpec.gpu_partition_size: "If set, the accelerator_count should be set to 1." (machine_resources.proto)
    ("a GPU partition on two GPUs", gpu("a2-highgpu-2g", "NVIDIA_TESLA_A100", 2, gpuPartitionSize="1g.5gb"), "us-central1", f"{MACHINE}.acceleratorCount"),
    # 4. ReservationAffinity: "When chosen, the reservation must be identified via the key and values fields."
    (
        "a specific reservation without its name",
        gpu("a2-highgpu-1g", "NVIDIA_TESLA_A100", 1, "STANDARD", reservationAffinity={"reservationAffinityType": "SPECIFIC_RESERVATION"}),
        "us-central1",
        f"{MACHINE}.reservationAffinity.key",
    ),
    # 5. The SDK's tpu_topology: "This field is required for TPU v5 versions." (jobs.py)
    ("a TPU v5e machine without a topology", tpu("ct5lp-hightpu-4t", None), "us-west1", f"{MACHINE}.tpuTopology"),
    # 6. Compute Engine's GPU machine types: each A/G machine type carries one GPU type, in one count.
    ("a T4 on an A2 machine", gpu("a2-highgpu-1g", "NVIDIA_TESLA_T4", 1), "us-central1", f"{MACHINE}.acceleratorType"),
    ("two A100s on a one-GPU A2 machine", gpu("a2-highgpu-1g", "NVIDIA_TESLA_A100", 2), "us-central1", f"{MACHINE}.acceleratorCount"),
    ("an H100 80GB on an H100 Mega machine", gpu("a3-megagpu-8g", "NVIDIA_H100_80GB", 8), "us-central1", f"{MACHINE}.acceleratorType"),
    ("one L4 on a two-L4 G2 machine", gpu("g2-standard-24", "NVIDIA_L4", 1), "us-central1", f"{MACHINE}.acceleratorCount"),
    ("an L4 on an N1 machine", gpu("n1-standard-8", "NVIDIA_L4", 1), "us-central1", f"{MACHINE}.acceleratorType"),
    ("three T4s on an N1 machine", gpu("n1-standard-8", "NVIDIA_TESLA_T4", 3), "us-central1", f"{MACHINE}.acceleratorCount"),
    # 7. The SDK's CustomJob.run: "'experiment' and 'tensorboard' cannot be set together";
    #    experiment_run "can only be set when `experiment` is set".
    ("an experiment and a TensorBoard", container(experiment=EXPERIMENT, tensorboard=TENSORBOARD), "us-central1", "experiment"),
    ("an experiment run without its experiment", container(experimentRun=EXPERIMENT + "-run-1"), "us-central1", "experimentRun"),
    # 8. Spot on a GPU sold only through reservations: "Any GPU machine except A4X" (AI Hypercomputer consumption options).
    ("GB200 on Spot", gpu("a4x-highgpu-4g", "NVIDIA_GB200", 4), "us-central1", f"{MACHINE}.machineType"),
    # 10. CustomJob.labels: "no longer than 64 characters (Unicode codepoints)"; a key starts with a letter.
    ("a label key of 65 code points", {**container(), "labels": {"k" * 65: "v"}}, "us-central1", "labels." + "k" * 65),
    ("a label key starting with a digit", {**container(), "labels": {"1team": "v"}}, "us-central1", "labels.1team"),
    # 13. The deprecated LOW_COST stays refused, as this project's documented choice, pointing to SPOT.
    ("the deprecated LOW_COST", container(scheduling={"strategy": "LOW_COST"}), "us-central1", "scheduling.strategy"),
    # 14. Machine types (rules/machine_types.py): Compute Engine names a machine type series-type-size
    #     (compute/docs/machine-resource); a name of no known series, or of a type no series has, cannot exist.
    ("a machine type that is no name", container({"machineType": "banana"}), "us-central1", f"{MACHINE}.machineType"),
    ("a misspelt machine type", container({"machineType": "n1-standrad-8"}), "us-central1", f"{MACHINE}.machineType"),
    ("a machine type of no known series", container({"machineType": "q7-standard-8"}), "us-central1", f"{MACHINE}.machineType"),
    ("an accelerator-optimised type in the wrong series", container({"machineType": "n2-highgpu-8g"}), "us-central1", f"{MACHINE}.machineType"),
    #     GPUs attach to N1 only; other series carry none, or their own (Compute Engine's GPU machine types).
    ("a T4 on an N2 machine", gpu("n2-standard-8", "NVIDIA_TESLA_T4", 1), "us-central1", f"{MACHINE}.acceleratorType"),
    ("an A100 on an E2 machine", gpu("e2-standard-8", "NVIDIA_TESLA_A100", 1), "us-central1", f"{MACHINE}.acceleratorType"),
    #     A TPU machine carries TPUs, a GPU or CPU machine none; TPU v2/v3 run on cloud-tpu ([V], TPUs).
    ("a GPU on a TPU v5e machine", tpu_with("ct5lp-hightpu-4t", "2x2", "NVIDIA_TESLA_T4", 1), "us-west1", f"{MACHINE}.acceleratorType"),
    ("a GPU on cloud-tpu", gpu("cloud-tpu", "NVIDIA_TESLA_T4", 1), "us-central1", f"{MACHINE}.acceleratorType"),
    ("TPU v2 on an N1 machine", gpu("n1-standard-8", "TPU_V2", 8), "us-central1", f"{MACHINE}.acceleratorType"),
    #     A GPU machine's size counts GPUs (`8g`), a TPU host's chips (`4t`), a CPU machine's vCPUs (no letter).
    ("a TPU host's size without its t", tpu("ct5lp-hightpu-4", "2x2"), "us-west1", f"{MACHINE}.machineType"),
    ("a GPU machine's size without its g", container({"machineType": "a2-highgpu-1"}), "us-central1", f"{MACHINE}.machineType"),
    ("a CPU machine's size with a g", container({"machineType": "n2-standard-8g"}), "us-central1", f"{MACHINE}.machineType"),
    #     MachineSpec.tpu_topology: "The topology of the TPUs" (machine_resources.proto): not of a GPU machine.
    ("a TPU topology on a GPU machine", gpu("a3-highgpu-8g", "NVIDIA_H100_80GB", 8, tpuTopology="2x2"), "us-central1", f"{MACHINE}.tpuTopology"),
    # 9. CustomJobSpec.network: "Where {project} is a project number" (custom_job.proto).
    ("a network named by project id", container(network="projects/acme-ml-dev/global/networks/training-vpc"), "us-central1", "network"),
    # 14. Google's pipeline components (kubeflow/pipelines, container/v1/custom_job/remote_runner.py): "max_wait_duration
    #     is acceptable only when strategy is FLEX_START in CustomJob API", so they delete it for any other strategy.
    ("maxWaitDuration on Spot", container(scheduling={"strategy": "SPOT", "maxWaitDuration": "3600s"}), "us-central1", "scheduling.maxWaitDuration"),
    ("maxWaitDuration on STANDARD", container(scheduling={"strategy": "STANDARD", "maxWaitDuration": "3600s"}), "us-central1", "scheduling.maxWaitDuration"),
    ("maxWaitDuration without a strategy (SPOT)", container(scheduling={"maxWaitDuration": "3600s"}), "us-central1", "scheduling.maxWaitDuration"),
    # 15. AcceleratorType.NVIDIA_TESLA_K80 (accelerator_type.proto): "[deprecated = true]", "has reached end of support".
    ("a K80 on an N1 machine", gpu("n1-standard-8", "NVIDIA_TESLA_K80", 1), "us-central1", f"{MACHINE}.acceleratorType"),
    ("a K80 on a machine type neither table names", gpu("n2-standard-8", "NVIDIA_TESLA_K80", 1), "us-central1", f"{MACHINE}.acceleratorType"),
    # 16. Google's pipeline components (kubeflow/pipelines, v1/custom_job/utils.py): "`network` and
    #     `psc_interface_config` field cannot be set at the same time." (a ValueError before any job is made).
    ("a peered network and a PSC interface", container(network=PROJECT_NUMBER_NETWORK, pscInterfaceConfig={"networkAttachment": ATTACHMENT}), "us-central1", "pscInterfaceConfig"),
]

ACCEPTED = [
    # Google's own forms, as Google's pages and the SDK write them.
    ("a python package on a prebuilt image", package(PREBUILT), "us-central1"),
    ("a python package on the SDK's example image", package("gcr.io/cloud-aiplatform/training/tf-cpu.2-2:latest"), "us-central1"),
    ("a python package on a prebuilt image in Europe", package("europe-docker.pkg.dev/vertex-ai/training/pytorch-gpu.2-4.py310:latest"), "us-central1"),
    ("100 env entries", with_env(100), "us-central1"),
    ("a GPU partition on one A100", gpu("a2-highgpu-1g", "NVIDIA_TESLA_A100", 1, gpuPartitionSize="1g.5gb"), "us-central1"),
    (
        "a specific reservation named by key and values",
        gpu(
            "a2-highgpu-1g", "NVIDIA_TESLA_A100", 1, "STANDARD",
            reservationAffinity={
                "reservationAffinityType": "SPECIFIC_RESERVATION",
                "key": "compute.googleapis.com/reservation-name",
                "values": ["projects/acme-ml-dev/zones/us-central1-a/reservations/a100"],
            },
        ),
        "us-central1",
    ),
    ("a TPU v5e slice with its topology", tpu("ct5lp-hightpu-4t", "2x2"), "us-west1"),
    ("one A100 on a2-highgpu-1g", gpu("a2-highgpu-1g", "NVIDIA_TESLA_A100", 1), "us-central1"),
    ("sixteen A100s on a2-megagpu-16g", gpu("a2-megagpu-16g", "NVIDIA_TESLA_A100", 16), "us-central1"),
    ("eight H100s on a3-highgpu-8g", gpu("a3-highgpu-8g", "NVIDIA_H100_80GB", 8), "us-central1"),
    ("two L4s on g2-standard-24", gpu("g2-standard-24", "NVIDIA_L4", 2), "us-central1"),
    ("four T4s on an N1 machine", gpu("n1-standard-16", "NVIDIA_TESLA_T4", 4), "us-central1"),
    ("an experiment with its run", container(experiment=EXPERIMENT, experimentRun=EXPERIMENT + "-run-1"), "us-central1"),
    ("a TensorBoard", container(tensorboard=TENSORBOARD), "us-central1"),
    ("a network named by project number", container(network=PROJECT_NUMBER_NETWORK), "us-central1"),
    ("a PSC interface without a peered network", container(pscInterfaceConfig={"networkAttachment": ATTACHMENT}), "us-central1"),
    ("GB200 on STANDARD", gpu("a4x-highgpu-4g", "NVIDIA_GB200", 4, "STANDARD"), "us-central1"),
    # 10. CustomJob.labels: "International characters are allowed", "no longer than 64 characters (Unicode codepoints)".
    ("a label key in another script", {**container(), "labels": {"équipe": "vision", "部署": "ビジョン"}}, "us-central1"),
    ("a label key and value of 64 code points", {**container(), "labels": {"k" * 64: "é" * 64}}, "us-central1"),
    # 11. gcloud's SUPPORTED_TRAINING_REGIONS (command_lib/ai/constants.py).
    ("a job in asia-south2", gpu("g4-standard-48", "NVIDIA_RTX_PRO_6000", 1), "asia-south2"),
    ("a job in europe-north2", container(), "europe-north2"),
    # 13. No source says Vertex refuses these: left to Google (the pack's advisory job-spec-advice speaks of the last two).
    ("a timeout of 0s", container(scheduling={"timeout": "0s"}), "us-central1"),
    # 14. maxWaitDuration where the API accepts it: with FLEX_START (its 0, "wait indefinitely", too).
    ("maxWaitDuration on Flex-start", gpu("g2-standard-8", "NVIDIA_L4", 1, "FLEX_START") | {"scheduling": {"strategy": "FLEX_START", "maxWaitDuration": "3600s"}}, "us-central1"),
    ("maxWaitDuration 0s on Flex-start", gpu("g2-standard-8", "NVIDIA_L4", 1, "FLEX_START") | {"scheduling": {"strategy": "FLEX_START", "maxWaitDuration": "0s"}}, "us-central1"),
    ("an env variable set twice", {"workerPoolSpecs": [{**with_env(1)["workerPoolSpecs"][0], "containerSpec": {"imageUri": IMAGE, "env": [{"name": "A", "value": "1"}, {"name": "A", "value": "2"}]}}]}, "us-central1"),
    ("a TensorBoard in another region", container(tensorboard="projects/acme-ml-dev/locations/europe-west4/tensorboards/1"), "us-central1"),
    # 14. Machine types [V] lists for training, of each CPU series.
    ("an N2 machine", container({"machineType": "n2-standard-8"}), "us-central1"),
    ("an E2 high-memory machine", container({"machineType": "e2-highmem-16"}), "us-central1"),
    ("a C2 machine", container({"machineType": "c2-standard-60"}), "us-central1"),
    ("an M1 machine", container({"machineType": "m1-ultramem-40"}), "us-central1"),
    ("an N1 high-CPU machine", container({"machineType": "n1-highcpu-96"}), "us-central1"),
    # 12. NO_RESERVATION consumes no reservation, so Flex-start takes it.
    ("Flex-start saying it takes no reservation", gpu("g2-standard-8", "NVIDIA_L4", 1, "FLEX_START", reservationAffinity={"reservationAffinityType": "NO_RESERVATION"}), "us-central1"),
]


def stack_file(job: dict, region: str, **team) -> str:
    config = {
        "gcp:project": "acme-ml-dev",
        "gcp:region": region,
        "spot-training:environment": "dev",
        "spot-training:teams": {"vision": {"members": ["group:vision-ml@acme.example"], **team, "jobs": {"job": job}}},
    }
    return yaml.safe_dump({"config": config}, allow_unicode=True)


def validate(tmp_path, job: dict, region: str):
    (tmp_path / "Pulumi.dev.yaml").write_text(stack_file(job, region), encoding="utf-8")
    return spot_training_in_process("validate", "dev", stacks_dir=tmp_path)


@pytest.fixture(scope="module")
def program_inputs():
    return one_job_inputs()


def provider_inputs(base: dict, job: dict, region: str) -> dict:
    """What the program registers for `job`: its fields over the team's defaults (service account, output directory)."""
    inputs = copy.deepcopy(base)
    inputs["location"] = region
    for key, value in copy.deepcopy(job).items():
        if key == "labels":
            inputs["labels"] = {**inputs["labels"], **value}
        else:
            inputs["jobSpec"][key] = value
    return inputs


def field_path(config_path: str) -> str:
    return config_path if config_path.startswith("labels") else f"jobSpec.{config_path}"


@pytest.mark.parametrize("job, region, path", [c[1:] for c in REFUSED], ids=[c[0] for c in REFUSED])
def test_validate_refuses_by_config_path(tmp_path, job, region, path):
    done = validate(tmp_path, job, region)
    assert done.returncode == 1, done.stdout
    assert "Traceback" not in done.stderr
    assert f"spot-training:teams.vision.jobs.job.{path}: " in done.stderr, done.stderr


@pytest.mark.parametrize("job, region, path", [c[1:] for c in REFUSED], ids=[c[0] for c in REFUSED])
def test_check_under_the_host_refuses_by_field_path(host, emulator, program_inputs, job, region, path):
    checked = host.check(URN, {}, provider_inputs(program_inputs, job, region))
    failures = {f.property: f.reason for f in checked.failures}
    assert field_path(path) in failures, failures
    assert sum(emulator.calls.values()) == 0


@pytest.mark.parametrize("job, region", [c[1:] for c in ACCEPTED], ids=[c[0] for c in ACCEPTED])
def test_validate_accepts(tmp_path, job, region):
    done = validate(tmp_path, job, region)
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines() == ["dev: valid (1 jobs of 1 teams: vision)"], done.stdout
    assert "warning" not in done.stderr, done.stderr  # every machine type here is one a table lists


@pytest.mark.parametrize("job, region", [c[1:] for c in ACCEPTED], ids=[c[0] for c in ACCEPTED])
def test_check_under_the_host_accepts(host, emulator, program_inputs, job, region):
    checked = host.check(URN, {}, provider_inputs(program_inputs, job, region))
    assert list(checked.failures) == []


def test_a_team_image_as_executor_image_is_refused_saying_to_use_a_container(tmp_path):
    # docs/config.md once showed executorImageUri: "${images.trainer}"; Vertex takes only its prebuilt images there.
    job = package("${images.trainer}")
    text = stack_file(job, "us-central1", images={"trainer": {"name": "trainer", "tag": "2026-11-30"}})
    (tmp_path / "Pulumi.dev.yaml").write_text(text, encoding="utf-8")
    done = spot_training_in_process("validate", "dev", stacks_dir=tmp_path)
    assert done.returncode == 1
    line = next(x for x in done.stderr.splitlines() if f"jobs.job.{POOL}.pythonPackageSpec.executorImageUri: " in x)
    assert "prebuilt training images" in line and "containerSpec.imageUri" in line
    assert "stand-in" not in done.stderr


@pytest.mark.parametrize("field, value", [("experiment", EXPERIMENT), ("tensorboard", TENSORBOARD)])
def test_an_experiment_or_tensorboard_needs_a_service_account(tmp_path, host, emulator, program_inputs, field, value):
    # The SDK: "`service_account` is required with provided `experiment`" (and `tensorboard`).
    # Through the config the team's own training account is that account, so the job is valid...
    assert validate(tmp_path, container(**{field: value}), "us-central1").returncode == 0
    # ...and a job registered without one (the typed API, a hand-written program) is refused at Check.
    inputs = provider_inputs(program_inputs, container(**{field: value}), "us-central1")
    del inputs["jobSpec"]["serviceAccount"]
    checked = host.check(URN, {}, inputs)
    assert [f.property for f in checked.failures] == ["jobSpec.serviceAccount"]


def test_values_a_preview_cannot_know_are_left_to_up():
    """The new rules judge only what is known: a team image digest, a network or an account computed at deploy time pass the preview."""
    from components.spot_job.model import spec

    unknown = "04da6b54-80e4-46f7-96ec-b56ff0331ba9"
    inputs = provider_inputs(one_job_inputs(), package(unknown), "us-central1")
    inputs["jobSpec"].update(network=unknown, serviceAccount=unknown, tensorboard=TENSORBOARD)
    inputs["jobSpec"]["workerPoolSpecs"][0]["machineSpec"] = {
        "machineType": unknown, "acceleratorType": "NVIDIA_TESLA_T4", "acceleratorCount": 3,
        "reservationAffinity": {"reservationAffinityType": "SPECIFIC_RESERVATION", "key": BY_NAME, "values": unknown},
    }
    inputs["jobSpec"]["scheduling"] = {"strategy": "STANDARD"}
    assert [(f.path, f.reason) for f in spec.validate(inputs, unknown=unknown)] == []


def test_max_wait_duration_off_flex_start_is_refused_saying_why(tmp_path, host, emulator, program_inputs):
    """Both layers give the reason Google's own launcher acts on, and what to write instead."""
    job = container(scheduling={"strategy": "STANDARD", "maxWaitDuration": "3600s"})
    done = validate(tmp_path, job, "us-central1")
    line = next(x for x in done.stderr.splitlines() if "jobs.job.scheduling.maxWaitDuration: " in x)
    checked = host.check(URN, {}, provider_inputs(program_inputs, job, "us-central1"))
    reason = {f.property: f.reason for f in checked.failures}["jobSpec.scheduling.maxWaitDuration"]
    for said in (line, reason):
        assert "only with strategy FLEX_START" in said and "STANDARD" in said and "remove" in said, said
    assert sum(emulator.calls.values()) == 0


def deprecated_in_installed_protos(enum: type) -> list[str]:
    """The values the installed Vertex AI client's generated enum marks deprecated: its docstring, generated from
    the proto's comments, says "Deprecated" first under each (the proto-plus descriptors drop the option itself)."""
    doc = enum.__doc__ or ""
    values = re.findall(r"^( +)([A-Z0-9_]+) \(\d+\):\n((?:\1    .*\n?)+)", doc, re.MULTILINE)
    assert values, f"no values found in {enum.__name__}'s docstring"
    return [name for _, name, text in values if text.strip().startswith("Deprecated")]


def test_the_installed_protos_deprecate_what_the_rules_refuse():
    """Every Vertex enum the spec takes (test_schema's ENUM_PROTOS): a value Google deprecates in a later
    client shows up here, not as a job Vertex refuses."""
    from components.spot_job.rules.accelerator_support import END_OF_SUPPORT
    from components.spot_job.rules.scheduling import DEPRECATED_STRATEGIES
    from tests.test_schema import ENUM_PROTOS

    refused = {"AcceleratorType": set(END_OF_SUPPORT), "Scheduling.Strategy": set(DEPRECATED_STRATEGIES), "ReservationAffinity.Type": set()}
    assert set(refused) == set(ENUM_PROTOS)
    for name, enum in ENUM_PROTOS.items():
        assert set(deprecated_in_installed_protos(enum)) == refused[name], name


@pytest.mark.parametrize("machine_type", ["n1-standard-8", "a2-highgpu-1g", "n2-standard-8"])
def test_a_k80_is_refused_as_past_its_end_of_support(tmp_path, host, emulator, program_inputs, machine_type):
    """The reason is the proto's (end of support), not that the GPU comes with a machine type of its own."""
    job = gpu(machine_type, "NVIDIA_TESLA_K80", 1)
    done = validate(tmp_path, job, "us-central1")
    lines = [x for x in done.stderr.splitlines() if f"jobs.job.{MACHINE}.acceleratorType: " in x]
    checked = host.check(URN, {}, provider_inputs(program_inputs, job, "us-central1"))
    reasons = [f.reason for f in checked.failures if f.property == f"jobSpec.{MACHINE}.acceleratorType"]
    assert len(lines) == 1 and len(reasons) == 1, (done.stderr, list(checked.failures))
    for said in (lines[0], reasons[0]):
        assert "end of support" in said and "https://cloud.google.com/compute/docs/eol/k80-eol" in said, said
        assert "own machine type" not in said and "carries" not in said, said
    assert sum(emulator.calls.values()) == 0


def test_a_misspelt_accelerator_is_not_offered_a_deprecated_one(tmp_path):
    """The values the error lists are ones a job may use: not K80, past its end of support."""
    done = validate(tmp_path, gpu("n1-standard-8", "NVIDIA_TESLA_T5", 1), "us-central1")
    line = next(x for x in done.stderr.splitlines() if f"jobs.job.{MACHINE}.acceleratorType: " in x)
    assert "NVIDIA_TESLA_T4" in line and "NVIDIA_TESLA_K80" not in line, line


def test_a_peered_network_and_a_psc_interface_are_refused_saying_to_pick_one(tmp_path, host, emulator, program_inputs):
    job = container(network=PROJECT_NUMBER_NETWORK, pscInterfaceConfig={"networkAttachment": ATTACHMENT})
    done = validate(tmp_path, job, "us-central1")
    line = next(x for x in done.stderr.splitlines() if "jobs.job.pscInterfaceConfig: " in x)
    checked = host.check(URN, {}, provider_inputs(program_inputs, job, "us-central1"))
    reason = {f.property: f.reason for f in checked.failures}["jobSpec.pscInterfaceConfig"]
    for said in (line, reason):
        assert "network" in said and "not both" in said, said
    assert sum(emulator.calls.values()) == 0


def test_max_wait_duration_waits_for_a_strategy_a_preview_cannot_know():
    """A strategy computed at deploy time is judged at `up`, once known; a known one at once."""
    from components.spot_job.model import spec

    unknown = "04da6b54-80e4-46f7-96ec-b56ff0331ba9"
    inputs = provider_inputs(one_job_inputs(), container(scheduling={"strategy": unknown, "maxWaitDuration": "600s"}), "us-central1")
    assert [f.path for f in spec.validate(inputs, unknown=unknown)] == []
    inputs["jobSpec"]["scheduling"]["strategy"] = "SPOT"
    assert [f.path for f in spec.validate(inputs, unknown=unknown)] == ["jobSpec.scheduling.maxWaitDuration"]


@pytest.mark.parametrize(
    "machine_type, meant",
    [("n1-standrad-8", "n1-standard-8"), ("n2-standard8", "n2-standard-8"), ("a2-higpu-1g", "a2-highgpu-1g"), ("N1-STANDARD-4", "n1-standard-4")],
)
def test_a_misspelt_machine_type_gets_a_did_you_mean(tmp_path, machine_type, meant):
    done = validate(tmp_path, container({"machineType": machine_type}), "us-central1")
    assert done.returncode == 1 and "Traceback" not in done.stderr
    line = next(x for x in done.stderr.splitlines() if f"jobs.job.{MACHINE}.machineType:" in x)
    assert f"did you mean {meant!r}?" in line, line


def test_a_gpu_on_a_series_that_carries_none_says_where_it_attaches(tmp_path):
    done = validate(tmp_path, gpu("n2-standard-8", "NVIDIA_TESLA_T4", 1), "us-central1")
    line = next(x for x in done.stderr.splitlines() if f"jobs.job.{MACHINE}.acceleratorType:" in x)
    assert "n2-standard-8 carries no GPU" in line and "n1-standard-8" in line, line


@pytest.mark.parametrize(
    "machine_type",
    ["n2-highmem-128", "c3-standard-8", "n2d-standard-8", "a3-highgpu-16g", "f1-micro", "e2-medium", "n2-custom-8-16384",
     "e2-custom-medium-1024", "c4-standard-288-metal", "z3-highmem-88-highlssd"],
)
def test_a_well_formed_machine_type_no_table_lists_is_warned_of_not_refused(tmp_path, machine_type):
    done = validate(tmp_path, container({"machineType": machine_type}), "us-central1")
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("dev: valid")
    assert f"warning: spot-training:teams.vision.jobs.job.{MACHINE}.machineType: {machine_type}" in done.stderr, done.stderr
    assert "left to Google" in done.stderr


@pytest.mark.parametrize("machine_type", ["banana", "n1-standrad-8", "n2-standard-8"])
def test_check_and_validate_agree_on_machine_types(tmp_path, host, emulator, program_inputs, machine_type):
    job = gpu(machine_type, "NVIDIA_TESLA_T4", 1)
    done = validate(tmp_path, job, "us-central1")
    checked = host.check(URN, {}, provider_inputs(program_inputs, job, "us-central1"))
    refused_by_check = {f.property for f in checked.failures}
    refused_by_validate = {p for p in refused_by_check if f"jobs.job.{p.removeprefix('jobSpec.')}: " in done.stderr}
    assert refused_by_check and refused_by_check == refused_by_validate, (refused_by_check, done.stderr)


def test_a_gpu_on_cloud_tpu_is_one_error_about_the_type_not_also_one_about_the_count(tmp_path):
    done = validate(tmp_path, gpu("cloud-tpu", "NVIDIA_TESLA_T4", 1), "us-central1")
    lines = [x for x in done.stderr.splitlines() if "jobs.job." in x]
    assert len(lines) == 1 and f"{MACHINE}.acceleratorType:" in lines[0], done.stderr


def test_a_misspelt_machine_type_is_one_error_not_also_one_about_its_gpu(tmp_path):
    done = validate(tmp_path, gpu("n1-standrad-8", "NVIDIA_L4", 1), "us-central1")
    lines = [x for x in done.stderr.splitlines() if "jobs.job." in x]
    assert len(lines) == 1 and f"{MACHINE}.machineType:" in lines[0], done.stderr


def test_check_under_the_host_lists_a_typo_alone_as_validate_does(tmp_path, host, emulator, program_inputs):
    job = container({"machinetype": "n1-standard-4"})
    checked = host.check(URN, {}, provider_inputs(program_inputs, job, "us-central1"))
    assert [(f.property, "did you mean 'machineType'?" in f.reason) for f in checked.failures] == [(f"jobSpec.{MACHINE}.machinetype", True)]
    done = validate(tmp_path, job, "us-central1")
    assert [x.strip().split(": ")[0] for x in done.stderr.splitlines()[1:]] == [f"spot-training:teams.vision.jobs.job.{MACHINE}.machinetype"]


def test_a_did_you_mean_is_never_a_machine_type_the_rules_refuse_for_the_job(tmp_path):
    # europe-west1 offers no A100 for training (rules/region_offers.py): a2-highgpu-1g is no fix there.
    done = validate(tmp_path, gpu("a2-higpu-1g", "NVIDIA_TESLA_A100", 1), "europe-west1")
    line = next(x for x in done.stderr.splitlines() if f"{MACHINE}.machineType:" in x)
    assert "a2-highgpu-1g" not in line, line
    done = validate(tmp_path, gpu("a2-higpu-1g", "NVIDIA_TESLA_A100", 1), "us-central1")
    assert "did you mean 'a2-highgpu-1g'?" in done.stderr


def test_a_machine_to_write_for_a_gpu_is_never_one_the_rules_refuse_for_the_job(tmp_path):
    # A100 is not offered in europe-west1: no A2 machine type is a fix there.
    done = validate(tmp_path, gpu("n2-standard-8", "NVIDIA_TESLA_A100", 1), "europe-west1")
    line = next(x for x in done.stderr.splitlines() if f"{MACHINE}.acceleratorType:" in x and "carries no GPU" in x)
    assert "a2-highgpu" not in line, line
