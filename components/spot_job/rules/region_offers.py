"""Which accelerators Vertex AI custom training offers in which region: a GPU
or TPU the job's region does not offer for training is refused, naming the
regions that do.

Source: "Vertex AI locations" (now "Locations for machine learning services"),
section "Region considerations" > "Using accelerators": "Accelerators are
available on a region basis. The following table lists all the available
accelerators for each region." An accelerator marked † there "isn't available
for training" and is left out below; * (not for inference) and + (inference on
an allowlist only) say nothing about training and are kept.
https://cloud.google.com/vertex-ai/docs/general/locations#accelerators
https://docs.cloud.google.com/gemini-enterprise-agent-platform/machine-learning/general/locations#accelerators
The names (`NVIDIA_TESLA_T4`, ...) and the TPU machine types they run on are
from "Configure compute resources for serverless training" ("The type of GPU
that you choose must be available in the location where you are performing
serverless training"), sections GPUs and TPUs:
https://cloud.google.com/vertex-ai/docs/training/configure-compute#specifying_gpus
https://docs.cloud.google.com/gemini-enterprise-agent-platform/machine-learning/training/configure-compute#tpu

Unknown is never refused: a region the table has no word on (one allowed with
`spot-training:extraRegions`), an accelerator type it never names
(TPU_V4_POD; NVIDIA_TESLA_K80, past its end of support, is refused by
accelerator_support.py), a machine type it does not know, and any value a
preview cannot know yet are all left to Google to judge.

`region_problems` answers for any region, not only the job's own, so a rule
that moves a job to another region (a resubmission rung's `location`) can ask
whether that region offers every pool's accelerator.
"""

from __future__ import annotations

from components.spot_job.rules import tpu_machines
from components.spot_job.rules.known import Fail, Known
from components.spot_job.rules.place import LOCATION

# The page's own names for what it lists, to the API's names for them.
# https://cloud.google.com/vertex-ai/docs/training/configure-compute#specifying_gpus
GPU_TYPES = {
    "NVIDIA_TESLA_A100": "A100 40GB",
    "NVIDIA_A100_80GB": "A100 80GB",
    "NVIDIA_B200": "B200",
    "NVIDIA_GB200": "GB200",
    "NVIDIA_RTX_PRO_6000": "RTX PRO 6000",
    "NVIDIA_H100_80GB": "H100",
    "NVIDIA_H100_MEGA_80GB": "H100 Mega",
    "NVIDIA_H200_141GB": "H200",
    "NVIDIA_L4": "L4",
    "NVIDIA_TESLA_P4": "P4",
    "NVIDIA_TESLA_P100": "P100",
    "NVIDIA_TESLA_T4": "T4",
    "NVIDIA_TESLA_V100": "V100",
}
# TPU v2 and v3 are asked for with machineType `cloud-tpu` and acceleratorType
# TPU_V2 or TPU_V3 (a count above 8 is a TPU Pod, a row of its own in the
# table); v5e, v6e and TPU7x by their machine types (tpu_machines.py), v5e also
# by its acceleratorType.
TPU_TYPES = {"TPU_V2": "TPU v2", "TPU_V3": "TPU v3", "TPU_V5_LITEPOD": "TPU v5e"}
TPU_GENERATIONS = {"v5e": "TPU v5e", "v6e": "TPU v6e", "TPU7x": "TPU7x"}

