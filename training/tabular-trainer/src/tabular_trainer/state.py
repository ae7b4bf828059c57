"""What a checkpoint holds, and how it becomes the files the runtime saves.

Everything the next step depends on: the weights, the optimizer's velocity,
the data order (the order generator's bit_generator.state and the current
epoch's permutation) and the step. With all of it restored, a resumed run
computes exactly what the uninterrupted run would have. The hyperparameters
that shape that path are stored too, so resuming with different ones is
refused instead of silently training a different model.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import NDArray

from tabular_trainer.arrays import from_npz, to_npz
from tabular_trainer.model import Params

MODEL_FILE = "model.npz"
OPTIMIZER_FILE = "optimizer.npz"
PROGRESS_FILE = "state.json"
FILES = (MODEL_FILE, OPTIMIZER_FILE, PROGRESS_FILE)


@dataclass
class TrainState:
    step: int
    params: Params
    velocity: Params
    order_rng: np.random.Generator
    # The current epoch's permutation of the training examples; None before the first step.
    order: NDArray[np.int64] | None
    # The hyperparameters this path depends on (Config.path_defining()).
    settings: dict[str, Any]

    def to_files(self) -> dict[str, bytes]:
        record = {
            "step": self.step,
            "settings": self.settings,
            "orderRng": self.order_rng.bit_generator.state,
            "order": None if self.order is None else self.order.tolist(),
        }
        return {
            MODEL_FILE: to_npz(self.params),
            OPTIMIZER_FILE: to_npz(self.velocity),
            PROGRESS_FILE: json.dumps(record, sort_keys=True).encode(),
        }

    @classmethod
    def from_files(cls, files: dict[str, bytes], step: int, settings: dict[str, Any]) -> TrainState:
        """The state saved at `step`. Raises ValueError with what is missing or does not match."""
        missing = [name for name in FILES if name not in files]
        if missing:
            raise ValueError(f"the checkpoint has no {', '.join(missing)}")
        try:
            record = json.loads(files[PROGRESS_FILE])
        except ValueError as err:
            raise ValueError(f"{PROGRESS_FILE} is not JSON: {err}") from err
        if not isinstance(record, dict) or not {"step", "settings", "orderRng", "order"} <= record.keys():
            raise ValueError(f"{PROGRESS_FILE} is not this trainer's (it needs step, settings, orderRng and order)")
        if record.get("step") != step:
            raise ValueError(f"{PROGRESS_FILE} says step {record.get('step')}, its folder says step {step}")
        saved = record["settings"] if isinstance(record["settings"], dict) else {}
        differing = [
            f"--{key.replace('_', '-')} {saved.get(key)!r} (this run: {value!r})"
            for key, value in settings.items()
            if saved.get(key) != value
        ]
        if differing:
            raise ValueError(
                "it was written by a run with other settings: " + ", ".join(differing)
                + "; resume with the same flags, or point AIP_CHECKPOINT_DIR at a new directory"
            )
        order_rng = np.random.default_rng()
        try:
            order_rng.bit_generator.state = record["orderRng"]
            order = None if record["order"] is None else np.asarray(record["order"], dtype=np.int64)
        except (TypeError, ValueError, KeyError) as err:
            raise ValueError(f"{PROGRESS_FILE} holds no usable data order: {err!r}") from err
        params = {name: np.asarray(value, dtype=np.float64) for name, value in from_npz(files[MODEL_FILE]).items()}
        velocity = {name: np.asarray(value, dtype=np.float64) for name, value in from_npz(files[OPTIMIZER_FILE]).items()}
        return cls(step=step, params=params, velocity=velocity, order_rng=order_rng, order=order, settings=settings)
