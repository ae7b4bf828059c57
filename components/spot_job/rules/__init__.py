"""Google's rules for a CustomJob, one module per concern, each rule a small
function `rule(known, fail)` with the page it comes from beside it.

The spec layer (spec.validate) applies them all, in this order, after the
shape check, to the inputs as Vertex reads them (empty values dropped).
"""

from __future__ import annotations

from . import (
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
    worker_pools,
)
from .known import Fail, Known

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
    accelerators.accelerators,
    tpu.topology,
    tpu.no_pod_on_spot,
    region_offers.offered_in_location,
    scheduling.scheduling,
    spot.no_persistent_resource,
    references.references,
    references.experiment,
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
