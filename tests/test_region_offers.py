"""Which accelerators a region offers for custom training (rules/region_offers.py):
the table's answers, the rule on the job's own location, the function another
rule calls for another region, and the error a user sees in the program."""

import pytest

from components.spot_job.model import spec
from components.spot_job.rules import region_offers
from components.spot_job.rules.known import Known
from stack_config import ConfigError
from stack_config.regions import VERTEX_AI_REGIONS
from tests.fixtures import docs_request_body, job_inputs
from tests.program import Recorder, render

UNKNOWN = "04da6b54-80e4-46f7-96ec-b56ff0331ba9"
ACCELERATOR = "jobSpec.workerPoolSpecs[0].machineSpec.acceleratorType"
MACHINE = "jobSpec.workerPoolSpecs[0].machineSpec.machineType"


def with_machine(location: str = "us-central1", **machine) -> dict:
    inputs = job_inputs(location=location)
    inputs["jobSpec"]["workerPoolSpecs"][0]["machineSpec"] = machine
    return inputs


def gpu(accelerator_type: str, location: str = "us-central1", machine_type: str = "n1-standard-8") -> dict:
    return with_machine(location, machineType=machine_type, acceleratorType=accelerator_type, acceleratorCount=1)


def failures_at(inputs: dict, unknown=None) -> dict[str, str]:
    found = spec.validate(inputs) if unknown is None else spec.validate(inputs, unknown=unknown)
    return {f.path: f.reason for f in found}


# --- the table ---


@pytest.mark.parametrize(
    "region, accelerator_type, offered",
    [
        ("us-central1", "NVIDIA_TESLA_T4", True),
        ("europe-west4", "NVIDIA_TESLA_A100", True),
        ("us-east4", "NVIDIA_H100_80GB", True),
        ("asia-south2", "NVIDIA_RTX_PRO_6000", True),
        ("europe-central2", "NVIDIA_TESLA_T4", True),
        ("europe-central2", "NVIDIA_L4", False),
        ("us-east5", "NVIDIA_TESLA_T4", False),
        # Marked † on the page: listed for the region, but not for training.
        ("asia-east1", "NVIDIA_L4", False),
        ("europe-west1", "NVIDIA_L4", False),
        ("me-west1", "NVIDIA_A100_80GB", False),
        ("me-west1", "NVIDIA_TESLA_A100", True),
        # Marked * (no inference) or + (inference on an allowlist): training is fine.
        ("europe-west3", "NVIDIA_H100_MEGA_80GB", True),
        ("us-west3", "NVIDIA_B200", True),
        # A custom-training region with no row in the accelerator table offers none.
        ("europe-west9", "NVIDIA_TESLA_T4", False),
        # TPU v2/v3 by acceleratorType; v5e by its own.
        ("us-central1", "TPU_V3", True),
        ("asia-east1", "TPU_V3", False),
        ("us-west4", "TPU_V5_LITEPOD", True),
        ("europe-west4", "TPU_V5_LITEPOD", False),
    ],
)
def test_accelerator_offered_reads_googles_table(region, accelerator_type, offered):
    assert region_offers.accelerator_offered(region, accelerator_type) is offered


@pytest.mark.parametrize(
    "region, machine_type, accelerator_type, count, offered",
    [
        ("us-west1", "ct5lp-hightpu-4t", None, None, True),
        ("europe-west4", "ct5lp-hightpu-4t", None, None, False),  # TPU v5e†
        ("southamerica-west1", "ct6e-standard-4t", None, None, True),
        ("us-west1", "ct6e-standard-4t", None, None, False),
        ("us-central1", "tpu7x-standard-4t", None, None, True),
        ("europe-west4", "tpu7x-standard-4t", None, None, False),
        ("us-central1", "cloud-tpu", "TPU_V2", 32, True),
        ("us-central1", "cloud-tpu", "TPU_V3", 8, True),
        ("us-central1", "cloud-tpu", "TPU_V3", 32, False),  # no TPU v3 Pod in us-central1
        ("europe-west4", "cloud-tpu", "TPU_V3", 32, True),
    ],
)
def test_tpu_offered_reads_the_machine_type(region, machine_type, accelerator_type, count, offered):
    assert region_offers.tpu_offered(region, machine_type, accelerator_type, count) is offered


@pytest.mark.parametrize(
    "region, accelerator",
    [
        ("us-central9", "NVIDIA_TESLA_T4"),  # a region the table has no word on (extraRegions)
        ("us-central1", "NVIDIA_TESLA_K80"),  # a type the table never names
        ("us-central1", "TPU_V4_POD"),
        ("us-central1", "NVIDIA_TESLA_T5"),
    ],
)
def test_what_the_table_cannot_say_is_none(region, accelerator):
    assert region_offers.accelerator_offered(region, accelerator) is None


def test_a_machine_type_the_table_cannot_place_is_none():
    assert region_offers.tpu_offered("us-central1", "ct5p-hightpu-4t") is None
    assert region_offers.tpu_offered("us-central1", "n1-standard-8") is None
    assert region_offers.tpu_offered("us-central9", "ct6e-standard-1t") is None


