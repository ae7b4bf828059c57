"""The preemption notice: a real SIGTERM (and SIGINT) to a real process sets the flag the loop checks."""

import json
import signal
import subprocess
import sys
import threading
from pathlib import Path

import pytest
import spot_runtime

CHILD = Path(__file__).with_name("notice_child.py")


def _sigint_as_a_terminal_leaves_it():
    # A suite started in the background (`pytest &`, a CI runner) passes SIGINT on ignored, and
    # Python then installs no KeyboardInterrupt handler in the child: the test is of the default.
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def start(mode, directory="-"):
    return subprocess.Popen(
        [sys.executable, str(CHILD), mode, str(directory)], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        preexec_fn=_sigint_as_a_terminal_leaves_it,
    )


def read_until(child, prefix):
    for line in child.stdout:
        if line.startswith(prefix):
            return line
    raise AssertionError(f"the child ended before printing {prefix!r}: {child.stderr.read()}")


def test_sigterm_sets_the_flag_and_the_previous_handler_still_runs():
    child = start("flag")
    read_until(child, "ready")
    child.send_signal(signal.SIGTERM)
    seen = json.loads(read_until(child, "{"))
    assert child.wait(timeout=20) == 0  # the handler did not end the process: the loop did
    assert seen == {"received": True, "signal": signal.SIGTERM, "chained": [signal.SIGTERM]}


def test_sigint_sets_the_flag_first_and_a_second_one_interrupts():
    child = start("sigint")
    read_until(child, "ready")
    child.send_signal(signal.SIGINT)
    seen = json.loads(read_until(child, "{"))
    assert seen["received"] is True and seen["signal"] == signal.SIGINT
    child.send_signal(signal.SIGINT)
    assert read_until(child, "KeyboardInterrupt")
    assert child.wait(timeout=20) == 0


def test_the_loop_checkpoints_at_its_next_step_after_sigterm_and_exits_zero(tmp_path):
    child = start("train", tmp_path / "ckpt")
    reached = int(read_until(child, "ready 20").split()[1])
    child.send_signal(signal.SIGTERM)
    saved = int(read_until(child, "saved").split()[1])
    assert child.wait(timeout=20) == 0
    assert saved >= reached  # the step it was on when the signal came, or the one after it
    restored = spot_runtime.Checkpointer(tmp_path / "ckpt").restore()
    assert restored is not None and restored.step == saved and restored.files == {"step.txt": str(saved).encode()}


def test_install_outside_the_main_thread_is_refused_with_the_reason():
    errors = []

    def install():
        try:
            spot_runtime.PreemptionNotice.install()
        except RuntimeError as error:
            errors.append(str(error))

    thread = threading.Thread(target=install)
    thread.start()
    thread.join()
    assert errors and "main thread" in errors[0]


def test_install_is_idempotent_and_uninstall_puts_the_previous_handlers_back():
    before = signal.getsignal(signal.SIGTERM), signal.getsignal(signal.SIGINT)
    notice = spot_runtime.PreemptionNotice.install()
    try:
        assert spot_runtime.PreemptionNotice.install() is notice
        assert signal.getsignal(signal.SIGTERM) is not before[0]
    finally:
        notice.uninstall()
    assert (signal.getsignal(signal.SIGTERM), signal.getsignal(signal.SIGINT)) == before
    assert spot_runtime.PreemptionNotice.install() is not notice
    spot_runtime.PreemptionNotice.install().uninstall()


@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGINT])
def test_a_signal_in_this_process_sets_received_and_names_the_signal(signum):
    notice = spot_runtime.PreemptionNotice.install()
    try:
        signal.raise_signal(signum)
        assert notice.received is True and notice.signal == signum
    finally:
        notice.uninstall()
