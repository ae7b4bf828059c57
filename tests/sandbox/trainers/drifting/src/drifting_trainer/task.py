"""tabular_trainer.task with the bug the drill is for: it resumes from the step it checkpointed, but
draws the data order afresh instead of from the checkpointed generator, so the model a preempted run
ends with is not the one an uninterrupted run makes."""

import dataclasses
import sys

import numpy as np
from tabular_trainer import task
from tabular_trainer.run import Run

_resumed = Run.resumed


def _unseeded_order(self, files, step):  # type: ignore[no-untyped-def]  # a stand-in for Run.resumed, typed as it is
    return dataclasses.replace(_resumed(self, files, step), order_rng=np.random.default_rng(step))


Run.resumed = _unseeded_order  # type: ignore[method-assign]  # the bug, on purpose

if __name__ == "__main__":
    sys.exit(task.main())
