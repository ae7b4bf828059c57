"""The credentials written into a stack's jobs, by config path: the policy pack's own
detector (policy/credentials.py), loaded from its file, so `validate` and `render`
find exactly what the pack's job-env-no-credentials refuses.

Loaded by path, not imported: the pack is its own project (policy/.venv), run from
policy/, and its modules are siblings there, not a package of this one. The file
is standard library only, so it runs under either interpreter.
"""

from __future__ import annotations

import importlib.util
from functools import cache
from pathlib import Path
from types import ModuleType

from offline.program import stack_config
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


def findings(stack: str) -> list[str]:
    """`<config path> <why>` of each credential in the env, args and command of the stack file's jobs, as
    written (a `secure:` value as the offline placeholder; the value never quoted). Read from the file, not
    the render, so they are listed beside the config's other errors. UnknownStack for a stack there is not."""
    from components.spot_job.model import schema, spec

    found = []
    teams = stack_config(stack).get(f"{NS}:teams")
    for team, entry in (teams if isinstance(teams, dict) else {}).items():
        jobs = entry.get("jobs") if isinstance(entry, dict) else None
        for key, job in (jobs if isinstance(jobs, dict) else {}).items():
            if not isinstance(job, dict):
                continue  # the config's own error
            job_spec = spec.as_lists({k: v for k, v in job.items() if k in schema.MESSAGES["CustomJobSpec"]}, "CustomJobSpec")
            where = f"{NS}:teams.{team}.jobs.{key}"
            for path, reason in detector().findings(job_spec):
                found.append(f"{where}.{str(path).removeprefix('jobSpec.')} {reason}")
    return found


def advice() -> str:
    return str(detector().ADVICE)
