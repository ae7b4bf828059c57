"""The preemption notice: SIGTERM (and SIGINT) turned into a flag the training loop checks."""

from __future__ import annotations

import signal
import threading
from types import FrameType
from typing import Any, ClassVar

_Handler = Any  # what signal.getsignal returns: a callable, SIG_DFL, SIG_IGN or None


class PreemptionNotice:
    """``received`` becomes True when the process gets SIGTERM or SIGINT.

    On a Spot preemption Compute Engine gives the VM about 30 s and the container's processes
    SIGTERM (docs/training.md, "The preemption notice"); the loop saves at its next step
    boundary and exits. The handler only sets attributes: Python runs it between bytecodes of
    the main thread, where I/O (a log line, a save) could re-enter a half-done write or a lock
    the interrupted code holds. A Python-level handler installed before is called after the flag
    is set, so a framework's own handler keeps working. Python's default SIGINT handler is not
    chained on the first Ctrl-C (that would raise KeyboardInterrupt out of the save the notice is
    for); a second Ctrl-C raises it, so a stuck run can still be stopped from a terminal.
    """

    _installed: ClassVar[PreemptionNotice | None] = None

    def __init__(self) -> None:
        self.received = False
        self.signal: int | None = None  # the first signal received
        self._previous: dict[int, _Handler] = {}

    @classmethod
    def install(cls, signals: tuple[int, ...] = (signal.SIGTERM, signal.SIGINT)) -> PreemptionNotice:
        """Install the handlers (main thread only) and return the notice; a second call returns
        the same notice, so a library and its caller can both ask for it."""
        if cls._installed is not None:
            return cls._installed
        if threading.current_thread() is not threading.main_thread():
            raise RuntimeError(
                "PreemptionNotice.install() must be called from the main thread: Python delivers signals only there"
            )
        notice = cls()
        for signum in signals:
            notice._previous[signum] = signal.signal(signum, notice._handle)
        cls._installed = notice
        return notice

    def uninstall(self) -> None:
        """Put back the handlers found at install (for tests and for code that nests runs)."""
        for signum, previous in self._previous.items():
            signal.signal(signum, previous if previous is not None else signal.SIG_DFL)
        self._previous.clear()
        if PreemptionNotice._installed is self:
            PreemptionNotice._installed = None

    def _handle(self, signum: int, frame: FrameType | None) -> None:
        again = self.received
        self.received = True
        if self.signal is None:
            self.signal = signum
        previous = self._previous.get(signum)
        if previous is signal.default_int_handler:
            if again:
                previous(signum, frame)
            return
        if callable(previous):
            previous(signum, frame)
