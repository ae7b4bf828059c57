"""Example Spot-ready trainer: a small MLP on scikit-learn's digits, resuming from spot_runtime checkpoints."""

import os

# One BLAS thread, set here because the package is imported before its modules import numpy (a
# value already in the environment wins). This model's matrices are small (64x64 weights, batches
# of 32): BLAS threads only contend, 30x slower per step at batch 64 on two busy cores (measured),
# and one thread sums every product in the same order on whatever machine a restart lands on.
for _variable in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_variable, "1")
