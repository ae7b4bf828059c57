"""The credentials written into a stack's jobs, by config path: the policy pack's own
detector (policy/credentials.py), loaded from its file, so `validate` and `render`
find exactly what the pack's job-env-no-credentials refuses.

Loaded by path, not imported: the pack is its own project (policy/.venv), run from
policy/, and its modules are siblings there, not a package of this one. The file
is standard library only, so it runs under either interpreter.
"""

from __future__ import annotations

import importlib.util
from collections.abc import Iterable
from functools import cache
from pathlib import Path
from types import ModuleType

from offline.render import RenderedJob
from stack_config.keys import NS

DETECTOR = Path(__file__).resolve().parent.parent / "policy" / "credentials.py"
POLICY = "job-env-no-credentials"


@cache
def detector() -> ModuleType:
    spec = importlib.util.spec_from_file_location("spot_training_policy_credentials", DETECTOR)
    if spec is None or spec.loader is None:
        raise ImportError(f"cannot load the policy pack's credential detector from {DETECTOR}")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def findings(jobs: Iterable[RenderedJob]) -> list[str]:
    """`<config path> <why>` of each credential in the jobs' env, args and command (the value never quoted)."""
    found = []
    for job in jobs:
        where = f"{NS}:teams.{job.team}.jobs.{job.job}"
        for path, reason in detector().findings(job.body.get("jobSpec") or {}):
            found.append(f"{where}.{str(path).removeprefix('jobSpec.')} {reason}")
    return found


def advice() -> str:
    return str(detector().ADVICE)
