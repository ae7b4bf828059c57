"""The stack's own config file, stacks/Pulumi.<stack>.yaml: where it is and which leaves are secret.

A value set with `pulumi config set --secret --path` is kept there as a
`{secure: v1:...}` leaf. The CLI hands the program the whole key decrypted
and says only that the key is secret; which leaf was secret is written
nowhere but in this file. The program reads it for that, and the offline
render for the rest of the config.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import yaml

from .spot_job import property_paths

ROOT = Path(__file__).resolve().parent.parent
# Where the stack files are if not where Pulumi.yaml says (tests; the policy pack reads it too).
STACKS_DIR_ENV = "SPOT_TRAINING_STACKS_DIR"


def stacks_dir() -> Path:
    if os.environ.get(STACKS_DIR_ENV):
        return Path(os.environ[STACKS_DIR_ENV])
    project = yaml.safe_load((ROOT / "Pulumi.yaml").read_text()) or {}
    return ROOT / (project.get("stackConfigDir") or ".")


def path(stack: str) -> Path:
    return stacks_dir() / f"Pulumi.{stack}.yaml"


def read(stack: str) -> dict[str, Any] | None:
    """The `config:` map of the stack's file, secure leaves as written; None if there is no file."""
    file = path(stack)
    if not file.is_file():
        return None
    return (yaml.safe_load(file.read_text()) or {}).get("config") or {}


def is_secure(value: Any) -> bool:
    return isinstance(value, dict) and set(value) == {"secure"} and isinstance(value["secure"], str)


def secure_leaves(value: Any) -> list[str]:
    """The paths (`teams.vision.jobs.resnet.workerPoolSpecs[0]...`) of the secure leaves under one key's value.

    [""] when the whole value is one secure leaf; [] when there is none.
    """
    return [property_paths.join(parts) for parts, _ in _secure_leaves(value, ())]


def with_placeholders(value: Any, placeholder: str) -> Any:
    """`value` with every secure leaf replaced by `placeholder`: what may be shown without the key to decrypt it."""
    if is_secure(value):
        return placeholder
    if isinstance(value, dict):
        return {k: with_placeholders(v, placeholder) for k, v in value.items()}
    if isinstance(value, list):
        return [with_placeholders(v, placeholder) for v in value]
    return value


def _secure_leaves(value: Any, parts: tuple) -> list:
    if is_secure(value):
        return [(parts, value)]
    items = value.items() if isinstance(value, dict) else enumerate(value) if isinstance(value, list) else ()
    return [leaf for key, item in items for leaf in _secure_leaves(item, (*parts, key))]
