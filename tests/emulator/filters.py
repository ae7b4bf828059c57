"""The subset of the AIP-160 list filter that callers of ListCustomJobs use."""

import re
from typing import Callable

from google.cloud import aiplatform_v1

from tests.emulator.errors import invalid

Predicate = Callable[[aiplatform_v1.CustomJob], bool]

# Quoted values are matched whole, so a display name containing " AND " does not split the filter.
_TERM = re.compile(r'\s*(labels\.[a-z][a-z0-9_-]*|display_name|state)\s*=\s*(?:"([^"]*)"|([^\s"]+))\s*')
_AND = re.compile(r"AND\b")


def compile_filter(text: str) -> Predicate:
    predicates = []
    pos = 0
    while text.strip():  # loops until the last term; an empty filter matches everything
        term = _TERM.match(text, pos)
        if not term:
            raise invalid(f"unsupported filter {text!r} at position {pos}")
        field, quoted, bare = term.groups()
        predicates.append(_predicate(field, bare if quoted is None else quoted))
        pos = term.end()
        if pos == len(text):
            break
        joiner = _AND.match(text, pos)
        if not joiner:
            raise invalid(f"unsupported filter {text!r} at position {pos}: only AND is supported")
        pos = joiner.end()
    return lambda job: all(p(job) for p in predicates)


def _predicate(field: str, value: str) -> Predicate:
    if field == "display_name":
        return lambda job: job.display_name == value
    if field == "state":
        if value not in aiplatform_v1.JobState.__members__:
            raise invalid(f"unsupported filter: unknown state {value!r}")
        state = aiplatform_v1.JobState[value]
        return lambda job: job.state == state
    key = field.removeprefix("labels.")
    return lambda job: job.labels.get(key) == value
