"""The labels spot-training puts on every CustomJob it submits, and how it reads them back.

CreateCustomJob takes no request id and a CustomJob cannot be changed once
submitted, so labels are the only way to find a job again after a lost answer,
an interrupted `pulumi up` or a destroy:

- `spot_training_key`: the submission key (spec.submission_key). A create looks
  it up before it submits, so a retry adopts its own job instead of submitting
  it twice.
- `spot_training_resource`: the resource (project, stack, resource name),
  hashed. Every attempt of every spec of one resource carries it, so `create`
  finds, in one ListCustomJobs call, a job left running by an interrupted
  create of an earlier spec.
- `spot_training_stack`: the stack (project and stack name), hashed: the orphan
  sweep lists a stack's jobs by it.
- `spot_training_on_delete: keep`: the job was submitted to outlive its
  resource (`onDelete: keep`); the sweep reports it as released, not orphaned.

Keys are lowercase letters, digits and underscores only: they go into the
ListCustomJobs filter unquoted, and AIP-160's filter grammar
(https://google.aip.dev/160) reads a '-' in a field path as an operator.
The filter is a search, not the guarantee: every job a list returns is checked
here, by its labels, before it is adopted or cancelled.

Pure, like spec.py: no Pulumi, no Google client.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping
from typing import Any

from components.spot_job.model.defaults import OnDelete

SUBMISSION_LABEL = "spot_training_key"
RESOURCE_LABEL = "spot_training_resource"
STACK_LABEL = "spot_training_stack"
RELEASE_LABEL = "spot_training_on_delete"
RELEASED = "keep"
# v1 labelled its submissions `spot-training-key`; from 6cee69c up to dc94996 with the same
# key derivation and no resource label; its in-flight jobs are found by display
# name and adopted by this label.
LEGACY_SUBMISSION_LABELS = ("spot-training-key",)
RESERVED = (SUBMISSION_LABEL, RESOURCE_LABEL, STACK_LABEL, RELEASE_LABEL, *LEGACY_SUBMISSION_LABELS)
# Of the 64 labels Vertex AI allows a job, the ones spot-training may set.
OWN_LABELS = 4


def _digest(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()[:32]


def stack_scope(scope: str) -> str:
    """"project/stack/resource" (the resource's submissionScope) -> "project/stack"."""
    return "/".join(scope.split("/", 2)[:2])


def resource_value(scope: str) -> str:
    return _digest(f"resource:{scope}")


def stack_value(stack: str) -> str:
    """The stack label's value for "project/stack" (a Pulumi project and stack name)."""
    return _digest(f"stack:{stack}")


def for_submission(scope: str, key: str, on_delete: str | None) -> dict[str, str]:
    """The labels a submission of the resource with `scope` carries, beside the user's."""
    own = {
        SUBMISSION_LABEL: key,
        RESOURCE_LABEL: resource_value(scope),
        STACK_LABEL: stack_value(stack_scope(scope)),
    }
    if on_delete == OnDelete.KEEP:
        own[RELEASE_LABEL] = RELEASED
    return own


def lookup_filter(scope: str, display_name: str) -> str:
    """The ListCustomJobs filter for every job of a resource: its own label, or,
    for jobs that v1 submitted without one, its display name."""
    quoted = display_name.replace("\\", "\\\\").replace('"', '\\"')
    return f'labels.{RESOURCE_LABEL}="{resource_value(scope)}" OR display_name="{quoted}"'


def carries_key(job: dict[str, Any], key: str) -> bool:
    labels = job.get("labels") or {}
    return any(labels.get(label) == key for label in (SUBMISSION_LABEL, *LEGACY_SUBMISSION_LABELS))


def of_resource(job: dict[str, Any], scope: str) -> bool:
    return (job.get("labels") or {}).get(RESOURCE_LABEL) == resource_value(scope)


def may_pick(job: dict[str, Any], scope: str, key: str) -> bool:
    """Whether the job carries the key, belongs to the resource, or is v1's (listed by its display
    name, checked by of_v1_resource): the jobs worth reading out of a ListCustomJobs answer
    (submission.py)."""
    return carries_key(job, key) or of_resource(job, scope) or _by_v1(job)


# The user's labels the program puts on every job of a team (components/team.py), v1's included:
# beside the display name, what tells a v1 job of this resource from another stack's.
V1_OWNER_LABELS = ("team", "environment")


def _by_v1(job: dict[str, Any]) -> bool:
    labels = job.get("labels") or {}
    return RESOURCE_LABEL not in labels and any(label in labels for label in LEGACY_SUBMISSION_LABELS)


def of_v1_resource(job: dict[str, Any], display_name: str, own_labels: Mapping[str, Any]) -> bool:
    """A job v1 submitted for this resource under any key: v1 set no resource label, so it is the
    resource's display name with the team and environment labels the resource's jobs carry. Two
    stacks of one project and region with the same environment label cannot be told apart by
    these (docs/lifecycle.md)."""
    labels = job.get("labels") or {}
    return (
        _by_v1(job)
        and job.get("displayName") == display_name
        and all(own_labels.get(label) is not None for label in V1_OWNER_LABELS)
        and all(labels.get(label) == own_labels.get(label) for label in V1_OWNER_LABELS)
    )