# The table as the page prints it, footnote marks and all, one row a region.
_PAGE_ROWS = {
    "asia-east1": "L4†, P100, T4, TPU v2*, V100, H100 Mega*",
    "asia-east2": "T4",
    "asia-northeast1": "A100 40GB†, H100, H100 Mega, B200*, L4†, T4, TPU v6e",
    "asia-northeast3": "A100 40GB, H100, L4, T4",
    "asia-south1": "H100, L4, T4, H200",
    "asia-south2": "H200, RTX PRO 6000",
    "asia-southeast1": "A100 40GB, A100 80GB, B200, H100, H100 Mega, L4, P4, T4, RTX PRO 6000",
    "asia-southeast2": "T4",
    "australia-southeast1": "H100 Mega, P4, T4",
    "europe-central2": "T4",
    "europe-north1": "H100 Mega*",
    "europe-west1": "H100, H100 Mega, H200, L4†, P100, T4",
    "europe-west2": "H100, L4, T4",
    "europe-west3": "H100, H100 Mega*, L4†, T4",
    "europe-west4": (
        "A100 40GB, A100 80GB, H100, H100 Mega, H200, B200*, L4, P4, T4, V100, P100*, RTX PRO 6000, "
        "TPU v2*, TPU v2 Pod*, TPU v3*, TPU v3 Pod*, TPU v5e†, TPU v6e"
    ),
    "europe-west6": "L4†",
    "me-central2": "L4",
    "me-west1": "A100 40GB, A100 80GB†, T4†",
    "northamerica-northeast1": "P4, T4",
    "northamerica-northeast2": "H100, L4",
    "southamerica-east1": "T4",
    "southamerica-west1": "T4†, TPU v6e*",
    "us-central1": (
        "A100 40GB, A100 80GB, B200, H100, H100 Mega, GB200, H200, L4, P4, P100, T4, RTX PRO 6000, "
        "TPU v2*, TPU v2 Pod*, TPU v3*, TPU v5e*, TPU v6e, TPU7x, V100"
    ),
    "us-east1": "A100 40GB*, B200*, L4, P100, T4, RTX PRO 6000, TPU v5e*, TPU v6e+, V100",
    "us-east4": "A100 80GB, H100, H100 Mega, H200, B200*, GB200*, L4, P4, T4, RTX PRO 6000",
    "us-east5": "A100 80GB, H100, H100 Mega, H200*, TPU v6e",
    "us-south1": "TPU v5e†, TPU v6e*, B200*, H200",
    "us-west1": "H100 Mega, H200, L4, P100, T4, H100, TPU v5e, V100",
    "us-west2": "P4, T4, B200",
    "us-west3": "A100 40GB, B200*",
    "us-west4": "A100 40GB*, H100, H100 Mega, L4†, T4, TPU v5e",
}
# Regions the locations page lists for custom model training that have no row
# in the accelerator table, which "lists all the available accelerators for
# each region": they offer none.
_NO_ROW = (
    "africa-south1",
    "asia-northeast2",
    "australia-southeast2",
    "europe-southwest1",
    "europe-west8",
    "europe-west9",
    "europe-west12",
    "me-central1",
)

# Regions gcloud's list of training regions names (stack_config/regions.py)
# that the locations page, as read here, neither lists for custom training nor
# gives a row: no source says what they offer, so every accelerator there is
# left to Google to judge (unverified).
UNVERIFIED_REGIONS = ("europe-north2", "europe-west15", "us-west8")


def _for_training(row: str) -> frozenset[str]:
    offers = set()
    for entry in row.split(","):
        entry = entry.strip()
        if entry.endswith("†"):
            continue  # "isn't available for training"
        offers.add(entry.rstrip("*+").strip())
    return frozenset(offers)


# region -> the page's names of what it offers for training.
TRAINING_OFFERS: dict[str, frozenset[str]] = {
    **{region: _for_training(row) for region, row in _PAGE_ROWS.items()},
    **{region: frozenset() for region in _NO_ROW},
}
NAMED = frozenset().union(*TRAINING_OFFERS.values())


def offer_name(machine_type: str | None, accelerator_type: str | None, accelerator_count: int | None = None) -> str | None:
    """The table's name for what a machineSpec asks for ("T4", "TPU v3 Pod",
    "TPU v6e"), or None where it asks for no accelerator the table names."""
    if accelerator_type in GPU_TYPES:
        return GPU_TYPES[accelerator_type]
    if accelerator_type in TPU_TYPES:
        name = TPU_TYPES[accelerator_type]
        if machine_type == tpu_machines.LEGACY_MACHINE and (accelerator_count or 0) > tpu_machines.LEGACY_CORES_PER_HOST:
            name += " Pod"
        return name
    machine = tpu_machines.MACHINES.get(machine_type or "")
    if machine is not None:
        return TPU_GENERATIONS.get(machine.generation)
    return None


