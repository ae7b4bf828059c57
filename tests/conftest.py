import pytest

from tests.emulator import JobServiceEmulator


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
    from components.spot_job import vertex

    monkeypatch.setattr(vertex, "BACKOFF", vertex.Pace(initial=0.01, maximum=0.05, multiplier=2.0))
    monkeypatch.setattr(vertex, "POLL", vertex.Pace(initial=0.01, maximum=0.05, multiplier=1.5))


@pytest.fixture
def host(emulator):
    """The SDK's dynamic provider host as a subprocess, as the engine runs it, talking to the emulator."""
    from tests.provider_host import ProviderHost

    with ProviderHost({"AIPLATFORM_EMULATOR_HOST": emulator.address}) as host:
        yield host
