"""A machine's reservationAffinity: SPECIFIC_RESERVATION names its reservation.

googleapis/googleapis google/cloud/aiplatform/v1/reservation_affinity.proto
(f8291d2b89f0017ab078a4c7378069bae5686f6f): SPECIFIC_RESERVATION "Consume from
a specific reservation. When chosen, the reservation must be identified via
the `key` and `values` fields"; to target one by name, the key
`compute.googleapis.com/reservation-name` and the reservation's full resource name.
googleapis/python-aiplatform google/cloud/aiplatform/utils/__init__.py
(91cc8ce4f015771b5d8c43c8764ea9dc9abdb216) raises "reservation_affinity_key and
reservation_affinity_values must be specified when reservation_affinity_type
is SPECIFIC_RESERVATION".
https://cloud.google.com/vertex-ai/docs/training/use-reservations
"""

from __future__ import annotations

from components.spot_job.rules.known import Fail, Known

BY_NAME = "compute.googleapis.com/reservation-name"


def specific_reservation(k: Known, fail: Fail) -> None:
    for _, path, machine in k.pool_parts("machineSpec"):
        affinity = k.get(machine, "reservationAffinity", dict)
        if affinity is None or k.text(affinity, "reservationAffinityType") != "SPECIFIC_RESERVATION":
            continue
        where = f"{path}.reservationAffinity"
        if not k.has(affinity, "key"):
            fail(f"{where}.key", f"is required with SPECIFIC_RESERVATION: write {BY_NAME!r} to name the reservation")
        if not k.get(affinity, "values", list) and not k.is_unknown(affinity.get("values")):
            fail(
                f"{where}.values",
                "is required with SPECIFIC_RESERVATION: the reservation's full name, "
                "projects/PROJECT/zones/ZONE/reservations/NAME",
            )
