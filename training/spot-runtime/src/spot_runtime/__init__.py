"""spot_runtime: checkpoints that survive Spot preemption on Vertex AI (docs/training.md)."""

from spot_runtime.checkpointer import Checkpointer
from spot_runtime.errors import CheckpointError
from spot_runtime.gcs_store import GcsStore
from spot_runtime.local_store import LocalStore
from spot_runtime.mount_store import MountStore
from spot_runtime.preemption import PreemptionNotice
from spot_runtime.restored import Restored
from spot_runtime.store import Store

__all__ = [
    "CheckpointError",
    "Checkpointer",
    "GcsStore",
    "LocalStore",
    "MountStore",
    "PreemptionNotice",
    "Restored",
    "Store",
]
