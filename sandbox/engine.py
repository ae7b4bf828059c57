"""Which Pulumi CLI the sandbox runs, and the environment it runs it in.

The user's own `pulumi` when one is on PATH at a supported version, else the
CLI tools/engine/build.sh builds from Go modules into .engine/bin/. Supported
means at least the version of the Pulumi Python SDK the project locks
(uv.lock): an older CLI may lack what that SDK's Automation API asks of it.

The program runs on the Automation API's inline route (the CLI talks to a
language server in the calling process): the Python language host is not
built here (docs/development.md), and this route needs none, with either CLI.
"""

from __future__ import annotations

import importlib.metadata
import os
import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path

from sandbox.workspace import ROOT, Workspace

BUILT = ROOT / ".engine" / "bin" / "pulumi"
BUILD_SCRIPT = "tools/engine/build.sh"
# The stand-in provider plugins (sandbox/gcp/), found by the engine as `pulumi-resource-<name>` on PATH.
PLUGINS = ROOT / "sandbox" / "bin"


class EngineMissing(RuntimeError):
    """No usable Pulumi CLI: the message says what to run."""


@dataclass(frozen=True)
class Engine:
    binary: Path
    version: str
    own: bool  # the user's pulumi from PATH, not the one built here

    def describe(self) -> str:
        where = "your pulumi on PATH" if self.own else f"the CLI built from Go modules ({BUILD_SCRIPT})"
        return f"pulumi {self.version} at {self.binary}: {where}"

    def environment(self, workspace: Workspace) -> dict[str, str]:
        """The variables the CLI (and the plugins it starts) run with: the sandbox's own state, secrets,
        plugin home and plugins; the CLI's own directory first on PATH (its dynamic provider host is there)."""
        return {
            "PULUMI_BACKEND_URL": f"file://{workspace.state_dir}",
            "PULUMI_CONFIG_PASSPHRASE_FILE": str(workspace.passphrase_file),
            "PULUMI_HOME": str(workspace.pulumi_home),
            "PULUMI_SKIP_UPDATE_CHECK": "true",
            "PULUMI_DISABLE_AUTOMATIC_PLUGIN_ACQUISITION": "true",  # never download a plugin: the stand-ins serve
            "SPOT_TRAINING_STACKS_DIR": str(workspace.project_dir / "stacks"),
            "PATH": os.pathsep.join([str(self.binary.parent), str(PLUGINS), str(ROOT / ".venv" / "bin"), os.environ.get("PATH", "")]),
        }


def supported() -> tuple[int, ...]:
    return _numbers(importlib.metadata.version("pulumi"))


def find() -> Engine:
    """The user's pulumi if it is supported, else the built one; EngineMissing if neither is there."""
    refused = ""
    own = shutil.which("pulumi")
    if own and Path(own).resolve() != BUILT.resolve():
        version = _version(Path(own))
        if version and _numbers(version) >= supported():
            return Engine(Path(own), version, True)
        refused = f"your pulumi ({own}, {version or 'version unknown'}) is older than {'.'.join(map(str, supported()))}; "
    if BUILT.is_file():
        return Engine(BUILT, _version(BUILT) or "?", False)
    raise EngineMissing(
        f"{refused}no Pulumi CLI to run the sandbox: install pulumi {'.'.join(map(str, supported()))} or later, "
        f"or build one from Go modules: {BUILD_SCRIPT} (needs Go; minutes the first time)"
    )


def _version(binary: Path) -> str | None:
    try:
        done = subprocess.run([str(binary), "version"], capture_output=True, text=True, timeout=30)
    except (OSError, subprocess.TimeoutExpired):
        return None
    text = done.stdout.strip().removeprefix("v")
    return text if done.returncode == 0 and text[:1].isdigit() else None


def _numbers(version: str) -> tuple[int, ...]:
    parts = []
    for part in version.split("-")[0].split(".")[:3]:
        if not part.isdigit():
            break
        parts.append(int(part))
    return tuple(parts)
