"""A stack as its files describe it: the Pulumi project's name (Pulumi.yaml) and
the stack's config (stacks/Pulumi.<stack>.yaml), read without Pulumi itself."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

from stack_config import place, stack_file

ROOT = Path(__file__).resolve().parent.parent


class StackError(LookupError):
    """A stack, or a value of its files, that is not there."""


@dataclass(frozen=True)
class Stack:
    project: str  # the Pulumi project (Pulumi.yaml `name`), part of every URN and submission scope
    name: str  # the stack, e.g. dev
    gcp_project: str  # gcp:project
    region: str  # gcp:region
    # The regions the config's fallback ladders may move a job to (resubmission.fallback[].location)
    ladder_regions: tuple[str, ...] = ()

    @property
    def scope(self) -> str:
        """"project/stack": what the stack label of its jobs is made from (labels.stack_value)."""
        return f"{self.project}/{self.name}"

    @classmethod
    def load(cls, name: str, root: Path = ROOT) -> Stack:
        project = _yaml(root / "Pulumi.yaml").get("name")
        if not isinstance(project, str) or not project:
            raise StackError(f"{root / 'Pulumi.yaml'} has no project `name`")
        # Where the program and the offline verbs read it too (stackConfigDir, or
        # SPOT_TRAINING_STACKS_DIR), unless another project root is given.
        stacks = stack_file.stacks_dir() if root == ROOT else root / "stacks"
        path = stacks / f"Pulumi.{name}.yaml"
        if "/" in name or not path.is_file():
            known = ", ".join(sorted(p.name.split(".")[1] for p in stacks.glob("Pulumi.*.yaml")))
            raise StackError(f"no stack {name!r}: {path} does not exist (stacks: {known})")
        config = _yaml(path).get("config") or {}
        values = {}
        for key in ("gcp:project", "gcp:region"):
            value = config.get(key)
            if not isinstance(value, str) or not value:
                raise StackError(f"{path} sets no {key}")
            values[key] = value
        return cls(project, name, values["gcp:project"], values["gcp:region"], tuple(sorted({loc for _, loc in place.ladder_locations(config.get("spot-training:teams"))})))


def _yaml(path: Path) -> dict[str, Any]:
    """The file's top-level mapping; {} for an empty file, or one whose top is not a mapping (a list, a
    scalar), so that the caller names the key it lacks instead of failing on a list's missing .get."""
    try:
        loaded = yaml.safe_load(path.read_text())
    except (OSError, yaml.YAMLError) as error:
        raise StackError(f"cannot read {path}: {error}") from None
    return loaded if isinstance(loaded, dict) else {}
