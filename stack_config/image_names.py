"""The names a team's images and packages are given: their keys, and an image's name and tag.

An image's name and tag become a Docker reference, `<region>-docker.pkg.dev/<project>/<team>/<name>:<tag>`,
that `up` pushes or looks up; a name or tag the reference grammar refuses validates offline and
fails at `up`, after the buckets and accounts exist. The grammar is distribution/reference's
(github.com/distribution/reference, reference.go: "path-component := alpha-numeric [separator
alpha-numeric]*, alpha-numeric := /[a-z0-9]+/, separator := /[_.]|__|[-]*/"; "tag := /[\\w][\\w.-]{0,127}/"),
which Artifact Registry's Docker repositories take. A key is what a job's `${images.KEY}` or
`${packages.KEY}` can name (components/team_definition.py), or nothing can use it.
"""

from __future__ import annotations

import re
from typing import Any

from components.team_definition import ImageConfig

_COMPONENT = r"[a-z0-9]+(?:(?:[._]|__|-+)[a-z0-9]+)*"
IMAGE_NAME = re.compile(rf"^{_COMPONENT}(?:/{_COMPONENT})*$")
IMAGE_TAG = re.compile(r"^[A-Za-z0-9_][A-Za-z0-9_.-]{0,127}$")
KEY = re.compile(r"^[A-Za-z0-9_-]+$")  # as IMAGE_REF and PACKAGE_REF read a reference's key
_NAME_RULE = (
    "lowercase letters and digits, parts joined by '.', '_', '__' or '-', path segments by '/' "
    "(Docker's reference grammar, github.com/distribution/reference)"
)
_TAG_RULE = "1-128 letters, digits, '_', '.' and '-', not starting with '.' or '-' (Docker's reference grammar)"


def key_failure(kind: str, key: Any, path: str) -> str | None:
    """Why `key` of `images` or `packages` (kind) can be named by no job, or None."""
    if isinstance(key, str) and KEY.match(key):
        return None
    return f"{path}: a job names {'an image' if kind == 'images' else 'a package'} by ${{{kind}.KEY}}, and KEY is letters, digits, '_' and '-': rename {key!r}"


def image_failures(key: Any, image: ImageConfig, path: str) -> list[str]:
    """Why the image's name or tag cannot be a Docker reference, by path."""
    failures = []
    if image.name is not None and not IMAGE_NAME.match(image.name):
        failures.append(f"{path}.name: {image.name!r} is not an image name: {_NAME_RULE}")
    elif image.name is None and image.context is not None and isinstance(key, str) and KEY.match(key) and not IMAGE_NAME.match(key):
        # (a key no reference can name is said once, by key_failure)
        failures.append(f"{path}: the image is named by its key, {key!r}, which is not an image name: {_NAME_RULE}; set name")
    if image.tag is not None and not IMAGE_TAG.match(image.tag):
        failures.append(f"{path}.tag: {image.tag!r} is not an image tag: {_TAG_RULE}")
    return failures
