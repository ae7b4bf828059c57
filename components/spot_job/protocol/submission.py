"""Submitting one attempt of a job exactly once, against a distributed API: the protocol.

CreateCustomJob takes no request id, so the only way to know whether a job
landed is to look for it: every job carries its submission key as a label
(model/submission_labels.py), and a create is preceded and followed by a ListCustomJobs by the
resource's label.

Invariant: once `submit` returns, exactly one ACTIVE job carries the
attempt's submission key among the jobs a list shows (the one returned), and
every other active job that carries it has been cancelled; a job carrying it
that no list showed yet converges to cancelled by the next `submit` or
`cancel_copies` of the resource (the next `up` that submits or replaces it,
or its destroy) or by `spot-training sweep`.

It holds for `onDelete: keep` too, as it is (the behaviour was made to fit
it): `keep` releases the one job a key keeps, not its copies. A destroy
under `keep` cancels neither that job (the one its state points to, the
oldest of its key) nor deletes any record, but it does cancel every other
active copy of the state's keys, as with `delete` and `cancel`
(decision/verdict.py); the sweep lists the kept job as RELEASED and a younger active
copy of its key as ORPHANED. What `keep` spares are the resource's jobs under
other keys (step 3): a released job is one per key, not a copy.

Which copy is kept is one rule every caller applies the same way: the oldest
by createTime (compared as a time), then by name (ordering.py). Two observers of the same
set of copies never cancel them all.

What it does:

1. Look for the attempt wherever it may already be: its region, every region
   of the old and new fallback ladders and of the attempt history. An active
   copy is adopted (an `up` interrupted after its create landed); an ended
   record of the key is not: it is a run that ended (A -> B -> A, a `rerun`
   set back, a stack made again after a destroy), and the new submission is a
   new run, as the preview says (decision/verdict.py).
2. Create, once. An answer that leaves the outcome unknown (DEADLINE_EXCEEDED,
   UNAVAILABLE, INTERNAL, ABORTED, UNKNOWN, CANCELLED: the front end may have
   given up while the backend goes on) is never followed by a second create in
   the same breath: the protocol looks again, with backoff, for the settle
   time (SETTLE_ENV, default DEFAULT_SETTLE_SECONDS), and adopts what lands.
   Only a job still unseen after it is taken as never landed, and created
   again. RESOURCE_EXHAUSTED is a refusal (nothing landed): backed off and
   tried again at once. The whole is bounded by job_service.SUBMIT_DEADLINE.
3. After every create or adoption, look again in the attempt's region and
   cancel every other active copy of the key (the oldest is kept, even if
   that is not the one this call created). Jobs of the same resource under
   another key (left by an `up` interrupted under an earlier spec) are
   cancelled too, except with `onDelete: keep` (released on purpose) and
   with `replaceOrder: submitFirst`, where the job being replaced is still in
   state and cancelled by its own delete (the sweep finds any other).

Assumptions it rests on:

- A create that Vertex accepted shows in ListCustomJobs within the settle
  time of the answer (landing late plus list lag). A longer lag costs one
  duplicate run until the next look (step 1 of the next `up`, a destroy, the
  sweep); it never leaves a job that no command finds, since every copy
  carries the resource, stack and key labels.
- Vertex keeps the labels a job was created with (CustomJob has no update).
- One stack is deployed from one backend at a time (Pulumi's lock), so no two
  calls submit the same key at once.
- A cancelled job stays cancelled: cancel is never undone.
"""

from __future__ import annotations

import logging
import os
import time
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from google.api_core import exceptions

from components.spot_job.client import job_service
from components.spot_job.decision import resubmission_policy
from components.spot_job.model import request, states, submission_labels
from components.spot_job.model.defaults import OnDelete, ReplaceOrder
from components.spot_job.model.job_inputs import JobInputs
from components.spot_job.model.job_name import JobName, parent_of
from components.spot_job.model.ordering import oldest_first

log = logging.getLogger("spot-training")

SETTLE_ENV = "SPOT_TRAINING_SETTLE_SECONDS"
DEFAULT_SETTLE_SECONDS = 20.0
# Between looks while settling: quick first (most late answers land within a second or two), then every 4 s.
SETTLE_POLL = job_service.Backoff(initial=0.5, maximum=4.0, multiplier=2.0)

