"""Mini-batch SGD with (heavy-ball) momentum; its velocity is part of the checkpoint.

A resumed run that started its velocity from zero again would follow another
path than the uninterrupted run: the velocity is state, like the weights.
"""

from __future__ import annotations

import numpy as np

from tabular_trainer.model import Params


class Momentum:
    def __init__(self, learning_rate: float, momentum: float) -> None:
        self.learning_rate, self.momentum = learning_rate, momentum

    def init(self, params: Params) -> Params:
        return {name: np.zeros_like(value) for name, value in params.items()}

    def update(self, params: Params, velocity: Params, grads: Params) -> None:
        """v = momentum * v - lr * g; p += v, in place."""
        for name, grad in grads.items():
            v = velocity[name]
            v *= self.momentum
            v -= self.learning_rate * grad
            params[name] += v
