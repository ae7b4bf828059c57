"""tabular_trainer.task with the bug the drill is for: it checkpoints, but never loads a checkpoint
(every attempt finds none and starts at step 0), as a trainer that ignores AIP_CHECKPOINT_DIR on start."""

import sys

import spot_runtime
from tabular_trainer import task

spot_runtime.Checkpointer.latest = lambda self: None  # type: ignore[method-assign]  # the bug, on purpose

if __name__ == "__main__":
    sys.exit(task.main())
