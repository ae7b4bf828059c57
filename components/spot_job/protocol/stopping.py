"""Stopping a job on delete (destroy or replacement) without starving the provider host.

A cancelled job takes minutes to stop, and the engine sends every delete of a
destroy at once (16 in flight by default), so waiting for each on its own host
thread would leave none for the rest of the stack. The cancel is always sent at
once, so no job bills past its delete; waiting for the job to stop takes one of
`blocking`'s slots. A delete that gets none returns without waiting and says
what it did and what becomes of the record. It does not fail: on an error the
engine starts no further steps, so the deletes behind it would never send their
cancels and those jobs would go on billing.

Imported only inside provider methods: it pulls in the Google client via vertex.
"""

from __future__ import annotations

import enum
import logging

from components.spot_job.client.job_service import JobService
from components.spot_job.model import states
from components.spot_job.model.defaults import OnDelete
from components.spot_job.model.job_name import JobName
from components.spot_job.protocol import blocking

log = logging.getLogger("spot-training")


def sweep_command(scope: str) -> str:
    """The command that deletes the records a destroy could not (jobs still stopping, copies
    cancelled), for the stack of a resource's submissionScope ("project/stack/resource")."""
    parts = scope.split("/")
    return f"uv run spot-training sweep {parts[1] if len(parts) > 2 else '<stack>'} --delete-ended"


class Outcome(enum.Enum):
    """What `stop` found or left: the record may be deleted only when STOPPED. Not a Vertex
    job state (those are states.py): what this delete did."""

    GONE = "gone"  # no record left to delete
    STOPPED = "stopped"  # ended now
    LEFT_STOPPING = "left stopping"  # cancelled, not waited for (logged)


def stop(service: JobService, job: JobName, timeout: float, on_delete: OnDelete, label: str, scope: str = "") -> Outcome:
    """Cancels the job if it is active and waits until it has ended if a slot is free:
    GONE, STOPPED (its record can be deleted at once, no further look needed) or LEFT_STOPPING.
    TimeoutError if it outlasts `timeout`."""
    name = str(job)
    seen = service.get(name)
    if seen is None:
        return Outcome.GONE
    if states.has_ended(seen.get("state")):
        return Outcome.STOPPED
    if states.is_active(seen.get("state")):
        service.cancel(name)
    with blocking.slot() as free:
        if free:
            return Outcome.GONE if service.wait_until_terminal(name, timeout) is None else Outcome.STOPPED
    log.warning(
        "%s: cancelled %s; it is stopping. Not waiting for it to stop: %d other calls are already waiting on jobs, "
        "and the provider host keeps its other threads for the rest of the stack. %s %s",
        label, name, blocking.MAX_BLOCKING_CALLS, _record(job, on_delete, scope), job.console_url,
    )
    return Outcome.LEFT_STOPPING


def _record(job: JobName, on_delete: OnDelete, scope: str) -> str:
    if on_delete is OnDelete.CANCEL:
        return "Its record stays in Vertex, as asked (onDelete: cancel)."
    return (
        "Its record cannot be deleted before it has stopped, so it stays in Vertex, forgotten by the stack (a stopped "
        f"job bills nothing). Once it has stopped, `{sweep_command(scope)}` deletes it, or: {job.gcloud('delete')}"
    )
