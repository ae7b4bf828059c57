"""One training run's parts, built from its Config: the data, the model, the optimizer, the state.

Three independent random streams come from the one seed (numpy SeedSequence.spawn): the held-out
split, the initial weights and the data order. The first two are recomputed by every attempt; the
third lives on in the checkpoint (its bit_generator.state), since it advances as training goes.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from tabular_trainer import data, loop
from tabular_trainer.config import Config
from tabular_trainer.data import Digits
from tabular_trainer.model import Mlp
from tabular_trainer.optimizer import Momentum
from tabular_trainer.state import TrainState


@dataclass
class Run:
    config: Config
    digits: Digits
    model: Mlp
    optimizer: Momentum
    init_seed: np.random.SeedSequence
    order_seed: np.random.SeedSequence

    @classmethod
    def prepare(cls, config: Config) -> Run:
        split_seed, init_seed, order_seed = np.random.SeedSequence(config.seed).spawn(3)
        digits = data.load(np.random.default_rng(split_seed))
        return cls(
            config=config,
            digits=digits,
            model=Mlp(digits.features, config.hidden, digits.classes),
            optimizer=Momentum(config.learning_rate, config.momentum),
            init_seed=init_seed,
            order_seed=order_seed,
        )

    def fresh(self) -> TrainState:
        """The state at step 0."""
        return loop.fresh(
            self.config, self.model, self.optimizer, np.random.default_rng(self.init_seed), np.random.default_rng(self.order_seed)
        )

    def resumed(self, files: dict[str, bytes], step: int) -> TrainState:
        """The state a checkpoint holds; ValueError saying why it is not this run's."""
        state = TrainState.from_files(files, step, self.config.path_defining())
        self.model.check(state.params)
        self.model.check(state.velocity)
        examples = len(self.digits.train_y)
        mid_epoch = step % loop.batches_per_epoch(examples, self.config.batch_size) != 0
        if mid_epoch and (state.order is None or sorted(state.order.tolist()) != list(range(examples))):
            raise ValueError(f"its data order is not a permutation of the {examples} training examples")
        return state

    def train(self, state: TrainState, checkpoints: loop.Checkpoints | None, notice: loop.Notice | None = None,
              say: loop.Say = print) -> loop.Outcome:
        return loop.train(self.config, self.digits, self.model, self.optimizer, state, checkpoints, notice, say)

    def accuracy(self, state: TrainState) -> float:
        """On the held-out split."""
        return self.model.accuracy(state.params, self.digits.test_x, self.digits.test_y)
