"""Fixtures for the command-line tests: one emulator per module, emptied per test, and the dev stack's
bodies as the offline render prints them. Import them by name into a test module."""

from __future__ import annotations

import pytest

from offline.render import render
from tests.emulator import JobServiceEmulator


@pytest.fixture(scope="module")
def _emulator():
    with JobServiceEmulator() as emu:
        yield emu


@pytest.fixture
def emulator(_emulator, monkeypatch):
    _emulator.reset()
    monkeypatch.setenv("AIPLATFORM_EMULATOR_HOST", _emulator.address)
    return _emulator


@pytest.fixture(scope="module")
def bodies():
    return {f"{job.team}/{job.job}": job.body for job in render("dev")}
