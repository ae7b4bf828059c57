"""The subset of the AIP-160 list filter (https://google.aip.dev/160) that callers of ListCustomJobs use.

Terms are `field = value` over labels.KEY, display_name and state, joined by
AND and OR; as in AIP-160, OR binds tighter than AND (`a AND b OR c` is
`a AND (b OR c)`). Quoted values are matched whole, with \\" and \\\\ escapes,
so a display name containing " AND " or a quote does not split the filter.
"""

import re
from collections.abc import Callable

from google.cloud import aiplatform_v1

from sandbox.jobservice.errors import invalid

Predicate = Callable[[aiplatform_v1.CustomJob], bool]

_TERM = re.compile(r'\s*(labels\.[a-z][a-z0-9_-]*|display_name|state)\s*=\s*(?:"((?:[^"\\]|\\.)*)"|([^\s"]+))\s*')
_JOINER = re.compile(r"(AND|OR)\b\s*")


def compile_filter(text: str) -> Predicate:
    conjuncts: list[list[Predicate]] = [[]]  # AND of ORs
    pos = 0
    while text.strip():  # loops until the last term; an empty filter matches everything
        term = _TERM.match(text, pos)
        if not term:
            raise invalid(f"unsupported filter {text!r} at position {pos}")
        field, quoted, bare = term.groups()
        value = bare if quoted is None else re.sub(r"\\(.)", r"\1", quoted)
        conjuncts[-1].append(_predicate(field, value))
        pos = term.end()
        if pos == len(text):
            break
        joiner = _JOINER.match(text, pos)
        if not joiner:
            raise invalid(f"unsupported filter {text!r} at position {pos}: only AND and OR are supported")
        if joiner.group(1) == "AND":
            conjuncts.append([])
        pos = joiner.end()
    return lambda job: all(any(p(job) for p in alternatives) for alternatives in conjuncts if alternatives)


def _predicate(field: str, value: str) -> Predicate:
    if field == "display_name":
        return lambda job: job.display_name == value
    if field == "state":
        if value not in aiplatform_v1.JobState.__members__:
            raise invalid(f"unsupported filter: unknown state {value!r}")
        state: int = aiplatform_v1.JobState.__members__[value]
        return lambda job: job.state == state
    key = field.removeprefix("labels.")
    return lambda job: job.labels.get(key) == value
