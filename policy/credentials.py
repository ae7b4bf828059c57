"""What looks like a credential written into a training job: the one detector the
pack's job-env-no-credentials and `spot-training validate` share.

Pure standard library and no import of its own, so the pack (policy/.venv) imports it
as a sibling module and the project's CLI loads this same file by its path
(offline/credentials.py): two copies could drift, one cannot.

A CustomJob's env, args and command are part of the job: anyone who may get the
job reads them (docs/secrets.md). Two signs of a credential:
- a value of a well-known token shape, whatever it is called (hf_, ghp_, AKIA, sk-, ...);
- a literal under a name that says credential: an env variable named TOKEN,
  PASSWORD, SECRET, API_KEY, ... (a whole word of its name, so TOKENIZER or
  MAX_TOKENS are not), or a flag of args so named (`--api-key=VALUE`, or
  `--password VALUE` in two items).
Not a credential: a Secret Manager resource name (what `${secrets.NAME}` resolves
to), a reference Vertex expands from the env at run time (`$(NAME)`), an empty value.
A reason never quotes the value: it is printed in every preview.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping, Sequence
from typing import Any

# A name that says credential: a whole word of it.
CREDENTIAL_NAME = re.compile(r"(?:^|_)(?:TOKEN|PASSWORD|PASSWD|SECRET|API_?KEY|ACCESS_KEY|PRIVATE_KEY)(?:_|$)", re.I)
# What the stack's ${secrets.NAME} resolves to: a name the code reads the secret with, not the secret.
SECRET_MANAGER_NAME = re.compile(r"^projects/[^/]+/secrets/[^/]+(?:/versions/[^/]+)?$")
# An env variable Vertex substitutes into command and args: `$(VAR_NAME)`
# (https://cloud.google.com/vertex-ai/docs/reference/rest/v1/CustomJobSpec#containerspec); and the
# stack file's `${secrets.NAME}`, before the program resolves it to a Secret Manager name.
_ENV_REFERENCE = re.compile(r"^(?:\$\([A-Za-z_][A-Za-z0-9_]*\)|\$\{secrets\.[A-Za-z0-9_-]+\})$")
# Well-known token shapes, whatever the variable is called.
TOKEN_SHAPES = (
    ("a Hugging Face token", re.compile(r"(?<![A-Za-z0-9])hf_[A-Za-z0-9]{30,}")),
    ("a GitHub token", re.compile(r"(?<![A-Za-z0-9])(?:gh[pousr]_[A-Za-z0-9]{36,}|github_pat_[A-Za-z0-9_]{22,})")),
    ("an AWS access key", re.compile(r"(?<![A-Za-z0-9])(?:AKIA|ASIA)[0-9A-Z]{16}(?![A-Za-z0-9])")),
    ("an OpenAI-style API key", re.compile(r"(?<![A-Za-z0-9])sk-[A-Za-z0-9_-]{20,}")),
    ("a Google API key", re.compile(r"(?<![A-Za-z0-9])AIza[0-9A-Za-z_-]{35}")),
    ("a Slack token", re.compile(r"(?<![A-Za-z0-9])xox[abposr]-[A-Za-z0-9-]{10,}")),
)
# A flag of args: `--api-key=VALUE`, `-p=VALUE`, or `--api-key` alone (its value the next item).
_FLAG = re.compile(r"^--?([A-Za-z][A-Za-z0-9_-]*)(?:=(.*))?$", re.S)

ADVICE = (
    "anyone who may get the job (aiplatform.customJobs.get on the project) reads a CustomJob's env, args and command "
    "in the console and the API. Keep the credential in Secret Manager, list it under the team's secrets: "
    "({NAME: {secret: projects/<project>/secrets/<name>}}) and set an env value to ${secrets.NAME}: the job gets the "
    "secret version's resource name, which its code reads at run time; args and command name that variable as "
    "$(NAME) (docs/secrets.md)"
)


def token_shape(value: str) -> str | None:
    """The kind of well-known token `value` holds, if any."""
    return next((kind for kind, pattern in TOKEN_SHAPES if pattern.search(value)), None)


def _literal(value: str) -> bool:
    """A value that is itself the secret: not empty, not a Secret Manager name, not `$(VAR)`."""
    return bool(value) and not SECRET_MANAGER_NAME.match(value) and not _ENV_REFERENCE.match(value)


def in_env(name: Any, value: Any) -> str | None:
    """Why an env entry looks like a credential (a phrase to follow its path), or None."""
    if not isinstance(value, str) or not value:
        return None  # a value computed at deploy time is not a literal
    shape = token_shape(value)
    if shape is not None:
        return f"holds what looks like {shape}"
    if isinstance(name, str) and CREDENTIAL_NAME.search(name) and _literal(value):
        return "is a literal value, and its name says credential"
    return None


def in_args(items: Sequence[Any]) -> Iterator[tuple[int, str]]:
    """(index, why) of each item of args or command that looks like a credential, or hands one to a flag."""
    told: set[int] = set()  # a token after a credential's flag is said once
    for i, item in enumerate(items):
        if not isinstance(item, str) or i in told:
            continue
        shape = token_shape(item)
        if shape is not None:
            yield i, f"holds what looks like {shape}"
            continue
        flag = _FLAG.match(item)
        if flag is None or not CREDENTIAL_NAME.search(flag.group(1).replace("-", "_")):
            continue
        if flag.group(2) is not None:
            if _literal(flag.group(2)):
                yield i, f"gives the flag --{flag.group(1)} a literal value, and its name says credential"
        elif i + 1 < len(items) and isinstance(following := items[i + 1], str) and not following.startswith("-") and _literal(following):
            told.add(i + 1)
            yield i + 1, f"is a literal value for the flag before it, {item}, whose name says credential"


def findings(spec: Any, unknown: type[BaseException] | tuple[type[BaseException], ...] = ()) -> Iterator[tuple[str, str]]:
    """(path, why) of each credential in a CustomJobSpec's pools: `jobSpec.workerPoolSpecs[0].containerSpec.env[1]
    (WANDB_API_KEY)`, `...args[2]`. `unknown` is what reading a value not known yet raises (the pack's
    proxies raise UnknownValueError during a preview): such a value is skipped, checked when `up` knows it."""
    pools = _get(spec, "workerPoolSpecs", unknown)
    for i in range(len(pools) if _is_list(pools) else 0):
        pool = _get(pools, i, unknown)
        for task in ("containerSpec", "pythonPackageSpec"):
            part = _get(pool, task, unknown)
            path = f"jobSpec.workerPoolSpecs[{i}].{task}"
            env = _get(part, "env", unknown)
            for j in range(len(env) if _is_list(env) else 0):
                var = _get(env, j, unknown)
                name = _get(var, "name", unknown)
                if (reason := in_env(name, _get(var, "value", unknown))) is not None:
                    yield f"{path}.env[{j}] ({name})", reason
            for field in ("args", "command"):
                values = _get(part, field, unknown)
                known = [_get(values, k, unknown) for k in range(len(values))] if _is_list(values) else []
                for j, reason in in_args(known):
                    yield f"{path}.{field}[{j}]", reason


def _get(container: Any, key: str | int, unknown: type[BaseException] | tuple[type[BaseException], ...]) -> Any:
    """container[key], or None when it has no such key or its value is not known yet."""
    try:
        if isinstance(key, int):
            return container[key] if _is_list(container) and key < len(container) else None
        return container.get(key) if isinstance(container, Mapping) else None
    except unknown:
        return None


def _is_list(value: Any) -> bool:
    return isinstance(value, Sequence) and not isinstance(value, (str, bytes))
