import os
import sys

import pytest

from tests.emulator import JobServiceEmulator

# Compile once, import once: a machine with PYTHONDONTWRITEBYTECODE=1 (this workplace's do) would
# have every test worker and every process the tests start (about 200: provider hosts, the CLI,
# the program, trainers) compile the project's modules from source again, and pytest rewrite every
# test module again on each run. The installed packages are compiled at install (`uv sync
# --compile-bytecode`); the project's own modules and tests are compiled by the first process
# that imports them, into the __pycache__ folders .gitignore leaves out. Before xdist starts its
# workers: they and what they start inherit both.
sys.dont_write_bytecode = False
os.environ.pop("PYTHONDONTWRITEBYTECODE", None)


# The provider paces its calls to Vertex AI's per-minute quotas (components/spot_job/client/quota_pacing.py).
# Against the emulator the quota's minute lasts 60/S real seconds: here S=1000 (a minute is 60 ms),
# so the suite's thousands of calls are never held to real minutes, in this process or in the
# provider hosts it starts (they inherit the environment). A pacing test sets its own S.
os.environ.setdefault("SPOT_TRAINING_EMULATOR_TIME_SCALE", "1000")
# How long a submission whose answer was lost is looked for before it is sent again
# (submission.py; 20 s by default): 1 s here, where the emulator lands a job at once
# unless a test makes it land late, and such a test sets its own.
os.environ.setdefault("SPOT_TRAINING_SETTLE_SECONDS", "1")


@pytest.fixture
def emulator(monkeypatch):
    """A fresh Vertex AI JobService emulator; the provider talks to it through the real client."""
    with JobServiceEmulator() as emu:
        monkeypatch.setenv("AIPLATFORM_EMULATOR_HOST", emu.address)
        yield emu


@pytest.fixture
def fast_pace(monkeypatch):
    """Backoff and polling in milliseconds, so fault tests do not sleep for seconds.

    Only the pace changes: which errors are retried, and for how long, is the
    provider's own.
    """
    from components.spot_job.client import job_service

    monkeypatch.setattr(job_service, "BACKOFF", job_service.Backoff(initial=0.01, maximum=0.05, multiplier=2.0))
    monkeypatch.setattr(job_service, "POLL", job_service.Backoff(initial=0.01, maximum=0.05, multiplier=1.5))


@pytest.fixture
def host(emulator):
    """The SDK's dynamic provider host as a subprocess, as the engine runs it, talking to the emulator."""
    from tests.provider_host import ProviderHost

    with ProviderHost({"AIPLATFORM_EMULATOR_HOST": emulator.address}) as host:
        yield host


@pytest.fixture(scope="session")  # with xdist, one per worker
def _emulator_and_host():
    from tests.emulator import JobServiceEmulator
    from tests.provider_host import ProviderHost

    with JobServiceEmulator() as emu, ProviderHost({"AIPLATFORM_EMULATOR_HOST": emu.address}) as host:
        yield emu, host


@pytest.fixture
def shared_emulator(_emulator_and_host, monkeypatch):
    """The worker's one emulator, emptied for this test. Starting a provider host (and importing
    Google's client in it) costs a second of CPU; the modules that import tests/shared_host.py
    share one per worker (a session under xdist), with the emulator reset per test. A test that
    kills its host, changes its environment or counts its start uses the `host` fixture: its own."""
    emu, _ = _emulator_and_host
    emu.reset()
    monkeypatch.setenv("AIPLATFORM_EMULATOR_HOST", emu.address)
    return emu


@pytest.fixture
def shared_host(_emulator_and_host, shared_emulator):
    """The worker's one provider host, its log cleared for this test; its emulator is shared_emulator."""
    _, host = _emulator_and_host
    host.clear_log()
    return host


@pytest.fixture
def gcs(monkeypatch):
    """A fresh fake-gcs-server (Cloud Storage), STORAGE_EMULATOR_HOST pointing at it for this test and
    the processes it starts. It answers in about 50 ms, so each test has its own: no bucket outlives it."""
    from tests.gcs_emulator import EmulatorUnavailable, GcsEmulator

    try:
        with GcsEmulator() as emulator:
            monkeypatch.setenv("STORAGE_EMULATOR_HOST", emulator.url)
            yield emulator
    except EmulatorUnavailable as unavailable:
        pytest.fail(str(unavailable), pytrace=False)  # what to run (tools/gcs/build.sh), not a traceback
