"""Runs the real `__main__.py` once, under Pulumi's mocks, with a stack's config."""

from __future__ import annotations

import asyncio
import json
import runpy
import warnings
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


def set_mocks(mocks: pulumi.runtime.Mocks, stack: str, monitor: Optional[MockMonitor] = None) -> None:
    """pulumi.runtime.set_mocks, with the event loop it needs on every supported Python.

    It registers the root Stack at once, whose outputs are asyncio Futures made
    outside any loop: 3.10 to 3.13 make the thread a loop on the fly (3.12 and
    3.13 warn that they do), 3.14 raises RuntimeError instead.
    """
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        try:
            asyncio.get_event_loop()  # the thread's loop, if it has one (made here before 3.14)
        except RuntimeError:
            asyncio.set_event_loop(asyncio.new_event_loop())
    pulumi.runtime.set_mocks(mocks, project=PROJECT, stack=stack, preview=False, monitor=monitor or MockMonitor(mocks))


def run(config: dict, stack: str, mocks: OfflineMocks, monitor: Optional[MockMonitor] = None) -> OfflineMocks:
    """Runs the program with `config`; raises what the program raises."""
    set_mocks(mocks, stack, monitor)
    pulumi.runtime.set_all_config(
        {key: value if isinstance(value, str) else json.dumps(value) for key, value in config.items()}
    )

    @pulumi.runtime.test
    def program():
        runpy.run_path(str(ROOT / "__main__.py"), run_name="__main__")

    program()
    return mocks
