"""Google's rules for a CustomJob, one module per concern, each rule a small
function `rule(known, fail)` with the page it comes from beside it.

The spec layer (spec.validate) applies them all, in this order, after the
shape check, to the inputs as Vertex reads them (empty values dropped).
"""

from __future__ import annotations

from components.spot_job.rules import (
    accelerator_support,
    accelerators,
    disks,
    display_name,
    encryption,
    flex_start,
    knobs,
    labels,
    machine_types,
    place,
    references,
    region_move,
    region_offers,
    reservations,
    resubmission,
    scheduling,
    spot,
    tasks,
    tpu,
    vpc_access,
    worker_pools,
)
from components.spot_job.rules.known import Fail, Known

RULES = (
    place.required_place,
    display_name.display_name,
    labels.labels,
    encryption.encryption,
    worker_pools.worker_pools,
    worker_pools.zero_replicas,
    machine_types.machine_type,
    disks.disks,
    tasks.tasks,
    accelerator_support.end_of_support,
    accelerators.accelerators,
    tpu.topology,
    tpu.no_pod_on_spot,
    region_offers.offered_in_location,
    scheduling.scheduling,
    scheduling.max_wait_duration,
    spot.no_persistent_resource,
    references.references,
    references.experiment,
    vpc_access.one_way_in,
    knobs.timeouts,
    knobs.quotas,
    resubmission.resubmission,
    region_move.region_moves,
    flex_start.flex_start,
    reservations.specific_reservation,
    spot.no_reservation,
    spot.reservation_only,
    tpu.single_pool,
)


def apply(known: Known, fail: Fail) -> None:
    for rule in RULES:
        rule(known, fail)
