"""A job's user labels: Vertex's label rules, and the slots spot-training keeps.

googleapis/googleapis google/cloud/aiplatform/v1/custom_job.proto
(f8291d2b89f0017ab078a4c7378069bae5686f6f), CustomJob.labels: "Label keys and
values can be no longer than 64 characters (Unicode codepoints), can only
contain lowercase letters, numeric characters, underscores and dashes.
International characters are allowed." So keys and values alike take
lowercase letters of any script (Unicode Ll, Lo), numbers, '_' and '-', up to
64 code points.
A key starts with a lowercase letter of any script, and a resource carries at
most 64 labels: Google's label format, keys [\\p{Ll}\\p{Lo}][\\p{Ll}\\p{Lo}\\p{N}_-]*,
"No more than 64 labels":
https://cloud.google.com/resource-manager/docs/creating-managing-labels#requirements
https://cloud.google.com/vertex-ai/docs/reference/rest/v1/projects.locations.customJobs#CustomJob
"""

from __future__ import annotations

import unicodedata

from components.spot_job.model import submission_labels as own_labels
from components.spot_job.rules.known import Fail, Known

MAX_LABELS = 64
# The labels spot-training sets (labels.py) take some of the 64 slots; users get the rest.
MAX_USER_LABELS = MAX_LABELS - own_labels.OWN_LABELS
LABEL_MAX = 64  # code points, keys and values alike


def labels(k: Known, fail: Fail) -> None:
    values = k.get(k.inputs, "labels", dict) or {}
    if len(values) > MAX_USER_LABELS:
        fail(
            "labels",
            f"has {len(values)} labels; at most {MAX_USER_LABELS} (Vertex allows {MAX_LABELS}, "
            f"spot-training sets up to {own_labels.OWN_LABELS} of its own)",
        )
    for key, value in values.items():
        path = f"labels.{key}"
        if key in own_labels.RESERVED:
            fail(path, "is reserved: spot-training sets it to find its own submissions")
        elif not label_key_ok(key):
            fail(
                path,
                f"label keys are 1-{LABEL_MAX} lowercase letters (any script), digits, '_' and '-', starting with "
                f"a letter; write e.g. {_hint(key, key=True)!r}",
            )
        if isinstance(value, str) and not k.is_unknown(value) and not label_value_ok(value):
            fail(
                path,
                f"label values are at most {LABEL_MAX} lowercase letters (any script), digits, '_' and '-'; "
                f"write e.g. {_hint(value)!r}",
            )


def _letter(c: str) -> bool:
    return unicodedata.category(c) in ("Ll", "Lo")


def _allowed(c: str) -> bool:
    return c in "_-" or _letter(c) or unicodedata.category(c).startswith("N")


def label_key_ok(key: str) -> bool:
    """A label key: a lowercase letter of any script, then letters, numbers, '_', '-'; 64 code points at most."""
    return 0 < len(key) <= LABEL_MAX and _letter(key[0]) and all(_allowed(c) for c in key)


def label_value_ok(value: str) -> bool:
    """A label value: letters (lowercase, any script), numbers, '_', '-'; 64 code points at most, may be empty."""
    return len(value) <= LABEL_MAX and all(_allowed(c) for c in value)


def _hint(text: str, key: bool = False) -> str:
    hint = "".join(c if _allowed(c) else "-" for c in text.lower())[:LABEL_MAX]
    return ("l-" + hint)[:LABEL_MAX] if key and not (hint and _letter(hint[0])) else hint
