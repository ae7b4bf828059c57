"""The one error a user of the runtime can cause."""


class CheckpointError(ValueError):
    """A checkpoint directory, checkpoint or progress record the runtime cannot use.

    The message always names the offending path (a local path or a gs:// URI), so a
    trainer's log says what to look at without a traceback into the runtime.
    """
