"""The body of a team's job as the team registers it: one function, for the component and the stack config.

The team component (team.py) calls it with its resources' values (the service
account's email, the bucket's output prefix, the pinned images and uploaded
packages: Pulumi Outputs); the stack config's loader calls it with stand-ins
for those and validates what comes out, naming the config path, before any
resource is registered. What the loader validated is therefore what the team
registers, not a copy of its rules. Pure: no Pulumi resource, no Google client.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from .spot_job.model.spec import IMAGE_FIELDS
from .team_definition import IMAGE_REF, PACKAGE_REF


def job_body(
    key: str,
    body: Mapping[str, Any],
    *,
    team: str,
    environment: Any,
    service_account: Any,
    output_uri_prefix: Any,
    images: Mapping[str, Any],
    packages: Mapping[str, Any],
) -> dict[str, Any]:
    """`body` (displayName, labels, encryptionSpec, jobSpec: a JobConfig's) with the team's defaults filled in
    and its `${images.KEY}` / `${packages.KEY}` references resolved from `images` / `packages`.

    The config's body stays as it is: each container written is copied first
    (not the whole body deep-copied, the leaves are shared). Malformed parts
    are left as they are, for the validation to name; a reference to a key
    not in `images` or `packages` stays unresolved (the loader names it).
    """
    body = dict(body)
    spec = body["jobSpec"] = dict(body.get("jobSpec") or {})
    # An empty value is an unset one (as Vertex reads it), so the team's default applies.
    if not body.get("displayName"):
        body["displayName"] = f"{team}-{key}"
    labels = body.get("labels")
    if isinstance(labels, (dict, type(None))):
        body["labels"] = {**(labels or {}), "team": team, "environment": environment}
    if not spec.get("serviceAccount"):
        spec["serviceAccount"] = service_account
    output = spec.get("baseOutputDirectory")
    if not (output.get("outputUriPrefix") if isinstance(output, dict) else output):
        # Stable across resubmissions, so AIP_CHECKPOINT_DIR survives them. Any other key written
        # there is kept beside it, so the shape check names it (`outputUri`, a misspelt prefix)
        # instead of the team's default silently taking the place of what the user meant.
        spec["baseOutputDirectory"] = {**(output if isinstance(output, dict) else {}), "outputUriPrefix": output_uri_prefix}
    if not isinstance(spec.get("workerPoolSpecs"), list):
        return body
    spec["workerPoolSpecs"] = pools = [dict(pool) if isinstance(pool, dict) else pool for pool in spec["workerPoolSpecs"]]
    for pool in pools:
        if not isinstance(pool, dict):
            continue
        for task, field in IMAGE_FIELDS:
            task_spec = pool.get(task)
            if isinstance(task_spec, dict) and isinstance(task_spec.get(field), str) and (match := IMAGE_REF.match(task_spec[field])):
                if match.group(1) in images:
                    pool[task] = {**task_spec, field: images[match.group(1)]}
        package = pool.get("pythonPackageSpec")
        if isinstance(package, dict) and isinstance(package.get("packageUris"), list):
            pool["pythonPackageSpec"] = {
                **package,
                "packageUris": [_resolved(uri, packages) for uri in package["packageUris"]],
            }
    return body


def _resolved(uri: Any, packages: Mapping[str, Any]) -> Any:
    match = PACKAGE_REF.match(uri) if isinstance(uri, str) else None
    return packages[match.group(1)] if match and match.group(1) in packages else uri
