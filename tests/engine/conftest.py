import pytest

from tests.emulator import JobServiceEmulator
from tests.engine import processes
from tests.engine.project import PULUMI, EngineProject
from tests.engine.stack import CONFIG, STACK


@pytest.fixture
def engine_project(tmp_path, monkeypatch):
    """The project with a small stack of its own under the real CLI, against a fresh emulator.

    No process of the test may outlive it: the CLI, its plugins, a driver. Any left is killed, and
    the test fails (errors at teardown) naming them."""
    if not PULUMI.exists():
        pytest.fail(f"{PULUMI} is missing: run tools/engine/build.sh (.ci/run does) before the engine tests")
    with JobServiceEmulator() as emulator:
        project = EngineProject(tmp_path, emulator.address, STACK, CONFIG)
        for key, value in project.env.items():
            monkeypatch.setenv(key, value)  # the inline program runs in this process
        project.emulator = emulator
        yield project
        left = processes.outliving("PULUMI_HOME", project.env["PULUMI_HOME"])
        commands = {pid: processes.command(pid) for pid in left}
        processes.kill(left)
        assert not left, f"processes of the test outlived it: {commands}"