# Answers after which the create may or may not have landed.
UNCERTAIN = (
    exceptions.DeadlineExceeded,
    exceptions.ServiceUnavailable,
    exceptions.InternalServerError,
    exceptions.Aborted,
    exceptions.Unknown,
    exceptions.Cancelled,
)


@dataclass(frozen=True)
class Submitted:
    job: dict[str, Any]  # the attempt's job, REST-shaped, as last seen
    name: JobName  # its name, parsed
    key: str
    adopted: bool  # an earlier create of the same attempt, found rather than made by this call


class _NotSeen(Exception):
    """While settling: no copy of the key is listed yet."""


class _CreateAgain(Exception):
    """The create's outcome was unknown and nothing landed within the settle time."""


def settle_seconds() -> float:
    raw = os.environ.get(SETTLE_ENV)
    try:
        value = float(raw) if raw else DEFAULT_SETTLE_SECONDS
    except ValueError:
        raise job_service.VertexError(f"{SETTLE_ENV}={raw!r} is not a number of seconds") from None
    if value < 0:
        raise job_service.VertexError(f"{SETTLE_ENV}={raw!r} must not be negative")
    return value


def submit(
    job: JobInputs,
    attempt: int,
    place: resubmission_policy.Placement,
    search: Iterable[str] = (),
) -> Submitted:
    """Submits (or adopts) the `attempt`-th job of `job` where `place` says; `search`: regions where an
    earlier attempt ran (the history), looked in as well as the old and new ladders' regions."""
    parent, key, body = request.create_request(job, attempt, place.strategy, place.location, place.kms_key_name)
    lookup = _Lookup.of(job, key, submission_labels.lookup_filter(job.scope, body.get("displayName") or ""))
    regions = list(dict.fromkeys([place.location, *job.regions, *search]))
    found = [seen for region in regions if region for seen in lookup.jobs(region)]
    copies = oldest_first(seen for seen in found if lookup.is_copy(seen))
    if copies:
        made, adopted = copies[0], True
    else:
        made, adopted = _create(lookup, parent, place.location, body)
    if adopted:
        log.warning("%s: adopted %s, submitted earlier under submission key %s", lookup.label, made["name"], key)
    # Look again where it is: a copy that landed late, or the one this create raced with.
    made_in = JobName.parse(made["name"]).location
    again = [j for j in lookup.jobs(made_in) if j.get("name") != made["name"]] + [
        j for j in found if JobName.parse(j["name"]).location != made_in and j.get("name") != made["name"]
    ]
    keep, *extra = oldest_first([made, *(j for j in again if lookup.is_copy(j))])
    if keep["name"] != made["name"]:
        log.warning("%s: kept %s, an older copy of submission key %s", lookup.label, keep["name"], key)
        made, adopted = keep, True
    for other in extra:
        lookup.cancel(other, f"a second copy of submission key {key}: one of them is kept, the oldest")
    done = Submitted(made, JobName.parse(made["name"]), key, adopted)
    if lookup.spares_other_keys:
        return done
    for other in again:
        if other["name"] != made["name"] and not submission_labels.carries_key(other, key) and lookup.left_running(other):
            lookup.cancel(other, "an earlier submission of this resource that no state points to")
    return done


def _create(lookup: _Lookup, parent: str, location: str, body: dict[str, Any]) -> tuple[dict[str, Any], bool]:
    service = job_service.JobService(location, lookup.quotas)
    settle = settle_seconds()

    def create_once() -> tuple[dict[str, Any], bool]:
        try:
            return service.create(parent, body), False
        except UNCERTAIN as error:
            log.warning(
                "%s: Vertex AI call failed, retrying: %s; the submission may still land, so it is looked for (up "
                "to %.0fs) before it is sent again",
                lookup.label, error, settle,
            )
        landed = _settle(lookup, location, settle)
        if landed is None:
            raise _CreateAgain(f"no job of submission key {lookup.key} appeared within {settle:.0f}s")
        return landed, True

    again = job_service.BACKOFF.retry(
        _CreateAgain,
        exceptions.ResourceExhausted,
        timeout=job_service.SUBMIT_DEADLINE,
        on_error=lambda error: log.warning("%s: submitting again: %s", lookup.label, error),
    )
    try:
        return again(create_once)()
    except exceptions.RetryError as error:
        raise job_service.VertexError(
            f"Vertex AI did not accept the job at {job_service.endpoint(location)} within {job_service.SUBMIT_DEADLINE:.0f}s "
            f"of retries: {error.cause or error}. "
            "Every copy that may have landed carries its submission key: the next `pulumi up` looks for it again "
            "before submitting, and `spot-training sweep` lists any left running."
        ) from error


