"""Paths to one value inside a resource's inputs: `jobSpec.workerPoolSpecs[0].containerSpec.env[1].value`.

The syntax is Pulumi's own (`pulumi config set --path`, and the paths a
provider's check failures name): `.key` for a map key, `[0]` for a list index,
`["a.b"]` for a key that is not a plain word. Pure: the program, the offline
render and the provider share it.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from typing import Any

Part = str | int

_WORD = re.compile(r"^[A-Za-z0-9_$-]+$")
_TOKEN = re.compile(r'\.?([A-Za-z0-9_$-]+)|\[(\d+)\]|\[("(?:[^"\\]|\\.)*")\]')


def join(parts: list[Part] | tuple[Part, ...]) -> str:
    out = ""
    for part in parts:
        if isinstance(part, int):
            out += f"[{part}]"
        elif _WORD.match(part):
            out += f".{part}" if out else part
        else:
            out += f"[{json.dumps(part)}]"
    return out


def split(path: str) -> list[Part]:
    parts: list[Part] = []
    position = 0
    while position < len(path):
        match = _TOKEN.match(path, position)
        if not match or (match.group(0).startswith(".") and position == 0):
            raise ValueError(f"not a property path: {path!r}")
        word, index, quoted = match.groups()
        parts.append(word if word is not None else int(index) if index is not None else json.loads(quoted))
        position = match.end()
    return parts


def get(value: Any, parts: list[Part]) -> Any:
    """The value at `parts`, or None where the path leads nowhere."""
    for part in parts:
        if isinstance(part, int) and isinstance(value, list) and 0 <= part < len(value):
            value = value[part]
        elif isinstance(part, str) and isinstance(value, dict):
            value = value.get(part)
        else:
            return None
    return value


def leaves(value: Any, parts: tuple[Part, ...] = ()) -> Iterator[tuple[tuple[Part, ...], Any]]:
    """Every scalar under `value`, with its path."""
    if isinstance(value, dict):
        for key, item in value.items():
            yield from leaves(item, (*parts, key))
    elif isinstance(value, list):
        for i, item in enumerate(value):
            yield from leaves(item, (*parts, i))
    else:
        yield parts, value


def is_within(path: str, ancestor: str) -> bool:
    """`path` is `ancestor` or lies under it."""
    return path == ancestor or path.startswith(ancestor + ".") or path.startswith(ancestor + "[")
