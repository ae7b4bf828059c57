"""The Pythons the project supports: what pyproject.toml says, and code that keeps to it.

CI runs on one minor (.python-version); these keep the code from drifting past
the oldest one users may run it on.
"""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

from tests.program import ROOT

# Everything that runs outside the tests: the program, the provider the host
# imports, the offline render, the policy pack, the benchmarks.
CODE = ["__main__.py", "components", "offline", "policy", "bench"]
VERMIN = str(Path(sys.executable).parent / "vermin")  # the dev group's; it has no `python -m` entry


def requires_python(pyproject: str) -> str:
    # Read with a pattern: tomllib is 3.11+, and these tests run on 3.10 too.
    return re.search(r'^requires-python = "([^"]+)"', (ROOT / pyproject).read_text(), re.M).group(1)


def oldest_supported() -> str:
    return re.search(r">=\s*(3\.\d+)", requires_python("pyproject.toml")).group(1)


def test_the_policy_pack_supports_the_same_pythons_as_the_program():
    # The CLI runs the pack beside the program: one range for both.
    assert requires_python("policy/pyproject.toml") == requires_python("pyproject.toml")


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