def test_regions_offering_is_the_did_you_mean():
    assert region_offers.regions_offering("TPU v3 Pod") == ("europe-west4",)
    assert region_offers.regions_offering("tpu7x-standard-4t") == ("us-central1",)
    assert region_offers.regions_offering("NVIDIA_GB200") == ("us-central1", "us-east4")
    assert "asia-east1" not in region_offers.regions_offering("NVIDIA_L4")  # L4† there
    assert region_offers.regions_offering("NVIDIA_TESLA_K80") == ()


def test_the_table_covers_every_custom_training_region_and_names_only_enum_values():
    from components.spot_job.model import schema

    # The region list (gcloud's) and the accelerator table (the locations page) name the same regions:
    # each has a row, a word that it offers none, or is named as unverified (left to Google).
    assert set(region_offers.TRAINING_OFFERS) | set(region_offers.UNVERIFIED_REGIONS) == set(VERTEX_AI_REGIONS)
    assert not set(region_offers.TRAINING_OFFERS) & set(region_offers.UNVERIFIED_REGIONS)
    assert set(region_offers.GPU_TYPES) | set(region_offers.TPU_TYPES) <= set(schema.ENUMS["AcceleratorType"])


# --- the rule, on the job's own location ---


def test_a_gpu_the_jobs_region_offers_passes():
    assert failures_at(gpu("NVIDIA_TESLA_T4", "us-central1")) == {}
    assert failures_at(gpu("NVIDIA_TESLA_A100", "europe-west4", "a2-highgpu-1g")) == {}


def test_a_gpu_the_jobs_region_does_not_offer_names_the_region_and_those_that_do():
    reason = failures_at(gpu("NVIDIA_L4", "europe-central2", "g2-standard-8"))[ACCELERATOR]
    assert "NVIDIA_L4 (L4) is not offered for Vertex AI custom training in europe-central2" in reason
    assert "regions that offer it: asia-northeast3, asia-south1," in reason and "us-central1" in reason


def test_a_tpu_machine_type_the_region_does_not_offer_is_named_at_the_machine_type():
    inputs = with_machine("europe-west4", machineType="ct5lp-hightpu-4t", tpuTopology="2x2")
    reason = failures_at(inputs)[MACHINE]
    assert "ct5lp-hightpu-4t (TPU v5e) is not offered" in reason and "europe-west4" in reason
    assert "us-central1" in reason and "us-west4" in reason


def test_every_pool_is_checked():
    inputs = gpu("NVIDIA_TESLA_T4", "us-east5", "n1-standard-8")
    worker = {**inputs["jobSpec"]["workerPoolSpecs"][0], "replicaCount": 2}
    worker["machineSpec"] = {"machineType": "a3-highgpu-1g", "acceleratorType": "NVIDIA_H100_80GB", "acceleratorCount": 1}
    inputs["jobSpec"]["workerPoolSpecs"] = [inputs["jobSpec"]["workerPoolSpecs"][0], worker]
    failures = failures_at(inputs)
    assert ACCELERATOR in failures  # T4 is not in us-east5
    assert "jobSpec.workerPoolSpecs[1].machineSpec.acceleratorType" not in failures  # H100 is


def test_a_region_the_table_does_not_know_is_never_refused():
    assert failures_at(gpu("NVIDIA_TESLA_T4", "us-central9")) == {}


def test_values_a_preview_cannot_know_are_skipped():
    assert failures_at(gpu(UNKNOWN, "us-east5"), unknown=UNKNOWN) == {}
    assert failures_at(gpu("NVIDIA_TESLA_T4", UNKNOWN), unknown=UNKNOWN) == {}


def test_a_malformed_location_is_left_to_the_place_rule():
    assert list(failures_at(gpu("NVIDIA_TESLA_T4", "Nowhere"))) == ["location"]


# --- for another region (a resubmission rung's location) ---


def test_region_problems_answers_for_a_region_other_than_the_jobs_own():
    inputs = gpu("NVIDIA_TESLA_T4", "us-central1")
    known = Known(inputs, lambda value: False)
    assert region_offers.region_problems(known, "us-central1") == []
    assert region_offers.region_problems(known, "us-east1") == []
    [(path, reason)] = region_offers.region_problems(known, "us-east5")
    assert path == ACCELERATOR and "in us-east5" in reason and "us-central1" in reason
    assert region_offers.region_problems(known, "us-central9") == []


# --- through the program, as `pulumi preview` runs it ---


def test_the_program_stops_on_a_gpu_its_region_does_not_offer_naming_the_config_path():
    job = docs_request_body()["jobSpec"]
    job["workerPoolSpecs"][0]["machineSpec"] = {"machineType": "g2-standard-8", "acceleratorType": "NVIDIA_L4", "acceleratorCount": 1}
    config = {
        "gcp:project": "acme-ml-dev",
        "gcp:region": "europe-central2",
        "spot-training:environment": "dev",
        "spot-training:teams": {"vision": {"jobs": {"resnet": job}}},
    }
    recorder = Recorder()
    with pytest.raises(ConfigError) as raised:
        render(config, recorder=recorder)
    message = str(raised.value)
    assert (
        "spot-training:teams.vision.jobs.resnet.workerPoolSpecs[0].machineSpec.acceleratorType: "
        "NVIDIA_L4 (L4) is not offered for Vertex AI custom training in europe-central2" in message
    )
    assert [r for r in recorder.resources if r.typ != "pulumi:pulumi:Stack"] == []
