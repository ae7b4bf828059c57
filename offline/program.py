"""Runs the real `__main__.py` once, under Pulumi's mocks, with a stack's config."""

from __future__ import annotations

import asyncio
import json
import logging
import runpy
import sys
import warnings
from collections.abc import Iterable
from pathlib import Path
from typing import Any

import pulumi
from pulumi.runtime import rpc
from pulumi.runtime.mocks import MockMonitor

from offline.mocks import OfflineMocks
from stack_config import project, stack_file

ROOT = Path(__file__).resolve().parent.parent
STACKS = ROOT / "stacks"
PROJECT = "spot-training"
SECRET_PLACEHOLDER = "[secret]"  # what a secret value of the config is, offline


class UnknownStack(LookupError):
    """A stack name with no stacks/Pulumi.<stack>.yaml."""


def stack_config(stack: str) -> dict:
    """The `config:` map of stacks/Pulumi.<stack>.yaml, as the CLI hands it to a program.

    Offline there is no key to decrypt a secret with, and none is wanted: a
    `secure:` leaf becomes SECRET_PLACEHOLDER (see secure_keys).
    """
    config = stack_file.read(stack)
    if config is None:
        path, stacks = stack_file.path(stack), stack_file.stacks_dir()
        known = ", ".join(sorted(p.name.split(".")[1] for p in stacks.glob("Pulumi.*.yaml")))
        raise UnknownStack(f"no stack {stack!r}: {path} does not exist (stacks: {known})")
    return stack_file.with_placeholders(config, SECRET_PLACEHOLDER)


def secure_keys(stack: str) -> list[str]:
    """The keys the CLI would list as secret: those with a `secure:` leaf."""
    return sorted(key for key, value in (stack_file.read(stack) or {}).items() if stack_file.secure_leaves(value))


def engine_view(inputs: Any) -> Any:
    """Inputs as the engine hands them to a provider that takes no secrets: every secret marker dropped."""
    inputs = rpc.unwrap_rpc_secret(inputs)
    if isinstance(inputs, dict):
        return {k: engine_view(v) for k, v in inputs.items()}
    if isinstance(inputs, list):
        return [engine_view(v) for v in inputs]
    return inputs


class _EngineLog(logging.Handler):
    """What the program logs to the engine (`pulumi.log.warn`), as `pulumi preview` shows it: a
    warning line on stderr. Python's root logger, the mocks' default, would print it bare, or
    not at all once something else (a test runner) has configured logging."""

    def emit(self, record: logging.LogRecord) -> None:
        print(f"{record.levelname.lower()}: {record.getMessage()}", file=sys.stderr)


ENGINE_LOG = logging.getLogger("spot_training.offline.engine")
ENGINE_LOG.propagate = False
ENGINE_LOG.setLevel(logging.WARNING)  # the engine shows info and debug only with -v
ENGINE_LOG.addHandler(_EngineLog())


def set_mocks(mocks: pulumi.runtime.Mocks, stack: str, monitor: MockMonitor | None = None, preview: bool = False) -> None:
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
    pulumi.runtime.set_mocks(
        mocks, project=PROJECT, stack=stack, preview=preview, monitor=monitor or MockMonitor(mocks), logger=ENGINE_LOG
    )


def run(
    config: dict,
    stack: str,
    mocks: OfflineMocks,
    monitor: MockMonitor | None = None,
    secret_keys: Iterable[str] = (),
    preview: bool = False,
) -> OfflineMocks:
    """Runs the program with `config`; raises what the program raises.

    `secret_keys` are the keys the CLI would list as secret (any `secure:` leaf in them).
    """
    set_mocks(mocks, stack, monitor, preview)
    pulumi.runtime.set_all_config(
        {key: value if isinstance(value, str) else json.dumps(value) for key, value in config.items()},
        list(secret_keys),
    )

    @pulumi.runtime.test
    def program():
        runpy.run_path(str(ROOT / "__main__.py"), run_name="__main__")

    with project.working_directory():  # as `pulumi` runs it, from whatever directory the verb is run
        program()
    return mocks


def close_event_loops() -> None:
    """Closes the event loops a render left behind (Pulumi's mocks make one on each
    thread they run on, and never close it). Called as a command exits: left to the
    interpreter's exit, a loop's __del__ may find its socket gone and print a
    traceback after the command's own output."""
    import gc

    for loop in [o for o in gc.get_objects() if isinstance(o, asyncio.AbstractEventLoop)]:
        if not loop.is_running() and not loop.is_closed():
            loop.close()
