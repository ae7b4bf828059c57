"""What a job gets where its spec or its knobs say nothing, and the words its knobs take."""

from __future__ import annotations

import enum


class Word(str, enum.Enum):
    """A knob's value: equal to the string the stack config and the state carry, and printed as it."""

    def __str__(self) -> str:
        return str(self.value)


class WaitFor(Word):
    NONE = "none"
    RUNNING = "running"
    SUCCEEDED = "succeeded"


class OnDelete(Word):
    DELETE = "delete"
    CANCEL = "cancel"
    KEEP = "keep"


class ReplaceOrder(Word):
    CANCEL_FIRST = "cancelFirst"
    SUBMIT_FIRST = "submitFirst"


DEFAULT_STRATEGY = "SPOT"
DEFAULT_REPLICA_COUNT = 1
DEFAULT_WAIT_FOR = WaitFor.NONE.value
DEFAULT_WAIT_TIMEOUT = "600s"
DEFAULT_ON_DELETE = OnDelete.DELETE.value
DEFAULT_DELETE_TIMEOUT = "900s"
DEFAULT_REPLACE_ORDER = ReplaceOrder.CANCEL_FIRST.value
DEFAULT_MAX_RESUBMISSIONS = 3
