"""A job's user labels: Vertex's label rules, and the slots spot-training keeps.

CustomJob.labels: at most 64 labels; keys and values at most 63 characters of
lowercase letters, numeric characters, underscores and dashes; "International
characters are allowed".
https://cloud.google.com/vertex-ai/docs/reference/rest/v1/projects.locations.customJobs#CustomJob
https://cloud.google.com/java/docs/reference/google-cloud-aiplatform/3.45.0/com.google.cloud.aiplatform.v1.CustomJobOrBuilder
Values take lowercase letters of any script (Unicode Ll, Lo), numbers, '_'
and '-', the format [\\p{Ll}\\p{Lo}\\p{N}_-]{0,63} Google's label docs give:
https://googleapis.dev/dotnet/Google.Apis.Backupdr.v1/latest/api/Google.Apis.Backupdr.v1.Data.LabelKeyValPair.html
Keys stay ASCII as the Vertex docs show.
"""

from __future__ import annotations

import re
import unicodedata

from .. import labels as own_labels
from .known import Fail, Known

MAX_LABELS = 64
# The labels spot-training sets (labels.py) take some of the 64 slots; users get the rest.
MAX_USER_LABELS = MAX_LABELS - own_labels.OWN_LABELS
LABEL_KEY = re.compile(r"^[a-z][a-z0-9_-]{0,62}$")
LABEL_VALUE_MAX = 63


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
        elif not LABEL_KEY.match(key):
            fail(path, "label keys are 1-63 characters of lowercase letters, digits, '_' and '-', starting with a letter")
        if isinstance(value, str) and not k.is_unknown(value) and not label_value_ok(value):
            fail(
                path,
                "label values are at most 63 characters of lowercase letters (any script), digits, '_' and '-'; "
                f"write e.g. {_label_value_hint(value)!r}",
            )


def label_value_ok(value: str) -> bool:
    """A Vertex label value: [\\p{Ll}\\p{Lo}\\p{N}_-]{0,63} (international characters allowed)."""
    return len(value) <= LABEL_VALUE_MAX and all(
        c in "_-" or unicodedata.category(c) in ("Ll", "Lo") or unicodedata.category(c).startswith("N") for c in value
    )


def _label_value_hint(value: str) -> str:
    return "".join(c if label_value_ok(c) else "-" for c in value.lower())[:LABEL_VALUE_MAX]
