"""`emulator` and `host` for a test module that shares the worker's one provider host (and one
emulator, reset per test) across its tests, instead of starting a host each:

    from tests.shared_host import emulator, host  # noqa: F401 (fixtures)
"""

import pytest


@pytest.fixture
def emulator(shared_emulator):
    return shared_emulator


@pytest.fixture
def host(shared_host):
    return shared_host
