"""EngineProject: this project under the real Pulumi CLI (.engine/bin/pulumi, tools/engine/build.sh).

A copy of the project as a user has it checked out, in a temporary directory:
the repository's own Pulumi.yaml (so `options.refresh: always` is the real
one), `__main__.py` and the packages the program and the dynamic provider host
import (symlinked), and `stacks/Pulumi.<stack>.yaml`. State goes to a file
backend beside it, secrets under a passphrase, and the engine finds:

- `pulumi-resource-pulumi-python` (the dynamic provider host, beside `pulumi`);
- `pulumi-resource-gcp`, the stand-in Google provider (tests/engine/bin, on PATH),
  which records what it was asked in `gcp_calls()`, and fails on cue (`gcp_fault()`).

The program runs through the Automation API's inline route: the Python
language host (`pulumi-language-python`) is not served by the Go module proxy
(docs/development.md), so the CLI talks to a language server in this process,
which runs `__main__.py`. Every other command (`stack export`, `stack output`,
`config set`) is the CLI itself, run as a user runs it (`cli()`).
"""

from __future__ import annotations

import json
import os
import runpy
import shutil
import subprocess
from pathlib import Path

import yaml
from pulumi import automation as auto

ROOT = Path(__file__).resolve().parents[2]
ENGINE = ROOT / ".engine"
PULUMI = ENGINE / "bin" / "pulumi"
# The dynamic provider launcher, kept in the repository and written beside `pulumi` by tools/engine/build.sh.
LAUNCHER = ROOT / "tools" / "engine" / "pulumi-resource-pulumi-python"
STAND_IN_BIN = Path(__file__).resolve().parent / "bin"
PASSPHRASE = "engine-tests-passphrase"
# What the program and the dynamic provider host import, as the checkout has them.
PROJECT_FILES = ("__main__.py", "components", "stack_config", "images", "training")


class EngineProject:
    def __init__(self, tmp: Path, emulator_address: str, stack: str, config: dict) -> None:
        self.dir = tmp / "project"
        self.dir.mkdir()
        shutil.copy(ROOT / "Pulumi.yaml", self.dir / "Pulumi.yaml")
        for name in PROJECT_FILES:
            (self.dir / name).symlink_to(ROOT / name)
        # The project's environment, where `uv sync` (toolchain: uv) makes it.
        (self.dir / ".venv").symlink_to(ROOT / ".venv")
        (self.dir / "stacks").mkdir()
        self.stack_name = stack
        self.stack_file = self.dir / "stacks" / f"Pulumi.{stack}.yaml"
        self.stack_file.write_text(yaml.safe_dump({"config": config}, sort_keys=False))
        (tmp / "state").mkdir()
        self.gcp_log = tmp / "gcp-calls.jsonl"
        self.gcp_faults = tmp / "gcp-faults.json"
        self.env = {
            "PULUMI_BACKEND_URL": f"file://{tmp / 'state'}",
            "PULUMI_CONFIG_PASSPHRASE": PASSPHRASE,
            "PULUMI_SKIP_UPDATE_CHECK": "true",
            "PULUMI_HOME": str(tmp / "pulumi-home"),  # no plugin cache, credentials or settings of the machine's
            "PULUMI_DISABLE_AUTOMATIC_PLUGIN_ACQUISITION": "true",  # no network: a missing plugin is an error
            "PULUMI_AUTOMATION_API_SKIP_VERSION_CHECK": "false",
            "AIPLATFORM_EMULATOR_HOST": emulator_address,
            "STAND_IN_GCP_LOG": str(self.gcp_log),
            "STAND_IN_GCP_FAULTS": str(self.gcp_faults),
            "SPOT_TRAINING_STACKS_DIR": str(self.dir / "stacks"),
            # The project's .venv first, as `uv run` and an activated environment have it: on the inline
            # route the engine passes the launcher none of Pulumi.yaml's runtime options (it replaces the
            # runtime with `client`), so the launcher runs `python3` from PATH (tests/engine/test_launcher.py).
            "PATH": os.pathsep.join([str(PULUMI.parent), str(STAND_IN_BIN), str(self.dir / ".venv" / "bin"), os.environ.get("PATH", "")]),
        }
        os.environ.pop("PULUMI_IGNORE_AMBIENT_PLUGINS", None)  # the stand-in is an ambient plugin

    def program(self) -> None:
        """The inline program: the project's own __main__.py, as the language host would run it."""
        runpy.run_path(str(self.dir / "__main__.py"), run_name="__main__")

    def stack(self, program=None) -> auto.Stack:
        """The stack through the Automation API, running `program` (default: __main__.py)."""
        return auto.create_or_select_stack(
            self.stack_name,
            project_name="spot-training",
            program=program or self.program,
            opts=auto.LocalWorkspaceOptions(
                work_dir=str(self.dir), pulumi_command=auto.PulumiCommand(root=str(ENGINE)), env_vars=self.env
            ),
        )

    def cli(self, *args: str, check: bool = True) -> subprocess.CompletedProcess:
        """`pulumi ARGS --stack <stack>` in the project directory, as a user types it."""
        result = subprocess.run(
            [str(PULUMI), *args, "--stack", self.stack_name, "--non-interactive"],
            cwd=self.dir, env={**os.environ, **self.env}, capture_output=True, text=True,
        )
        if check and result.returncode != 0:
            raise AssertionError(f"pulumi {' '.join(args)} exited {result.returncode}:\n{result.stdout}\n{result.stderr}")
        return result

    def export(self) -> dict:
        return json.loads(self.cli("stack", "export").stdout)

    def gcp_calls(self, method: str | None = None) -> list[dict]:
        """What the engine asked the stand-in Google provider, in order."""
        if not self.gcp_log.exists():
            return []
        calls = [json.loads(line) for line in self.gcp_log.read_text().splitlines()]
        return [c for c in calls if method is None or c["method"] == method]

    def gcp_fault(self, method: str, name: str, fault: str, times: int | None = 1, **fields: object) -> None:
        """The stand-in Google provider answers `method` on resource `name` with `fault` (tests/engine/gcp_faults.py):
        the next `times` calls, or every call from now on with `times=None`."""
        rules = json.loads(self.gcp_faults.read_text()) if self.gcp_faults.exists() else []
        rules.append({"method": method, "name": name, "fault": fault, **({} if times is None else {"times": times}), **fields})
        self.gcp_faults.write_text(json.dumps(rules))

    def clear_gcp_faults(self) -> None:
        self.gcp_faults.write_text("[]")

    def job_resources(self) -> list[dict]:
        return [r for r in self.export()["deployment"].get("resources", []) if r["type"].endswith("SpotTrainingJob")]
