"""Which replica writes: the chief, the first replica of the first pool."""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from spot_runtime.errors import CheckpointError


def _task(environ: Mapping[str, str], variable: str) -> tuple[dict[str, Any], str | None, int] | None:
    """The cluster, the task's type and its index from a JSON variable; None when it is not set."""
    text = environ.get(variable, "").strip()
    if not text:
        return None
    try:
        spec = json.loads(text)
        task = spec.get("task") or {}
        cluster = spec.get("cluster") or {}
        if not isinstance(task, dict) or not isinstance(cluster, dict):
            raise TypeError
        kind = task.get("type")
        index = int(task.get("index") or 0)
        if kind is not None and not isinstance(kind, str):
            raise TypeError
    except (ValueError, TypeError, AttributeError):
        raise CheckpointError(f"environment variable {variable} is not the JSON object Vertex sets: {text[:200]!r}") from None
    return cluster, kind, index


def is_chief(environ: Mapping[str, str]) -> bool:
    """Vertex sets CLUSTER_SPEC for every job (pools ``workerpool0``..``workerpool3``; the first
    pool holds the primary replica) and TF_CONFIG for TensorFlow's distribution strategies
    (``chief``/``master``, else ``worker`` 0 leads). Neither set: a single process, the chief."""
    found = _task(environ, "CLUSTER_SPEC")
    if found is not None:
        _, kind, index = found
        return kind == "workerpool0" and index == 0
    found = _task(environ, "TF_CONFIG")
    if found is not None:
        cluster, kind, index = found
        if kind in ("chief", "master"):
            return index == 0
        if kind == "worker" and not ({"chief", "master"} & set(cluster)):
            return index == 0
        return False if kind else True
    return True
