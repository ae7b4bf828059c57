"""The dataset: scikit-learn's handwritten digits (1,797 8x8 images, 10 classes).

`load_digits` reads a file shipped inside the scikit-learn wheel: nothing is
downloaded, so the trainer runs the same on a laptop, in CI and on Vertex.
The held-out split is a function of the seed alone, so every attempt of a run
(and a resumed one) trains and evaluates on the same examples.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray

# Pixel values in load_digits are 0..16.
PIXEL_MAX = 16.0
HELD_OUT_FRACTION = 0.2


@dataclass(frozen=True)
class Digits:
    train_x: NDArray[np.float64]
    train_y: NDArray[np.int64]
    test_x: NDArray[np.float64]
    test_y: NDArray[np.int64]

    @property
    def features(self) -> int:
        return int(self.train_x.shape[1])

    @property
    def classes(self) -> int:
        return int(max(self.train_y.max(), self.test_y.max())) + 1


def load(split_rng: np.random.Generator) -> Digits:
    """The digits, scaled to [0, 1], split into a training and a held-out part by `split_rng`."""
    from sklearn.datasets import load_digits

    bunch = load_digits()
    x = np.asarray(bunch.data, dtype=np.float64) / PIXEL_MAX
    y = np.asarray(bunch.target, dtype=np.int64)
    order = split_rng.permutation(len(y))
    held_out = int(round(len(y) * HELD_OUT_FRACTION))
    test, train = order[:held_out], order[held_out:]
    return Digits(train_x=x[train], train_y=y[train], test_x=x[test], test_y=y[test])
