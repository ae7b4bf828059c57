"""The dataset: scikit-learn's handwritten digits (1,797 8x8 images, 10 classes).

The data is a file inside the scikit-learn wheel (what `load_digits` reads):
nothing is downloaded, so the trainer runs the same on a laptop, in CI and on
Vertex. The file is read directly when it is where `load_digits` keeps it,
because importing scikit-learn imports scipy.stats and much else (see
`python -X importtime -c "import sklearn.datasets"`), which each restart of the
job would pay again, and the trainer needs none of it; `load_digits` itself is
the fallback (tests/training/test_trainer_flags.py checks the two agree). The held-out split is a function of the seed alone, so every
attempt of a run (and a resumed one) trains and evaluates on the same examples.
"""

from __future__ import annotations

import gzip
import importlib.util
from dataclasses import dataclass
from pathlib import Path

import numpy as np
from numpy.typing import NDArray

# Pixel values in load_digits are 0..16.
PIXEL_MAX = 16.0
HELD_OUT_FRACTION = 0.2
# Where scikit-learn ships the digits (sklearn/datasets/_base.py, load_digits): one row per
# image, 64 pixel columns then the label.
SHIPPED = ("datasets", "data", "digits.csv.gz")
EXAMPLES, PIXELS = 1797, 64


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


def shipped_file() -> Path | None:
    """The digits file inside the installed scikit-learn, found without importing it; None if absent."""
    spec = importlib.util.find_spec("sklearn")
    for root in (spec.submodule_search_locations or []) if spec else []:
        path = Path(root).joinpath(*SHIPPED)
        if path.is_file():
            return path
    return None


def raw() -> tuple[NDArray[np.float64], NDArray[np.int64]]:
    """The 1,797 images (pixels 0..16, float64) and their labels, as `load_digits` returns them."""
    path = shipped_file()
    if path is not None:
        with gzip.open(path) as stream:
            table = np.loadtxt(stream, delimiter=",")
        if table.shape == (EXAMPLES, PIXELS + 1):
            return table[:, :PIXELS], table[:, PIXELS].astype(np.int64)
    from sklearn.datasets import load_digits

    bunch = load_digits()
    return np.asarray(bunch.data, dtype=np.float64), np.asarray(bunch.target, dtype=np.int64)


def load(split_rng: np.random.Generator) -> Digits:
    """The digits, scaled to [0, 1], split into a training and a held-out part by `split_rng`."""
    pixels, labels = raw()
    x = pixels / PIXEL_MAX
    order = split_rng.permutation(len(labels))
    held_out = int(round(len(labels) * HELD_OUT_FRACTION))
    test, train = order[:held_out], order[held_out:]
    return Digits(train_x=x[train], train_y=labels[train], test_x=x[test], test_y=labels[test])
