"""The pack's per-stack settings: `spot-training:policy` in the stack's own config file.

The stack is the one in the resource's URN (`urn:pulumi:<stack>::<project>::...`);
its file is `<stacks dir>/Pulumi.<stack>.yaml`, the stacks dir being
$SPOT_TRAINING_STACKS_DIR or `../stacks` beside this pack (the project's
`stackConfigDir`). The value:

    spot-training:policy:
      allowedStrategies: [SPOT, FLEX_START]   # the default; STANDARD is on-demand
      requireCmek: false                      # the default

A missing file or key means the defaults. A malformed value is reported, naming
`spot-training:policy.<key>`, by each policy that reads the key, and that key's
default applies. Each stack's file is read once per run of the pack.
"""

from __future__ import annotations

import functools
import os
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

KEY = "spot-training:policy"
STRATEGIES = ("SPOT", "FLEX_START", "STANDARD")
DEFAULT_ALLOWED_STRATEGIES = ("SPOT", "FLEX_START")
STACKS_DIR_ENV = "SPOT_TRAINING_STACKS_DIR"
PACK_DIR = Path(__file__).resolve().parent
PROJECT_DIR = PACK_DIR.parent

_STACK_NAME = re.compile(r"^[A-Za-z0-9_.-]+$")


@dataclass(frozen=True)
class StackSettings:
    stack: str
    source: str  # the stack file, as messages show it
    allowed_strategies: tuple[str, ...] = DEFAULT_ALLOWED_STRATEGIES
    require_cmek: bool = False
    errors: tuple[tuple[str, str], ...] = ()  # (key, message); key "" concerns every key

    def errors_for(self, key: str) -> list[str]:
        """What is wrong with `key` (or with the whole value), each message naming the config path."""
        return [message for k, message in self.errors if k in ("", key)]


def stack_of(urn: str) -> str:
    """`dev` of `urn:pulumi:dev::spot-training::<type>::<name>`."""
    head = urn.split("::", 1)[0]
    return head.removeprefix("urn:pulumi:") if head.startswith("urn:pulumi:") else ""


def stacks_dir() -> Path:
    configured = os.environ.get(STACKS_DIR_ENV)
    return PACK_DIR / configured if configured else PROJECT_DIR / "stacks"  # an absolute value replaces PACK_DIR


def for_urn(urn: str) -> StackSettings:
    return load(stack_of(urn) or os.environ.get("PULUMI_STACK", ""), str(stacks_dir()))


@functools.lru_cache(maxsize=None)
def load(stack: str, directory: str) -> StackSettings:
    path = Path(directory) / f"Pulumi.{stack}.yaml"
    source = _shown(path)
    if not _STACK_NAME.match(stack) or not path.is_file():
        return StackSettings(stack, source)
    try:
        document = yaml.safe_load(path.read_text())
    except (OSError, yaml.YAMLError) as error:
        return StackSettings(stack, source, errors=(("", f"{KEY}: {source} cannot be read: {error}"),))
    config = document.get("config") if isinstance(document, dict) else None
    raw = config.get(KEY) if isinstance(config, dict) else None
    if raw is None:
        return StackSettings(stack, source)
    return _parse(stack, source, raw)


def _parse(stack: str, source: str, raw: Any) -> StackSettings:
    if not isinstance(raw, dict):
        message = f"{KEY} in {source}: must be a map with allowedStrategies and/or requireCmek; is {raw!r}"
        return StackSettings(stack, source, errors=(("", message),))
    errors: list[tuple[str, str]] = []
    for key in raw:
        if key not in ("allowedStrategies", "requireCmek"):
            errors.append(("", f"{KEY}.{key} in {source}: unknown key; the keys are allowedStrategies, requireCmek"))
    allowed = raw.get("allowedStrategies", list(DEFAULT_ALLOWED_STRATEGIES))
    if not (isinstance(allowed, list) and allowed and all(s in STRATEGIES for s in allowed)):
        errors.append((
            "allowedStrategies",
            f"{KEY}.allowedStrategies in {source}: must be a non-empty list of {', '.join(STRATEGIES)}; is {allowed!r}",
        ))
        allowed = list(DEFAULT_ALLOWED_STRATEGIES)
    require_cmek = raw.get("requireCmek", False)
    if not isinstance(require_cmek, bool):
        errors.append(("requireCmek", f"{KEY}.requireCmek in {source}: must be true or false; is {require_cmek!r}"))
        require_cmek = False
    return StackSettings(stack, source, tuple(allowed), require_cmek, tuple(errors))


def _shown(path: Path) -> str:
    try:
        return str(path.resolve().relative_to(PROJECT_DIR))
    except ValueError:
        return str(path)
