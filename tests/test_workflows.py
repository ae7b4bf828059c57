"""The GitHub workflows, checked as GitHub reads them before they ever run there.

actionlint (tools/actionlint/build.sh, from the Go module proxy) reads each
workflow: its expressions and contexts, the inputs each action it uses
declares (pulumi/actions' among them), and, with shellcheck on PATH, each
step's `run:` script. .ci/run installs shellcheck and builds actionlint before
the tests.
"""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

# Needs actionlint and shellcheck, which .ci/run installs: a CI step of its own (`pytest -m workflows`).
pytestmark = pytest.mark.workflows

ROOT = Path(__file__).resolve().parent.parent
ACTIONLINT = ROOT / ".engine" / "bin" / "actionlint"
WORKFLOWS = sorted((ROOT / ".github" / "workflows").glob("*.yml"))


def _actionlint(*files: Path, cwd: Path = ROOT) -> subprocess.CompletedProcess:
    if not ACTIONLINT.exists():
        pytest.fail(f"{ACTIONLINT} is missing: run tools/actionlint/build.sh (.ci/run does)")
    if shutil.which("shellcheck") is None:
        pytest.fail("shellcheck is not on PATH, so actionlint would not check the steps' scripts: "
                    "`apt-get install shellcheck` (.ci/run does)")
    return subprocess.run([str(ACTIONLINT), "-no-color", "-oneline", *map(str, files)], cwd=cwd, capture_output=True, text=True)


def test_every_workflow_passes_actionlint_and_shellcheck() -> None:
    assert WORKFLOWS
    done = _actionlint(*WORKFLOWS)
    assert done.returncode == 0, done.stdout + done.stderr


BREAKAGES = {
    "a misspelt input of pulumi/actions": (
        "          policyPacks: policy\n", "          policyPack: policy\n", 'input "policyPack" is not defined in action "pulumi/actions@v6"'),
    "an expression naming a context that does not exist": (
        "${{ matrix.stack }}: validate", "${{ matrixx.stack }}: validate", 'undefined variable "matrixx"'),
    "a step's script that would break in bash": (
        'cat stack-file.diff\n', 'cat $GITHUB_WORKSPACE/stack-file.diff\n', "SC2086"),
}


@pytest.mark.parametrize("breakage", BREAKAGES.values(), ids=BREAKAGES.keys())
def test_a_workflow_broken_as_github_would_find_it_fails_the_check(tmp_path: Path, breakage: tuple[str, str, str]) -> None:
    old, new, reported = breakage
    text = (ROOT / ".github" / "workflows" / "infrastructure.yml").read_text()
    assert old in text
    broken = tmp_path / "infrastructure.yml"
    broken.write_text(text.replace(old, new, 1))

    done = _actionlint(broken, cwd=tmp_path)

    assert done.returncode == 1 and reported in done.stdout, done.stdout + done.stderr
