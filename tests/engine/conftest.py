import pytest

from tests.emulator import JobServiceEmulator
from tests.engine.project import PULUMI, EngineProject
from tests.engine.stack import CONFIG, STACK


@pytest.fixture
def engine_project(tmp_path, monkeypatch):
    """The project with a small stack of its own under the real CLI, against a fresh emulator."""
    if not PULUMI.exists():
        pytest.fail(f"{PULUMI} is missing: run tools/engine/build.sh (.ci/run does) before the engine tests")
    with JobServiceEmulator() as emulator:
        project = EngineProject(tmp_path, emulator.address, STACK, CONFIG)
        for key, value in project.env.items():
            monkeypatch.setenv(key, value)  # the inline program runs in this process
        project.emulator = emulator
        yield project
