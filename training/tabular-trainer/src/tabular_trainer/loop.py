"""The training loop: one mini-batch per step, a checkpoint when due or on the preemption notice.

Each step is a function of the state alone (weights, velocity, data order),
and the state is checkpointed at step boundaries, so a resumed run repeats
exactly what the uninterrupted run does from that step on.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Protocol

import numpy as np

from tabular_trainer.config import Config
from tabular_trainer.data import Digits
from tabular_trainer.model import Mlp
from tabular_trainer.optimizer import Momentum
from tabular_trainer.state import TrainState


class Checkpoints(Protocol):
    """What the loop needs of spot_runtime.Checkpointer."""

    @property
    def is_chief(self) -> bool: ...

    def due(self, step: int) -> bool: ...

    def save(self, step: int, files: dict[str, bytes]) -> object: ...


class Notice(Protocol):
    """What the loop needs of spot_runtime.PreemptionNotice."""

    @property
    def received(self) -> bool: ...


@dataclass(frozen=True)
class Outcome:
    step: int
    preempted: bool


Say = Callable[[str], None]


class NoNotice:
    received = False


def batches_per_epoch(examples: int, batch_size: int) -> int:
    """Full batches only: the last partial batch of an epoch is dropped, so every step has the same size."""
    return max(examples // batch_size, 1)


def fresh(config: Config, model: Mlp, optimizer: Momentum, init_rng: np.random.Generator,
          order_rng: np.random.Generator) -> TrainState:
    params = model.init(init_rng)
    return TrainState(step=0, params=params, velocity=optimizer.init(params), order_rng=order_rng, order=None,
                      settings=config.path_defining())


def train(
    config: Config,
    data: Digits,
    model: Mlp,
    optimizer: Momentum,
    state: TrainState,
    checkpoints: Checkpoints | None,
    notice: Notice | None = None,
    say: Say = print,
) -> Outcome:
    """Trains from state.step to config.steps, in place; stops early, after a checkpoint, on the notice.

    `checkpoints` None trains without any (the benchmark's baseline).
    """
    notice = NoNotice() if notice is None else notice
    examples = len(data.train_y)
    per_epoch = batches_per_epoch(examples, config.batch_size)
    size = min(config.batch_size, examples)
    total = config.steps
    while state.step < total:
        position = state.step % per_epoch
        if position == 0:
            # A new epoch: its order is drawn from the generator whose state the checkpoint keeps.
            state.order = state.order_rng.permutation(examples)
        elif state.order is None or len(state.order) != examples:
            raise ValueError(f"the state at step {state.step} has no data order for its epoch of {examples} examples")
        batch = state.order[position * size:(position + 1) * size]
        loss, grads = model.loss_and_grads(state.params, data.train_x[batch], data.train_y[batch])
        optimizer.update(state.params, state.velocity, grads)
        state.step += 1
        done = state.step
        if config.log_every and done % config.log_every == 0:
            say(f"step {done}/{total} loss {loss:.6f}")
        stopping = notice.received
        if checkpoints is not None and (stopping or done == total or checkpoints.due(done)):
            checkpoints.save(done, state.to_files())
            if checkpoints.is_chief:
                say(f"step {done}/{total} checkpointed")
        if stopping:
            saved = checkpoints is not None and checkpoints.is_chief  # a worker's save writes nothing
            say(f"preemption notice: stopped at step {done}/{total}" + (" after its checkpoint" if saved else ""))
            return Outcome(step=done, preempted=True)
    return Outcome(step=state.step, preempted=False)
