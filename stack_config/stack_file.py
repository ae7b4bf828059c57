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

import pulumi
import yaml

from components.spot_job.model import property_paths

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


class StackFileError(pulumi.RunError):
    """A stack file that cannot be read as written. A RunError: the language host prints it without a traceback."""


class _UniqueKeyLoader(yaml.SafeLoader):  # type: ignore[misc]  # PyYAML ships no type hints here (types-PyYAML is not a dependency)
    """safe_load, but a key written twice in one mapping is an error.

    PyYAML keeps the last of two equal keys without a word, so a second job
    pasted under the same name would silently replace the first.
    """

    def construct_mapping(self, node: yaml.MappingNode, deep: bool = False) -> dict[Any, Any]:
        seen: dict[Any, yaml.Node] = {}
        for key_node, _ in node.value:
            if key_node.tag == "tag:yaml.org,2002:merge":  # `<<:` merges; a key set beside it overrides, as YAML means
                continue
            key = self.construct_object(key_node, deep=True)
            try:
                first = seen.setdefault(key, key_node)
            except TypeError:  # an unhashable key: SafeLoader's own error says so
                break
            if first is not key_node:
                raise StackFileError(
                    f"{self.name}:{key_node.start_mark.line + 1}: duplicate key {key!r}, first set on line "
                    f"{first.start_mark.line + 1}: YAML would keep only the last; rename one or merge them"
                )
        mapping: dict[Any, Any] = super().construct_mapping(node, deep)
        return mapping


def load_yaml(text: str, name: str = "<stack file>") -> Any:
    """The YAML document in `text`; StackFileError naming the line of a duplicate key or a syntax error."""
    loader = _UniqueKeyLoader(text)
    loader.name = name
    try:
        return loader.get_single_data()
    except yaml.YAMLError as error:
        raise StackFileError(f"{name}: not valid YAML: {error}") from None
    finally:
        loader.dispose()


def read(stack: str) -> dict[str, Any] | None:
    """The `config:` map of the stack's file, secure leaves as written; None if there is no file."""
    file = path(stack)
    if not file.is_file():
        return None
    return (load_yaml(file.read_text(), str(file)) or {}).get("config") or {}


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


def _secure_leaves(value: Any, parts: tuple[str | int, ...]) -> list[tuple[tuple[str | int, ...], Any]]:
    if is_secure(value):
        return [(parts, value)]
    items = value.items() if isinstance(value, dict) else enumerate(value) if isinstance(value, list) else ()
    return [leaf for key, item in items for leaf in _secure_leaves(item, (*parts, key))]
