"""The example trainer, SIGKILLed by itself in the middle of one save: a VM reclaimed mid-write.

`python -m tests.training.kill_mid_save STEP [trainer flags]`: runs
tabular_trainer.task with the runtime's stores' `write` wrapped so that, in the
save of checkpoint STEP, the process SIGKILLs itself right after the first data
file is written whole (no handler runs, no `finally`, nothing is flushed: what
a reclaimed VM leaves). The saves before it are untouched.
"""

from __future__ import annotations

import os
import signal
import sys
from collections.abc import Callable

import spot_runtime
from tabular_trainer import task

MANIFEST = "MANIFEST.json"


def killing(write: Callable[..., None], folder: str) -> Callable[..., None]:
    def write_then_die(store: object, key: str, data: bytes) -> None:
        write(store, key, data)
        if key.startswith(folder) and not key.endswith(MANIFEST):
            os.kill(os.getpid(), signal.SIGKILL)

    return write_then_die


def main() -> None:
    step, flags = int(sys.argv[1]), sys.argv[2:]
    folder = f"step-{step:012d}/"
    for store in (spot_runtime.LocalStore, spot_runtime.GcsStore, spot_runtime.MountStore):
        store.write = killing(store.write, folder)  # type: ignore[method-assign]  # the kill, patched in on purpose
    sys.exit(task.main(flags))


if __name__ == "__main__":
    main()
