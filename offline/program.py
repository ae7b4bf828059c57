"""Runs the real `__main__.py` once, under Pulumi's mocks, with a stack's config."""

from __future__ import annotations

import json
import runpy
from pathlib import Path
from typing import Optional

import pulumi
import yaml
from pulumi.runtime.mocks import MockMonitor

from offline.mocks import OfflineMocks

ROOT = Path(__file__).resolve().parent.parent
STACKS = ROOT / "stacks"
PROJECT = "spot-training"


class UnknownStack(LookupError):
    """A stack name with no stacks/Pulumi.<stack>.yaml."""


def stack_config(stack: str) -> dict:
    """The `config:` map of stacks/Pulumi.<stack>.yaml, as the CLI hands it to a program."""
    path = STACKS / f"Pulumi.{stack}.yaml"
    if not path.is_file():
        known = ", ".join(sorted(p.name.split(".")[1] for p in STACKS.glob("Pulumi.*.yaml")))
        raise UnknownStack(f"no stack {stack!r}: {path} does not exist (stacks: {known})")
    return (yaml.safe_load(path.read_text()) or {}).get("config") or {}


def run(config: dict, stack: str, mocks: OfflineMocks, monitor: Optional[MockMonitor] = None) -> OfflineMocks:
    """Runs the program with `config`; raises what the program raises."""
    pulumi.runtime.set_mocks(mocks, project=PROJECT, stack=stack, preview=False, monitor=monitor or MockMonitor(mocks))
    pulumi.runtime.set_all_config(
        {key: value if isinstance(value, str) else json.dumps(value) for key, value in config.items()}
    )

    @pulumi.runtime.test
    def program():
        runpy.run_path(str(ROOT / "__main__.py"), run_name="__main__")

    program()
    return mocks
