"""The shape of a job's inputs: every field known to the Vertex REST schema
(schema.py), of its type, every enum value one the API takes. Google's rules
about what the values mean are in rules/."""

from __future__ import annotations

import difflib
from collections.abc import Callable
from typing import Any

from components.spot_job.model import schema
from components.spot_job.model.values import as_int, is_duration
from components.spot_job.rules.accelerator_support import END_OF_SUPPORT
from components.spot_job.rules.scheduling import DEPRECATED_STRATEGIES


class ShapeCheck:
    def __init__(self, is_unknown: Callable[[Any], bool], fail: Callable[[str, str], None]) -> None:
        self.is_unknown = is_unknown
        self.fail = fail

    def walk(self, value: Any, kind: Any, path: str) -> None:
        if value is None or self.is_unknown(value):
            return
        if isinstance(kind, tuple):
            tag, inner = kind
            if tag == "list":
                if not isinstance(value, list):
                    return self.fail(path, f"must be a list, got {type_name(value)}")
                for i, item in enumerate(value):
                    self.walk(item, inner, f"{path}[{i}]")
            elif value not in schema.ENUMS[inner]:
                allowed = [v for v in schema.ENUMS[inner] if v not in DEPRECATED_STRATEGIES and v not in END_OF_SUPPORT]
                by_lower = {v.lower(): v for v in allowed}  # `spot` means SPOT, `kep` keep
                close = difflib.get_close_matches(str(value).lower(), list(by_lower), n=1)
                hint = f"did you mean {by_lower[close[0]]!r}? " if close else ""
                self.fail(path, f"unknown value {value!r}; {hint}expected one of {', '.join(allowed)}")
        elif kind == schema.STRING:
            if not isinstance(value, str):
                self.fail(path, f"must be a string, got {type_name(value)}")
        elif kind == schema.INT:
            if as_int(value) is None:
                self.fail(path, f"must be a whole number, got {value!r}")
        elif kind == schema.BOOL:
            if not isinstance(value, bool):
                self.fail(path, f"must be true or false, got {value!r}")
        elif kind == schema.DURATION:
            if not is_duration(value):
                self.fail(path, f"must be a duration in seconds such as \"86400s\", got {value!r}")
        elif kind == schema.STRING_MAP:
            if not isinstance(value, dict):
                return self.fail(path, f"must be a map of strings, got {type_name(value)}")
            for key, item in value.items():
                if not isinstance(item, str) and not self.is_unknown(item):
                    self.fail(join(path, key), f"must be a string, got {type_name(item)}")
        else:
            self._message(value, kind, path)

    def _message(self, value: Any, name: str, path: str) -> None:
        if not isinstance(value, dict):
            return self.fail(path, f"must be an object ({name}), got {type_name(value)}")
        fields = schema.MESSAGES[name]
        for key, item in value.items():
            if key.startswith("__") or item is None:  # the dynamic provider's own bookkeeping; unset
                continue
            if key not in fields:
                hint = difflib.get_close_matches(key, list(fields), n=1)
                suggestion = f"; did you mean {hint[0]!r}?" if hint else f"; known fields: {', '.join(fields)}"
                self.fail(join(path, key), f"unknown field{suggestion}")
                continue
            self.walk(item, fields[key], join(path, key))


def join(path: str, key: str) -> str:
    return f"{path}.{key}" if path else key


def type_name(value: Any) -> str:
    # As the YAML or JSON the user wrote names it, not as Python does (NoneType, int).
    kinds = {dict: "an object", list: "a list", str: "a string", bool: "a boolean", int: "a number", float: "a number", type(None): "null"}
    return kinds.get(type(value), type(value).__name__)
