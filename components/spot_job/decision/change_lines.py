"""Why a job will be submitted again, in words a reviewer recognises.

Pure, like spec.py. The provider's `diff` logs these lines, so a `pulumi
preview` on a pull request says, per job, which fields of its spec changed:
"image trainer: new digest sha256:1f2e3d4c5b6a -> sha256:9a8b7c6d5e4f", not
only that `jobSpec` differs. It compares canonical forms (spec.job_definition),
so a change that only rewrites a value the same way is no change here either.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Set
from typing import Any

from components.spot_job.model import property_paths, redaction, spec
from components.spot_job.model.job_inputs import NOT_GIVEN, JobInputs

_DIGEST = re.compile(r"^(?P<image>[^@]+)@sha256:(?P<digest>[0-9a-f]{64})$")
_PACKAGE = re.compile(r"^gs://[^/]+/(?:.*/)?(?P<hash>[0-9a-f]{16})/(?P<file>[^/]+)$")
SHORT = 12  # characters of a digest or hash shown, as `docker images` shows them


def describe(old: JobInputs, new: JobInputs) -> list[str]:
    """One line per changed field of the job's definition (and its rerun trigger).

    A value a preview cannot know yet (an image digest still being pushed, say:
    the `unknown` marker `new` was read with) reads as such. A value at one of
    the job's `secretPaths` only says that it changed, and no line quotes it.
    """
    unknown = None if new.unknown is NOT_GIVEN else new.unknown
    secret_paths, secrets = (*old.secret_paths, *new.secret_paths), redaction.values(old.props, new.props)
    lines = [
        f"{path}: {redaction.PLACEHOLDER} (changed)"
        if any(property_paths.is_within(path, secret) for secret in secret_paths)
        else _line(path, was, now, unknown, secrets)
        for path, was, now in _leaves(old.definition, new.definition, "")
    ]
    for key in spec.TRIGGER_FIELDS:
        was, now = old.triggers.get(key), new.triggers.get(key)
        if was != now:
            lines.append(f"{key}: {_show(was, unknown, secrets)} -> {_show(now, unknown, secrets)} (a manual rerun)")
    return lines


def _leaves(before: Any, after: Any, path: str) -> Iterator[tuple[str, Any, Any]]:
    if before == after:
        return
    if isinstance(before, dict) and isinstance(after, dict):
        for key in sorted(set(before) | set(after)):
            yield from _leaves(before.get(key), after.get(key), f"{path}.{key}" if path else key)
    elif isinstance(before, list) and isinstance(after, list) and len(before) == len(after):
        for i, (old, new) in enumerate(zip(before, after)):
            yield from _leaves(old, new, f"{path}[{i}]")
    else:
        yield path, before, after


def _line(path: str, old: Any, new: Any, unknown: Any, secrets: set[str]) -> str:
    old_image, new_image = _DIGEST.match(str(old)), _DIGEST.match(str(new))
    if old_image and new_image and old_image["image"] == new_image["image"]:
        name = old_image["image"].rsplit("/", 1)[-1]
        return f"{path}: image {name}: new digest sha256:{old_image['digest'][:SHORT]} -> sha256:{new_image['digest'][:SHORT]}"
    old_package, new_package = _PACKAGE.match(str(old)), _PACKAGE.match(str(new))
    if old_package and new_package:
        return f"{path}: package {new_package['file']}: new code {old_package['hash']} -> {new_package['hash']}"
    return f"{path}: {_show(old, unknown, secrets)} -> {_show(new, unknown, secrets)}"


def _show(value: Any, unknown: Any, secrets: Set[str] = frozenset()) -> str:
    if value is None:
        return "(unset)"
    if unknown is not None and value == unknown:
        return "(known once deployed)"
    # Scrubbed before it is cut short: a cut could leave part of a secret that no longer matches.
    text = redaction.scrub(value if isinstance(value, str) else repr(value), secrets)
    return text if len(text) <= 200 else text[:197] + "..."
