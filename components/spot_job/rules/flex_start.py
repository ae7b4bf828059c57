"""Flex-start (Dynamic Workload Scheduler, strategy FLEX_START): which jobs it
takes, for a job that asks for it and for the fallback ladder that may move
a job to it.

"Schedule training jobs based on resource availability": the job requests
L4, A100, H100, H200 or B200 GPUs, its timeout is 7 days or less, and every
worker pool has the same machine configuration. "Use reservations with
training": Flex-start cannot consume a reservation.
https://cloud.google.com/vertex-ai/docs/training/schedule-jobs-dws
https://cloud.google.com/vertex-ai/docs/training/use-reservations
"""

from __future__ import annotations

from typing import Any

from components.spot_job.model.values import as_int, duration_seconds, is_duration
from components.spot_job.rules.known import Fail, Known

FLEX_START_GPUS = (
    "NVIDIA_L4",
    "NVIDIA_TESLA_A100",
    "NVIDIA_A100_80GB",
    "NVIDIA_H100_80GB",
    "NVIDIA_H100_MEGA_80GB",
    "NVIDIA_H200_141GB",
    "NVIDIA_B200",
)
FLEX_START_MAX_TIMEOUT_SECONDS = 7 * 24 * 3600
# The affinities that consume a reservation; NO_RESERVATION ("Do not consume
# from any reserved capacity", reservation_affinity.proto) says what Flex-start
# does anyway, and is accepted.
CONSUMING_AFFINITIES = ("ANY_RESERVATION", "SPECIFIC_RESERVATION")


def problems(inputs: dict[str, Any]) -> list[tuple[str, str]]:
    """Why the job may not run with strategy FLEX_START, as (path, reason)
    pairs; empty when it may."""
    spec = inputs.get("jobSpec") or {}
    pools = [(i, p) for i, p in enumerate(spec.get("workerPoolSpecs") or []) if isinstance(p, dict) and p]
    if not pools:
        return [("jobSpec.workerPoolSpecs", "FLEX_START needs a GPU worker pool")]
    found = []
    gpus = ", ".join(FLEX_START_GPUS)
    first = _machine_config(pools[0][1])
    for i, pool in pools:
        path = f"jobSpec.workerPoolSpecs[{i}].machineSpec"
        machine = pool.get("machineSpec") or {}
        if machine.get("acceleratorType") not in FLEX_START_GPUS or not (as_int(machine.get("acceleratorCount")) or 0) > 0:
            found.append((f"{path}.acceleratorType", f"FLEX_START takes only these GPUs: {gpus}"))
        elif _machine_config(pool) != first:
            found.append((path, "FLEX_START needs the same machineSpec in every worker pool as in workerPoolSpecs[0]"))
        affinity = machine.get("reservationAffinity") or {}
        if isinstance(affinity, dict) and affinity.get("reservationAffinityType") in CONSUMING_AFFINITIES:
            found.append((f"{path}.reservationAffinity", "FLEX_START cannot consume a reservation; remove reservationAffinity"))
    timeout = (spec.get("scheduling") or {}).get("timeout")
    if is_duration(timeout) and duration_seconds(timeout) > FLEX_START_MAX_TIMEOUT_SECONDS:
        found.append(
            ("jobSpec.scheduling.timeout", f"FLEX_START allows at most 7 days; write {FLEX_START_MAX_TIMEOUT_SECONDS}s or less")
        )
    return found


def qualifies(inputs: dict[str, Any]) -> bool:
    """Whether the job may run with strategy FLEX_START (see problems)."""
    return not problems(inputs)


def flex_start(k: Known, fail: Fail) -> None:
    if k.strategy() == "FLEX_START" and k.machines_known():
        for path, reason in problems(k.inputs):
            fail(path, f"{reason}; or use scheduling.strategy SPOT or STANDARD")


def _machine_config(pool: dict[str, Any]) -> tuple[Any, Any, int | None]:
    machine = pool.get("machineSpec") or {}
    return (machine.get("machineType"), machine.get("acceleratorType"), as_int(machine.get("acceleratorCount")))