def _settle(lookup: _Lookup, location: str, settle: float) -> dict[str, Any] | None:
    """The oldest active copy of the key that lists within `settle` seconds, else None."""

    def look() -> dict[str, Any]:
        copies = oldest_first(job for job in lookup.jobs(location) if lookup.is_copy(job))
        if not copies:
            raise _NotSeen()
        return copies[0]

    polling = SETTLE_POLL.retry(_NotSeen, timeout=settle)
    deadline = time.monotonic() + settle
    try:
        return polling(look)()
    except (exceptions.RetryError, _NotSeen):
        pass
    # The backoff stops when its next sleep would pass the bound, so its last look may come seconds
    # early: one more look at the bound itself, so that the whole settle time is covered.
    time.sleep(max(0.0, deadline - time.monotonic()))
    try:
        return look()
    except _NotSeen:
        return None


@dataclass(frozen=True)
class _Lookup:
    """The resource's jobs as ListCustomJobs shows them, and what may be done with them."""

    project: str
    key: str
    display_name: str
    scope: str
    quotas: Mapping[str, Any] | None
    label: str
    spares_other_keys: bool
    filter: str  # submission_labels.lookup_filter: every job of the resource, v1's by display name
    user_labels: Mapping[str, Any]

    @classmethod
    def of(cls, job: JobInputs, key: str, filter_: str) -> _Lookup:
        display_name = str(job.definition.get("displayName") or "")
        return cls(
            project=job.project,
            key=key,
            display_name=display_name,
            scope=job.scope,
            quotas=job.quotas,
            label=job.label or display_name,
            spares_other_keys=job.on_delete is OnDelete.KEEP or job.replace_order is ReplaceOrder.SUBMIT_FIRST,
            filter=filter_,
            user_labels=job.definition.get("labels") or {},
        )

    def jobs(self, location: str, only_key: bool = True) -> list[dict[str, Any]]:
        """The resource's jobs in `location`; with `only_key`, jobs of other resources that share its
        display name are skipped unread unless they carry the key."""
        service = job_service.JobService(location, self.quotas)
        parent = parent_of(self.project, location)
        return service.jobs_of(parent, self.filter, self._worth_reading if only_key else None)

    def _worth_reading(self, labels: Mapping[str, str]) -> bool:
        """Whether a listed job carries the key or belongs to the resource (submission_labels.may_pick)."""
        return submission_labels.may_pick({"labels": labels}, self.scope, self.key)

    def is_copy(self, job: dict[str, Any]) -> bool:
        """An active job of this attempt: one to adopt, or to cancel as a second copy."""
        return submission_labels.carries_key(job, self.key) and states.is_active(job.get("state"))

    def left_running(self, job: dict[str, Any]) -> bool:
        ours = submission_labels.of_resource(job, self.scope) or submission_labels.of_v1_resource(
            job, self.display_name, self.user_labels
        )
        return ours and states.is_active(job.get("state"))

    def cancel(self, job: dict[str, Any], why: str) -> None:
        log.warning("%s: cancelling %s (%s), %s", self.label, job["name"], job.get("state"), why)
        job_service.JobService(JobName.parse(job["name"]).location, self.quotas).cancel(job["name"])


def cancel_copies(job: JobInputs, keys: Iterable[str], regions: Iterable[str], spare: str = "") -> list[str]:
    """Cancels every active job of the resource, in `regions`, that carries one of `keys` (the
    attempts a resource's state submitted), except `spare` (the job its state points to): copies
    that slipped through by a name no state holds, whatever `onDelete` says (decision/verdict.py). The
    names cancelled."""
    keys = [k for k in dict.fromkeys(keys) if k]
    if not keys:
        return []
    display_name = str(job.definition.get("displayName") or "")
    lookup = _Lookup.of(job, keys[0], submission_labels.lookup_filter(job.scope, display_name))
    cancelled = []
    for region in dict.fromkeys(r for r in regions if r):
        for seen in lookup.jobs(region, only_key=False):
            if seen["name"] != spare and states.is_active(seen.get("state")) and any(submission_labels.carries_key(seen, k) for k in keys):
                lookup.cancel(seen, "a copy of this resource's submission that no state points to")
                cancelled.append(seen["name"])
    return cancelled
