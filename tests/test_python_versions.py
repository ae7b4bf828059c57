"""The Pythons the project supports: what pyproject.toml says, and code that keeps to it.

CI runs on one minor (.python-version); these keep the code from drifting past
the oldest one users may run it on.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from packaging.markers import Marker
from packaging.specifiers import SpecifierSet

from tests.program import ROOT
from tests.provider_host import ProviderHost, deserialize
from tests.test_dynamic_host import URN, program_inputs  # noqa: F401 (a fixture: the program's own blob)

# Everything that runs outside the tests: the program, the provider the host
# imports, the offline render, the policy pack, the benchmarks, the training
# runtime trainers import and the example trainer (requires-python >=3.10 too).
CODE = ["__main__.py", "components", "offline", "policy", "bench", "training/spot-runtime/src", "training/tabular-trainer/src"]
VERMIN = str(Path(sys.executable).parent / "vermin")  # the dev group's; it has no `python -m` entry


def requires_python(pyproject: str) -> str:
    # Read with a pattern: tomllib is 3.11+, and these tests run on 3.10 too.
    return re.search(r'^requires-python = "([^"]+)"', (ROOT / pyproject).read_text(), re.M).group(1)


def oldest_supported() -> str:
    return re.search(r">=\s*(3\.\d+)", requires_python("pyproject.toml")).group(1)


def test_the_policy_pack_supports_the_same_pythons_as_the_program():
    # The CLI runs the pack beside the program: one range for both.
    assert requires_python("policy/pyproject.toml") == requires_python("pyproject.toml")


def supported_minors() -> list[str]:
    supported = SpecifierSet(requires_python("pyproject.toml"))
    return [f"3.{minor}" for minor in range(30) if f"3.{minor}.0" in supported]


def locked_for(package: str, minor: str) -> bool:
    """Whether this [[package]] entry of a uv.lock is the one installed on Python `minor`: uv forks
    the resolution when no one version of a package serves every supported Python, and then each
    entry lists the `resolution-markers` it is locked for."""
    block = re.search(r"^resolution-markers = \[\n(.*?)^\]", package, re.M | re.S)
    if block is None:
        return True
    environment = {"python_version": minor, "python_full_version": f"{minor}.0"}
    return any(Marker(marker).evaluate(environment) for marker in re.findall(r'^\s*"(.*)",?$', block.group(1), re.M))


@pytest.mark.parametrize("lock", ["uv.lock", "policy/uv.lock"])
def test_every_compiled_dependency_has_a_linux_wheel_for_every_supported_python(lock):
    """Else `uv sync` on that Python builds it from source (grpcio takes many minutes) or fails."""
    text = (ROOT / lock).read_text()
    missing = []
    for package in re.split(r"^\[\[package\]\]$", text, flags=re.M)[1:]:
        name = re.search(r'^name = "([^"]+)"', package, re.M).group(1)
        wheels = re.findall(r"/([^/\s\"]+\.whl)", package)
        if not wheels or any(w.endswith("-none-any.whl") for w in wheels):
            continue  # pure Python, or the project itself
        # name-version-python-abi-platform.whl; abi3 serves its minor and every later one, and a
        # py3-none wheel (a binary that links no Python, ruff's) serves them all.
        tags = [w[: -len(".whl")].split("-")[-3:] for w in wheels if "manylinux" in w and "x86_64" in w]
        for minor in supported_minors():
            if not locked_for(package, minor):
                continue  # another version of it is locked for this Python (a fork: numpy has none for all of 3.10-3.14)
            cp = "cp" + minor.replace(".", "")
            if not any(
                py == cp and abi == cp or abi == "abi3" and int(py[3:]) <= int(cp[3:]) or (py, abi) == ("py3", "none")
                for py, abi, _ in tags
            ):
                missing.append(f"{name} for {minor}")
    assert not missing, "no wheel: " + ", ".join(missing)


def test_the_code_needs_nothing_newer_than_the_oldest_supported_python():
    minimum = oldest_supported()
    assert minimum == "3.10"  # what pulumi and google-cloud-aiplatform require; raise it only with them
    done = subprocess.run(
        # --target=3.10-: any file that needs more than 3.10 is a violation (exit 1).
        # --eval-annotations: dataclasses and pulumi may evaluate annotations at run time.
        [VERMIN, f"--target={minimum}-", "--violations", "--eval-annotations", "--no-tips", *CODE],
        cwd=ROOT,
        capture_output=True,
        text=True,
    )
    assert done.returncode == 0, done.stdout + done.stderr


def other_pythons() -> list[Path]:
    """pyenv's interpreters of the supported minors other than this one, newest patch of each.

    A fresh CI machine has only its own Python: then there is none, and the
    cross-version test below is skipped rather than made to depend on one.
    """
    supported = SpecifierSet(requires_python("pyproject.toml"))
    versions = Path(os.environ.get("PYENV_ROOT") or Path.home() / ".pyenv") / "versions"
    found: dict[tuple[int, int], tuple[tuple[int, ...], Path]] = {}
    for python in versions.glob("3.*/bin/python"):
        name = python.parent.parent.name
        if not re.fullmatch(r"3\.\d+\.\d+", name) or name not in supported:
            continue
        version = tuple(map(int, name.split(".")))
        if version[:2] != sys.version_info[:2] and version > found.get(version[:2], ((), python))[0]:
            found[version[:2]] = (version, python)
    return [python for _, python in sorted(found.values())]


def locked_environment(python: Path, where: Path) -> Path:
    """The project's locked runtime dependencies for `python`, from uv's cache alone (no download)."""
    uv = os.environ.get("UV") or shutil.which("uv")
    env = {**os.environ, "UV_PROJECT_ENVIRONMENT": str(where), "UV_PYTHON_DOWNLOADS": "never"}
    done = subprocess.run(
        [uv, "sync", "--locked", "--offline", "--no-dev", "--python", str(python)],
        cwd=ROOT, env=env, capture_output=True, text=True,
    )
    if done.returncode != 0:
        pytest.skip(
            f"no locked environment for {python}: uv's cache lacks its wheels and this test downloads nothing "
            f"(`UV_PROJECT_ENVIRONMENT=/tmp/other-venv uv sync --locked --python {python}` once fills it)"
        )
    return where / "bin" / "python"


OTHERS = other_pythons()


@pytest.mark.interpreters
@pytest.mark.parametrize(
    "python",
    OTHERS or [pytest.param(None, marks=pytest.mark.skip(reason="no pyenv interpreter of another supported minor here"))],
    ids=lambda p: p and p.parent.parent.name,
)
def test_a_blob_written_on_this_python_is_served_by_the_host_on_another(python, program_inputs, emulator, tmp_path):
    """A stack deployed from one minor, refreshed and destroyed from another: the state's
    `__provider` names a module path, so any supported Python's host imports it."""
    other = locked_environment(python, tmp_path / "venv")
    minor = subprocess.run([other, "-c", "import sys; print(sys.version_info[:2])"], capture_output=True, text=True)
    assert minor.stdout.strip() != str(sys.version_info[:2])
    with ProviderHost({"AIPLATFORM_EMULATOR_HOST": emulator.address}, python=str(other)) as host:
        checked = host.check(URN, {}, program_inputs)
        assert list(checked.failures) == []
        created = host.create(URN, deserialize(checked.inputs))
        [job] = emulator.jobs()
        assert created.id == job.name
        state = deserialize(created.properties)
        assert state["__provider"] == program_inputs["__provider"]
        assert host.read(URN, created.id, state).id == created.id
        host.delete(URN, created.id, state)
    assert emulator.jobs() == []
