import pytest

from tests.emulator import JobServiceEmulator


@pytest.fixture
def emulator(monkeypatch):
    """A fresh Vertex AI JobService emulator; the provider talks to it through the real client."""
    with JobServiceEmulator() as emu:
        monkeypatch.setenv("AIPLATFORM_EMULATOR_HOST", emu.address)
        yield emu
