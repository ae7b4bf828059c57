"""`waitFor`: following a job after submitting it, without starving the provider host.

Creates, updates and deletes of every job of a stack run on 4 threads of the
provider host (host.py). A call that waits holds one of them, so waiting is
bounded twice: each wait by `waitTimeout` (at most rules.knobs.MAX_BLOCKING_SECONDS),
and by the slots of `blocking`, shared with deletes waiting for a cancelled job,
so creates and deletes of the other jobs always find a free thread (reads and
diffs run on threads of their own). A job that
cannot be waited on is not an error: it was submitted, its state shows on the
next refresh.

Imported only inside provider methods: it pulls in the Google client via vertex.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Any

from components.spot_job.client.job_service import JobService
from components.spot_job.decision.resubmission_policy import Placement
from components.spot_job.model import states
from components.spot_job.model.defaults import WaitFor
from components.spot_job.model.job_inputs import JobInputs
from components.spot_job.model.job_name import JobName
from components.spot_job.model.job_state import JobState
from components.spot_job.protocol import blocking
from components.spot_job.protocol.submission import Submitted

log = logging.getLogger("spot-training")

_DONE: dict[str, Callable[[dict[str, Any]], bool]] = {
    WaitFor.RUNNING: lambda job: job.get("state") == states.RUNNING or states.has_ended(job.get("state")),
    WaitFor.SUCCEEDED: lambda job: states.has_ended(job.get("state")),
}


def follow(service: JobService, job: dict[str, Any], name: JobName, inputs: JobInputs) -> dict[str, Any]:
    """The job (`name`) once it reached what `waitFor` asks for, or as last seen when the wait ended."""
    target = inputs.wait_for
    label = inputs.label or str(name)
    url = name.console_url
    if target is WaitFor.NONE or _DONE[target](job):
        return job
    timeout = inputs.wait_timeout
    with blocking.slot() as free:
        if not free:
            log.warning(
                "%s: not waiting for %s: %d other calls are already waiting on jobs, and the provider host keeps its "
                "other threads for the rest of the stack; the next refresh shows its state. %s",
                label, target, blocking.MAX_BLOCKING_CALLS, url,
            )
            return job
        # Each state the job is found in, as it changes: the `up` log follows the job.
        last, reached = service.watch(
            str(name), _DONE[target], timeout, lambda seen: log.info("%s: %s %s", label, seen.get("state"), url)
        )
    if last is None:
        log.warning("%s: %s was deleted while being waited on", label, name)
        return job
    if not reached:
        log.warning(
            "%s: still %s after %.0fs (waitTimeout); not waiting longer, the job goes on. %s",
            label, last.get("state"), timeout, url,
        )
    elif target is WaitFor.SUCCEEDED and last.get("state") != states.SUCCEEDED:
        log.error(
            "%s: ended %s: %s. %s",
            label, last.get("state"), (last.get("error") or {}).get("message", "no error reported"), url,
        )
    return last


def followed(
    inputs: JobInputs,
    done: Submitted,
    place: Placement,
    *,
    attempt: int,
    history: tuple[dict[str, Any], ...],
) -> JobState:
    """The submitted attempt's state once `waitFor` is met (or as last seen), polled in its own region:
    an attempt adopted from an interrupted `up` may be in another region of the ladder."""
    job = follow(JobService(done.name.location, inputs.quotas), done.job, done.name, inputs)
    # As placed, or, for an attempt adopted from an `up` under another ladder, as it was placed then.
    strategy = ((job.get("jobSpec") or {}).get("scheduling") or {}).get("strategy") or place.strategy
    return JobState.observed(job, key=done.key, strategy=strategy, attempt=attempt, history=history, home=inputs.location)
