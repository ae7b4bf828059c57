"""Where Spot VMs cannot run: on a persistent resource, on a reservation, or on
a GPU Google sells only through reservations (GB200, a4x-highgpu-4g)."""

from __future__ import annotations

from components.spot_job.rules.known import Fail, Known


def no_persistent_resource(k: Known, fail: Fail) -> None:
    """"Use Spot VMs for training": Spot VMs are for serverless training only.
    https://cloud.google.com/vertex-ai/docs/training/use-spot-vms"""
    if k.strategy() == "SPOT" and k.has(k.spec(), "persistentResourceId"):
        fail(
            "jobSpec.persistentResourceId",
            "Spot VMs run only on serverless training, not on a persistent resource; "
            "use scheduling.strategy STANDARD on the persistent resource, or drop persistentResourceId to run on Spot",
        )


# Spot VMs cannot consume reservations. Vertex's Spot page: "All Spot VMs
# limitations apply when using Spot VMs with Vertex AI"; Compute Engine's
# "Consume reservations", Limitations: "You can't consume a reservation to
# create ... Spot VMs or preemptible instances". A reservation is consumed by
# STANDARD (on-demand) jobs. NO_RESERVATION says the same as no affinity and
# is accepted.
# https://cloud.google.com/vertex-ai/docs/training/use-spot-vms
# https://cloud.google.com/compute/docs/instances/reservations-consume#limitations
# https://cloud.google.com/vertex-ai/docs/training/use-reservations
CONSUMING_AFFINITIES = ("ANY_RESERVATION", "SPECIFIC_RESERVATION")


def no_reservation(k: Known, fail: Fail) -> None:
    if k.strategy() != "SPOT":
        return
    for i, pool in k.pools():
        affinity = k.get(k.get(pool, "machineSpec", dict), "reservationAffinity", dict)
        kind = k.text(affinity, "reservationAffinityType")
        if kind in CONSUMING_AFFINITIES:
            fail(
                f"jobSpec.workerPoolSpecs[{i}].machineSpec.reservationAffinity.reservationAffinityType",
                f"{kind} cannot be used with Spot VMs (a Spot VM consumes no reservation); "
                "remove reservationAffinity to run on Spot, or use scheduling.strategy STANDARD to consume the reservation",
            )


# GPUs Google sells only through reservations: Spot VMs and Flex-start take
# "Any GPU machine except A4X" (AI Hypercomputer, "Consumption options": A4X
# capacity comes as future reservations). A Spot VM consumes no reservation,
# so a Spot job on one would queue until its timeout.
# https://cloud.google.com/ai-hypercomputer/docs/consumption-models
RESERVATION_ONLY_MACHINES = ("a4x-highgpu-4g",)
RESERVATION_ONLY_GPUS = ("NVIDIA_GB200",)


def reservation_only(k: Known, fail: Fail) -> None:
    if k.strategy() != "SPOT":
        return
    for _, path, machine in k.pool_parts("machineSpec"):
        machine_type = k.text(machine, "machineType")
        accelerator = k.text(machine, "acceleratorType")
        if machine_type in RESERVATION_ONLY_MACHINES or accelerator in RESERVATION_ONLY_GPUS:
            fail(
                f"{path}.machineType",
                f"{machine_type or accelerator} ({accelerator or 'NVIDIA_GB200'}) is sold only through reservations, and a "
                "Spot VM consumes none: the job would wait in the queue until its timeout; use scheduling.strategy "
                "STANDARD with reservationAffinity naming your reservation",
            )
