"""Plan inventories, Cloud Foundation Fabric style: what a stack must register.

An inventory lists, per resource (type and name), the inputs a reviewer cares
about. It is partial: a resource may have more inputs, and a stack more
resources than are listed, but each listed value must be there as written.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import yaml

INVENTORIES = Path(__file__).parent / "inventories"

# The inputs worth a reviewer's eye, per resource type.
KEY_INPUTS = {
    "gcp:storage/bucket:Bucket": ["location", "uniformBucketLevelAccess", "publicAccessPrevention", "forceDestroy", "labels", "versioning"],
    "gcp:serviceaccount/account:Account": ["accountId"],
    "gcp:projects/iAMMember:IAMMember": ["role", "member"],
    "gcp:serviceaccount/iAMMember:IAMMember": ["role", "member"],
    "gcp:storage/bucketIAMMember:BucketIAMMember": ["role", "member", "bucket"],
    "gcp:artifactregistry/repository:Repository": ["format", "location", "repositoryId", "dockerConfig", "cleanupPolicyDryRun"],
    "gcp:artifactregistry/repositoryIamMember:RepositoryIamMember": ["role", "member"],
    "gcp:storage/bucketObject:BucketObject": ["bucket", "name"],
    "docker-build:index:Image": ["tags", "push"],
    "pulumi-python:dynamic/spot-training:SpotTrainingJob": [
        "displayName", "labels", "jobSpec", "rerun", "resubmission", "waitFor", "waitTimeout", "onDelete", "replaceOrder",
    ],
}


def plan(resources) -> list[dict[str, Any]]:
    entries = []
    for r in resources:
        if r.typ not in KEY_INPUTS:
            continue
        inputs = {k: r.inputs[k] for k in KEY_INPUTS[r.typ] if r.inputs.get(k) is not None}
        entries.append({"type": r.typ, "name": r.name, "inputs": inputs})
    return sorted(entries, key=lambda e: (e["type"], e["name"]))


def load(env: str) -> list[dict[str, Any]]:
    return yaml.safe_load((INVENTORIES / f"{env}.yaml").read_text())


def write(env: str, entries: list[dict[str, Any]]) -> None:
    header = f"# Expected plan of stacks/Pulumi.{env}.yaml (partial). Regenerate: uv run python -m tests.inventory {env}\n"
    (INVENTORIES / f"{env}.yaml").write_text(header + yaml.safe_dump(entries, sort_keys=True, width=120))


def missing(expected: Any, actual: Any, path: str = "") -> list[str]:
    """Where `actual` lacks what `expected` says: dicts partially, everything else exactly."""
    if isinstance(expected, dict):
        if not isinstance(actual, dict):
            return [f"{path}: expected an object, got {actual!r}"]
        return [m for k, v in expected.items() for m in missing(v, actual.get(k), f"{path}.{k}")]
    return [] if expected == actual else [f"{path}: expected {expected!r}, got {actual!r}"]


def changes(before: list[dict[str, Any]] | None, after: list[dict[str, Any]]) -> list[str]:
    """What regenerating an inventory changed, a line per resource: + added, - removed, ~ changed (with the inputs)."""
    old = {(e["type"], e["name"]): e["inputs"] for e in before or []}
    new = {(e["type"], e["name"]): e["inputs"] for e in after}
    lines = [f"+ {t} {n}" for t, n in sorted(new.keys() - old.keys())]
    lines += [f"- {t} {n}" for t, n in sorted(old.keys() - new.keys())]
    for key in sorted(old.keys() & new.keys()):
        if old[key] != new[key]:
            fields = sorted(k for k in old[key].keys() | new[key].keys() if old[key].get(k) != new[key].get(k))
            lines.append(f"~ {key[0]} {key[1]}: {', '.join(fields)}")
    return lines


def main(argv: list[str]) -> int:
    """Regenerates the inventories of the named stacks (all of stacks/ when none) and says what changed."""
    from tests.program import STACKS, render, stack_config

    for env in argv or sorted(p.name.split(".")[1] for p in STACKS.glob("Pulumi.*.yaml")):
        path = INVENTORIES / f"{env}.yaml"
        before = load(env) if path.exists() else None
        after = plan(render(stack_config(env), stack=env).resources)
        write(env, after)
        found = changes(before, after)
        print(f"{path.relative_to(INVENTORIES.parent.parent)}: " + ("unchanged" if not found else f"{len(found)} resources changed"))
        for line in found:
            print(f"  {line}")
    return 0


if __name__ == "__main__":
    import sys

    raise SystemExit(main(sys.argv[1:]))
