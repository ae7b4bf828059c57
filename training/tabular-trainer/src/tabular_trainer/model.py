"""The model: a multi-layer perceptron with one hidden ReLU layer and a softmax output.

Plain numpy in float64: every operation is a deterministic function of its
inputs, so the same weights and the same batch give the same gradient bit for
bit, in this run or in a resumed one.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import NDArray

Params = dict[str, NDArray[np.float64]]
PARAM_NAMES = ("w1", "b1", "w2", "b2")


class Mlp:
    def __init__(self, features: int, hidden: int, classes: int) -> None:
        self.features, self.hidden, self.classes = features, hidden, classes

    def init(self, rng: np.random.Generator) -> Params:
        """He-initialised weights, zero biases."""
        return {
            "w1": rng.normal(0.0, np.sqrt(2.0 / self.features), (self.features, self.hidden)),
            "b1": np.zeros(self.hidden),
            "w2": rng.normal(0.0, np.sqrt(2.0 / self.hidden), (self.hidden, self.classes)),
            "b2": np.zeros(self.classes),
        }

    def check(self, params: Params) -> None:
        """Raises ValueError naming the first array whose shape is not this model's."""
        expected = {
            "w1": (self.features, self.hidden),
            "b1": (self.hidden,),
            "w2": (self.hidden, self.classes),
            "b2": (self.classes,),
        }
        for name, shape in expected.items():
            if name not in params:
                raise ValueError(f"no array {name!r}")
            if params[name].shape != shape:
                raise ValueError(f"array {name!r} has shape {params[name].shape}, this model's is {shape}")

    def logits(self, params: Params, x: NDArray[np.float64]) -> NDArray[np.float64]:
        hidden = np.maximum(x @ params["w1"] + params["b1"], 0.0)
        return hidden @ params["w2"] + params["b2"]  # type: ignore[no-any-return]

    def loss_and_grads(self, params: Params, x: NDArray[np.float64], y: NDArray[np.int64]) -> tuple[float, Params]:
        """Mean cross-entropy of the batch and its gradient with respect to each parameter."""
        pre = x @ params["w1"] + params["b1"]
        hidden = np.maximum(pre, 0.0)
        logits = hidden @ params["w2"] + params["b2"]
        shifted = logits - logits.max(axis=1, keepdims=True)
        exp = np.exp(shifted)
        probs = exp / exp.sum(axis=1, keepdims=True)
        rows = np.arange(len(y))
        loss = float(-np.log(probs[rows, y]).mean())
        d_logits = probs
        d_logits[rows, y] -= 1.0
        d_logits /= len(y)
        d_hidden = (d_logits @ params["w2"].T) * (pre > 0.0)
        grads = {
            "w1": x.T @ d_hidden,
            "b1": d_hidden.sum(axis=0),
            "w2": hidden.T @ d_logits,
            "b2": d_logits.sum(axis=0),
        }
        return loss, grads

    def accuracy(self, params: Params, x: NDArray[np.float64], y: NDArray[np.int64]) -> float:
        return float((self.logits(params, x).argmax(axis=1) == y).mean())
