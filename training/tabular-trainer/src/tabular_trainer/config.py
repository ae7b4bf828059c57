"""The trainer's settings: its command-line flags, checked, with the defaults Vertex runs."""

from __future__ import annotations

import argparse
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from typing import Any

# Default interval: one save (two .npz of ~150 KB and a small JSON, then the manifest and the
# progress record) costs 5-25 ms on a local disk or the emulated bucket, as much as 20-80 training
# steps of this model: every 4,000 steps (1-2 s of training) keeps it at 0.5% and 2.3% of training
# time (bench/checkpoint.py, BENCHMARKS.md section 10), well within 5%. A hard kill then loses at
# most 4,000 steps: pick a real model's interval from its save cost and the work you accept to lose
# (docs/training.md, "Picking the checkpoint interval").
DEFAULT_INTERVAL = 4000


@dataclass(frozen=True)
class Config:
    steps: int = 12000
    checkpoint_interval: int = DEFAULT_INTERVAL
    batch_size: int = 64
    learning_rate: float = 0.05
    seed: int = 0
    momentum: float = 0.9
    hidden: int = 256
    log_every: int = 0

    def path_defining(self) -> dict[str, Any]:
        """The settings the trained weights depend on; a checkpoint made under others is not resumed.

        Not `steps` (training longer continues the same path), nor the interval or the logging.
        """
        settings = asdict(self)
        for key in ("steps", "checkpoint_interval", "log_every"):
            del settings[key]
        return settings


def positive_int(text: str) -> int:
    value = int(text)
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be at least 1, got {text}")
    return value


def non_negative_int(text: str) -> int:
    value = int(text)
    if value < 0:
        raise argparse.ArgumentTypeError(f"must be 0 or more, got {text}")
    return value


def positive_float(text: str) -> float:
    value = float(text)
    if not value > 0:  # also refuses nan
        raise argparse.ArgumentTypeError(f"must be greater than 0, got {text}")
    return value


def momentum(text: str) -> float:
    value = float(text)
    if not 0 <= value < 1:
        raise argparse.ArgumentTypeError(f"must be in [0, 1), got {text}")
    return value


def parse(argv: Sequence[str] | None = None) -> Config:
    """The flags as a Config; a bad value exits with argparse's message naming the flag (status 2)."""
    d = Config()
    parser = argparse.ArgumentParser(
        prog="python -m tabular_trainer.task",
        description="Train a small MLP on scikit-learn's digits, checkpointing to AIP_CHECKPOINT_DIR; "
        "the model goes to AIP_MODEL_DIR (./model when unset).",
    )
    parser.add_argument("--steps", type=positive_int, default=d.steps, help=f"total training steps (mini-batches); default {d.steps}")
    parser.add_argument(
        "--checkpoint-interval", type=positive_int, default=d.checkpoint_interval,
        help=f"checkpoint every N steps (and on a preemption notice, and at the end); default {d.checkpoint_interval}",
    )
    parser.add_argument("--batch-size", type=positive_int, default=d.batch_size, help=f"default {d.batch_size}")
    parser.add_argument("--learning-rate", type=positive_float, default=d.learning_rate, help=f"default {d.learning_rate}")
    parser.add_argument("--momentum", type=momentum, default=d.momentum, help=f"default {d.momentum}")
    parser.add_argument("--hidden", type=positive_int, default=d.hidden, help=f"hidden units; default {d.hidden}")
    parser.add_argument("--seed", type=int, default=d.seed, help=f"seeds the split, the weights and the data order; default {d.seed}")
    parser.add_argument("--log-every", type=non_negative_int, default=d.log_every, help="print the loss every N steps; 0 (default): never")
    args = parser.parse_args(argv)
    return Config(
        steps=args.steps,
        checkpoint_interval=args.checkpoint_interval,
        batch_size=args.batch_size,
        learning_rate=args.learning_rate,
        seed=args.seed,
        momentum=args.momentum,
        hidden=args.hidden,
        log_every=args.log_every,
    )
