"""A fallback rung that moves a job to another region: what must follow the job
there, or the move is refused by the rung's path before anything is submitted.

The regional resources a CustomJob names must be in the job's own region, so a
job naming one cannot simply be submitted elsewhere:

- a CMEK key: "the key must be in the same region as the resource"; the rung
  names a key of its region (`kmsKeyName`), or the move is refused.
  https://cloud.google.com/vertex-ai/docs/general/cmek
- a TensorBoard instance, an Experiment (a context of the region's metadata
  store) and a persistent resource ("in the same Project and Location"):
  refused. https://cloud.google.com/vertex-ai/docs/reference/rest/v1/CustomJobSpec
- a Private Service Connect interface: its network attachment is "within the
  region": refused. https://cloud.google.com/vertex-ai/docs/training/psc-i-egress
- a reservation: a ladder needs a SPOT job, and a Spot job consumes none
  (spot.no_reservation already refuses one).
- an accelerator or TPU type the region does not offer for training
  (region_offers.py, from Google's table of accelerators per region).

What follows the job: the VPC `network` (a global resource; Vertex AI peers
with one network per region, so the target region must be peered with the
same one: https://cloud.google.com/vertex-ai/docs/general/vpc-peering), the
service account, the image (Artifact Registry serves any region) and the
output directory, which stays in the team's bucket so AIP_CHECKPOINT_DIR
survives the move, at the price of cross-region egress (docs/lifecycle.md).
"""

from __future__ import annotations

import re

from components.spot_job.rules import encryption, region_offers
from components.spot_job.rules.known import Fail, Known
from components.spot_job.rules.place import LOCATION
from components.spot_job.rules.references import TENSORBOARD

# projects/P/locations/L/metadataStores/S/contexts/C: an Experiment (or its run) lives in its region's metadata store.
# https://cloud.google.com/vertex-ai/docs/reference/rest/v1/CustomJobSpec (experiment, experimentRun)
EXPERIMENT = re.compile(r"^projects/[^/]+/locations/([^/]+)/metadataStores/[^/]+/contexts/.+$")


def region_moves(k: Known, fail: Fail) -> None:
    policy = k.get(k.inputs, "resubmission", dict)
    home = k.text(k.inputs, "location")
    own_key = k.text(k.get(k.inputs, "encryptionSpec", dict), "kmsKeyName")
    for i, rung in enumerate(k.get(policy, "fallback", list) or []):
        path = f"resubmission.fallback[{i}]"
        location = k.text(rung, "location")
        key = k.text(rung, "kmsKeyName")
        if location is None:
            if key is not None:
                fail(f"{path}.kmsKeyName", "goes with a location: the key for the region this rung moves the job to")
            continue
        if not LOCATION.match(location):
            fail(f"{path}.location", f"{location!r} is not a region id such as us-east1")
            continue
        if key is not None:
            _check_rung_key(path, key, location, own_key, fail)
        if home is None or location == home:
            continue  # back home: everything the job names is there
        if own_key is not None and key is None:
            fail(
                f"{path}.kmsKeyName",
                f"is required to move the job to {location}: its CMEK key (encryptionSpec.kmsKeyName) is in "
                f"{home}, and Vertex AI needs a key in the job's own region; name a key in {location}",
            )
        for reason in _stays_in_region(k, location):
            fail(f"{path}.location", reason)
        for pool_path, reason in region_offers.region_problems(k, location):
            fail(f"{path}.location", f"cannot move the job to {location}: {pool_path}: {reason}")


def _check_rung_key(path: str, key: str, location: str, own_key: str | None, fail: Fail) -> None:
    if own_key is None:
        fail(f"{path}.kmsKeyName", "the job has no encryptionSpec: a rung's key only replaces the job's own")
    elif (region := encryption.key_region(key)) is None:
        fail(f"{path}.kmsKeyName", encryption.KEY_FORM)
    elif region != location:
        fail(f"{path}.kmsKeyName", f"the key is in {region!r}; an attempt in {location!r} needs a key there")


def _stays_in_region(k: Known, location: str) -> list[str]:
    """Why the job cannot run in `location`: the regional resources it names elsewhere."""
    spec = k.spec()
    reasons = []
    board = k.text(spec, "tensorboard")
    if board is not None and (m := TENSORBOARD.match(board)) and m.group(1) != location:
        reasons.append(
            f"cannot move the job to {location}: it writes to the TensorBoard {board} (jobSpec.tensorboard), "
            "which must be in the job's region; drop it, or drop this rung"
        )
    for field in ("experiment", "experimentRun"):
        value = k.text(spec, field)
        if value is not None and (m := EXPERIMENT.match(value)) and m.group(1) != location:
            reasons.append(
                f"cannot move the job to {location}: jobSpec.{field} is in {m.group(1)}'s metadata store, "
                "which must be in the job's region"
            )
    if k.has(spec, "persistentResourceId"):
        reasons.append(
            f"cannot move the job to {location}: jobSpec.persistentResourceId names a persistent resource "
            "of the job's own location"
        )
    if k.has(spec, "pscInterfaceConfig"):
        reasons.append(
            f"cannot move the job to {location}: jobSpec.pscInterfaceConfig's network attachment is regional"
        )
    return reasons
