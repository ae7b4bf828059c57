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

import spot_runtime

from tabular_trainer import config as flags
from tabular_trainer import output
from tabular_trainer.run import Run

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

    run = Run.prepare(config)
    if restored is None:
        state = run.fresh()
        say(f"no checkpoint: starting at step 0/{config.steps}")
    else:
        folder = restored.folder
        try:
            state = run.resumed(restored.files, restored.step)
        except ValueError as err:
            return fail(f"checkpoint {folder} cannot be resumed: {err}")
        say(f"resumed from step {restored.step}/{config.steps} ({folder})")

    try:
        outcome = run.train(state, checkpoints, notice, say)
    except spot_runtime.CheckpointError as err:
        return fail(str(err))
    if outcome.preempted:
        return 0
    if not checkpoints.is_chief:
        say(f"trained to step {outcome.step}/{config.steps}; the chief writes the model")
        return 0
    accuracy = run.accuracy(state)
    try:
        where = output.write_model(state.params, accuracy, config, len(run.digits.test_y))
    except (OSError, ValueError) as err:
        # The training is checkpointed: fixed, a rerun resumes at the end and only writes the model.
        return fail(f"cannot write the model to AIP_MODEL_DIR={output.model_dir()}: {err}")
    say(f"trained {outcome.step} steps: held-out accuracy {accuracy:.4f}; model in {where}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
