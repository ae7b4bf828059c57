"""The finished model, written where Vertex expects it: AIP_MODEL_DIR.

Vertex sets AIP_MODEL_DIR to `<baseOutputDirectory>/model/` (a gs:// URI); it
is written through the runtime's store, the same way as the checkpoints (the
/gcs mount when it is there, else the Cloud Storage client). Unset (a run on a
laptop): ./model.
"""

from __future__ import annotations

import json
import os

from spot_runtime.location import open_store

from tabular_trainer.arrays import to_npz
from tabular_trainer.config import Config
from tabular_trainer.model import Params

LOCAL_DEFAULT = "model"
MODEL_FILE = "model.npz"
METRICS_FILE = "metrics.json"


def model_dir() -> str:
    return os.environ.get("AIP_MODEL_DIR") or LOCAL_DEFAULT


def write_model(params: Params, accuracy: float, config: Config, held_out: int) -> str:
    """Writes model.npz, then metrics.json; returns where. Each file is written whole or not at all."""
    where = model_dir()
    if not where.startswith("gs://") and os.path.exists(where) and not os.path.isdir(where):
        # Said here: the runtime's store would call it a checkpoint dir.
        raise ValueError(f"{where} exists and is not a directory")
    store = open_store(where)
    store.write(MODEL_FILE, to_npz(params))
    metrics = {
        "heldOutAccuracy": accuracy,
        "heldOutExamples": held_out,
        "steps": config.steps,
        "settings": config.path_defining(),
    }
    store.write(METRICS_FILE, (json.dumps(metrics, indent=2, sort_keys=True) + "\n").encode())
    return store.location