def offered(region: str, name: str) -> bool | None:
    """Whether `region` offers the table's `name` for training; None when the
    table has no row for the region or never names the accelerator."""
    offers = TRAINING_OFFERS.get(region)
    if offers is None or name not in NAMED:
        return None
    return name in offers


def accelerator_offered(region: str, accelerator_type: str) -> bool | None:
    """Whether `region` offers the API's `accelerator_type` (NVIDIA_L4, TPU_V2,
    ...) for custom training; None when the table cannot say."""
    name = offer_name(None, accelerator_type)
    return None if name is None else offered(region, name)


def tpu_offered(
    region: str, machine_type: str, accelerator_type: str | None = None, accelerator_count: int | None = None
) -> bool | None:
    """Whether `region` offers the TPU a machine type runs on (ct5lp-hightpu-4t,
    ct6e-standard-1t, tpu7x-standard-4t; `cloud-tpu` with TPU_V2 or TPU_V3 and
    its count) for custom training; None when the table cannot say."""
    if machine_type == tpu_machines.LEGACY_MACHINE and accelerator_type not in ("TPU_V2", "TPU_V3"):
        return None
    if machine_type not in tpu_machines.MACHINES and machine_type != tpu_machines.LEGACY_MACHINE:
        return None
    name = offer_name(machine_type, accelerator_type, accelerator_count)
    return None if name is None else offered(region, name)


def regions_offering(accelerator: str) -> tuple[str, ...]:
    """The regions that offer an accelerator for training, by its API name
    (NVIDIA_H100_80GB, TPU_V5_LITEPOD), a TPU machine type, or the table's name
    ("TPU v3 Pod"); for a did-you-mean. Empty for one the table never names."""
    name = offer_name(accelerator, accelerator) if accelerator not in NAMED else accelerator
    return tuple(sorted(r for r, offers in TRAINING_OFFERS.items() if name in offers)) if name else ()


def region_problems(k: Known, region: str) -> list[tuple[str, str]]:
    """(path, reason) for every worker pool whose accelerator `region` does not
    offer for custom training; empty when it offers them all or cannot say.

    For any region: the job's own `location` (the rule below) or another one a
    job may be moved to, such as a resubmission rung's `location`. Values a
    preview cannot know yet are skipped.
    """
    if region not in TRAINING_OFFERS:
        return []
    found = []
    for _, path, machine in k.pool_parts("machineSpec"):
        if k.is_unknown(machine.get("acceleratorType")) or k.is_unknown(machine.get("machineType")):
            continue
        machine_type = k.text(machine, "machineType")
        accelerator_type = k.text(machine, "acceleratorType")
        count = k.number(machine, "acceleratorCount")
        name = offer_name(machine_type, accelerator_type, count)
        if name is None or offered(region, name) is not False:
            continue
        asked = accelerator_type or machine_type
        if name.endswith(" Pod"):
            asked = f"{accelerator_type} with acceleratorCount {count}"
        elsewhere = regions_offering(name)
        where = f"regions that offer it: {', '.join(elsewhere)}" if elsewhere else "no region offers it for training"
        field = "acceleratorType" if accelerator_type else "machineType"
        found.append(
            (
                f"{path}.{field}",
                f"{asked} ({name}) is not offered for Vertex AI custom training in {region}; {where}",
            )
        )
    return found


def offered_in_location(k: Known, fail: Fail) -> None:
    """Every pool's accelerator is one the job's own location offers for training."""
    region = k.text(k.inputs, "location")
    if region is None or not LOCATION.match(region):
        return  # required_place reports it
    for path, reason in region_problems(k, region):
        fail(path, reason)
