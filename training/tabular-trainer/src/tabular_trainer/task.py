"""Entry point Vertex AI runs (`pythonModule: tabular_trainer.task`, or the example image's command).

A Spot-ready trainer: it resumes from the newest complete checkpoint in
AIP_CHECKPOINT_DIR (Vertex derives it from the job's baseOutputDirectory,
which spot-training keeps across resubmissions), checkpoints every
--checkpoint-interval steps and at the next step boundary after SIGTERM (the
preemption notice), then exits 0; the finished model goes to AIP_MODEL_DIR.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence

import numpy as np
import spot_runtime

from tabular_trainer import config as flags
from tabular_trainer import data, loop, output
from tabular_trainer.model import Mlp
from tabular_trainer.optimizer import Momentum
from tabular_trainer.state import TrainState

# Checkpoints kept: the newest and two before it, in case the newest is found damaged.
KEEP = 3


def say(line: str) -> None:
    # Flushed at once: Vertex's log (and a test reading the pipe) sees each line as it happens.
    print(line, flush=True)


def fail(message: str) -> int:
    print(f"tabular_trainer: {message}", file=sys.stderr, flush=True)
    return 1


def main(argv: Sequence[str] | None = None) -> int:
    config = flags.parse(argv)
    # First, so a SIGTERM while the data loads is a notice too, not the end of the process.
    notice = spot_runtime.PreemptionNotice.install()
    try:
        checkpoints = spot_runtime.Checkpointer.from_environment(
            keep=KEEP, total_steps=config.steps, interval=config.checkpoint_interval
        )
        restored = checkpoints.restore()
    except spot_runtime.CheckpointError as err:
        return fail(str(err))

    # Three independent streams from the one seed: the split, the initial weights, the data order.
    split_seed, init_seed, order_seed = np.random.SeedSequence(config.seed).spawn(3)
    digits = data.load(np.random.default_rng(split_seed))
    model = Mlp(digits.features, config.hidden, digits.classes)
    optimizer = Momentum(config.learning_rate, config.momentum)
    if restored is None:
        state = loop.fresh(config, model, optimizer, np.random.default_rng(init_seed), np.random.default_rng(order_seed))
        say(f"no checkpoint: starting at step 0/{config.steps}")
    else:
        folder = f"step-{restored.step:012d}"
        try:
            state = TrainState.from_files(restored.files, restored.step, config.path_defining())
            model.check(state.params)
            model.check(state.velocity)
        except ValueError as err:
            return fail(f"checkpoint {folder} cannot be resumed: {err}")
        say(f"resumed from step {restored.step}/{config.steps} ({folder})")

    try:
        outcome = loop.train(config, digits, model, optimizer, state, checkpoints, notice, say)
    except spot_runtime.CheckpointError as err:
        return fail(str(err))
    if outcome.preempted:
        return 0
    if not checkpoints.is_chief:
        say(f"trained to step {outcome.step}/{config.steps}; the chief writes the model")
        return 0
    accuracy = model.accuracy(state.params, digits.test_x, digits.test_y)
    try:
        where = output.write_model(state.params, accuracy, config, len(digits.test_y))
    except (OSError, ValueError) as err:
        return fail(str(err))
    say(f"trained {outcome.step} steps: held-out accuracy {accuracy:.4f}; model in {where}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
