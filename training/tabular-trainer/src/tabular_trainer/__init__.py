"""Example Spot-ready trainer: a small MLP on scikit-learn's digits, resuming from spot_runtime checkpoints."""

import os

# One BLAS thread, set here because the package is imported before its modules import numpy (a
# value already in the environment wins). This model's matrices are small (64x256 weights, batches
# of 64): BLAS threads only contend for the cores, which made steps many times slower on a busy
# two-core machine, and one thread sums every product in the same order on whatever machine a
# restart lands on.
for _variable in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_variable, "1")
