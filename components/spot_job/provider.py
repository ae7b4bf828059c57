"""The SpotTrainingJob dynamic provider: check, diff, create, read, update, delete.

This module is pickled by reference into every job's `__provider` property and
re-imported by the dynamic provider host, so it keeps no state, imports
nothing heavy at module level and holds no client: `vertex` (the Google client)
is imported inside the methods that call Vertex AI.
"""

from __future__ import annotations

import importlib
import logging
import threading
from typing import Any

from pulumi.dynamic import (
    CheckFailure,
    CheckResult,
    CreateResult,
    DiffResult,
    ReadResult,
    ResourceProvider,
    UpdateResult,
)
from pulumi.runtime import rpc

from . import changes, host, redaction, reporting, resubmission, spec
from .errors import reported_cleanly

log = logging.getLogger("spot-training")
log.addFilter(redaction.ScrubFilter())  # no secret value in any line the host writes

PROVIDER_KEY = "__provider"

# What Vertex reports about the job's current attempt, refreshed by every read,
# and the provider's own record of the attempts before it.
OUTPUT_FIELDS = (
    "jobName",
    "jobId",
    "state",
    "createTime",
    "startTime",
    "endTime",
    "updateTime",
    "error",
    "consoleUrl",
    "submissionKey",
    "strategy",
    "attempt",
    "history",
    "gone",
)
CANCELLED = "JOB_STATE_CANCELLED"


@redaction.guarded  # learns each call's secret values; scrubs them from its errors
class SpotTrainingJobProvider(ResourceProvider):
    # The provider carries no secrets (it has no state at all), so its blob
    # stays readable and small in the state file.
    serialize_as_secret_always = False

    def configure(self, req: Any) -> None:
        # The host calls this once per process, on its first call (it keeps the
        # unpickled provider). The Google client takes about a second to import and
        # every Create needs it: import it on a thread now, beside the Checks the
        # engine sends first, instead of in the first Create. Nothing is connected
        # and nothing is kept on the provider; a failed import fails again, with its
        # error, where a method imports `vertex`.
        threading.Thread(target=_import_vertex, name="spot-training-import", daemon=True).start()
        host.give_calls_to_vertex_threads_of_their_own()  # a diff never waits behind them (see host)

    def check(self, olds: dict[str, Any], news: dict[str, Any]) -> CheckResult:
        failures = spec.validate(news, unknown=rpc.UNKNOWN)
        return CheckResult(news, [CheckFailure(f.path, f.reason) for f in failures])

    @reported_cleanly
    def diff(self, id_: str, olds: dict[str, Any], news: dict[str, Any]) -> DiffResult:
        before, after = spec.job_definition(olds), spec.job_definition(news)
        replaces = [key for key in spec.JOB_FIELDS if before.get(key) != after.get(key)]
        replaces += [key for key in spec.TRIGGER_FIELDS if olds.get(key) != news.get(key)]
        # A CustomJob cannot be changed, so a new definition is a new job. By
        # default the old one is cancelled first: two copies of a training run
        # never bill at once, and the new one may reuse the same output directory.
        cancel_first = (news.get("replaceOrder") or spec.DEFAULT_REPLACE_ORDER) == "cancelFirst"
        if replaces:
            _report_to_stderr()  # the engine shows it in the preview, beside the resource
            log.info(
                "%s: will be submitted again as a new job (%s), because:\n  %s",
                news.get("displayName"), "the old one cancelled first" if cancel_first else "the old one cancelled after",
                "\n  ".join(changes.describe(olds, news, unknown=rpc.UNKNOWN)),
            )
            return DiffResult(changes=True, replaces=replaces, delete_before_replace=cancel_first)
        knobs = [key for key in spec.KNOB_FIELDS if olds.get(key) != news.get(key)]
        # A failed job the policy resubmits is an update: the resource stays,
        # and its attempt count and history carry over to the new submission.
        due = resubmission.next_submission(olds, news)
        if due is not None:
            _report_to_stderr()
            log.info(
                "%s: %s ended FAILED (%s); will be submitted again as attempt %d on %s %s",
                news.get("displayName"), olds.get("jobId"), due.reason, due.attempt, due.strategy,
                resubmission.why(due, olds, news),
            )
        if olds.get("gone"):
            _report_to_stderr()
            log.warning(
                "%s: job %s was deleted outside Pulumi after it ended (last seen %s); it is not run again. "
                "To run it again, set or change `rerun` on the job.",
                news.get("displayName"), olds.get("jobId"), olds.get("state"),
            )
        elif olds.get("state") == CANCELLED:
            _report_to_stderr()
            log.warning(
                "%s: job %s was cancelled outside this stack; it is not run again. To run it again, set or "
                "change `rerun` on the job. %s",
                news.get("displayName"), olds.get("jobId"), olds.get("consoleUrl"),
            )
        if (reason := resubmission.held_back(olds, news)) is not None:
            _report_to_stderr()
            log.warning(
                "%s: %s ended FAILED and is not submitted again: %s. Change its spec or `rerun` to run it again. %s",
                news.get("displayName"), olds.get("jobId"), reason, olds.get("consoleUrl"),
            )
        return DiffResult(changes=bool(knobs or due), replaces=[], delete_before_replace=cancel_first)

    @reported_cleanly
    def create(self, props: dict[str, Any]) -> CreateResult:
        spec.require_valid(props)
        _report_to_stderr()
        from . import vertex, waiting

        place = resubmission.placement_after(0, props)
        job, key = _submit(props, 1, place)
        with vertex.JobService(_location(job["name"]), props.get("quotas")) as service:
            job = waiting.follow(service, job, props)
        return CreateResult(job["name"], _outputs(props, job, key=key, strategy=_strategy_of(job, place), attempt=1, history=[]))

    @reported_cleanly
    def read(self, id_: str, props: dict[str, Any]) -> ReadResult:
        from . import vertex

        name = _job_name(props.get("jobName") or id_, props)
        with vertex.JobService(_location(name), props.get("quotas")) as service:
            job = service.get(name)
        if job is None:
            # Vertex deletes only a job that has ended, so its training ran. The
            # resource stays, marked gone: dropping it would make the next `up`
            # run (and bill) the training again. `rerun` runs it again on purpose.
            return ReadResult(id_, {**props, "gone": True})
        return ReadResult(id_, _outputs(props, job, **_kept(props)))

    @reported_cleanly
    def update(self, id_: str, olds: dict[str, Any], news: dict[str, Any]) -> UpdateResult:
        outs = {key: value for key, value in olds.items() if key not in spec.KNOB_FIELDS}
        outs.update({key: news[key] for key in spec.KNOB_FIELDS if news.get(key) is not None})
        due = resubmission.next_submission(olds, news)
        if due is None:  # only knobs changed: no API call
            return UpdateResult(outs)
        spec.require_valid(news)
        _report_to_stderr()
        from . import vertex, waiting

        log.warning(
            "%s: %s ended FAILED (%s); submitting attempt %d on %s %s, output kept in %s",
            news.get("displayName"), olds.get("jobId"), due.reason, due.attempt, due.strategy,
            resubmission.why(due, olds, news),
            ((news.get("jobSpec") or {}).get("baseOutputDirectory") or {}).get("outputUriPrefix", "no baseOutputDirectory"),
        )
        history = list(olds.get("history") or []) + [resubmission.history_entry(olds)]
        place = resubmission.Placement(due.strategy, due.location, due.kms_key_name)
        # Where an attempt of this job may already be: where the old ladder and history sent them too.
        seen = [*resubmission.locations(olds), *(_location(n) for n in [_job_name(olds.get("jobName") or id_, olds), *_past_names(olds)])]
        job, key = _submit(news, due.attempt, place, seen)
        # Polled where it is: an attempt adopted from an interrupted `up` may be in another region of the ladder.
        with vertex.JobService(_location(job["name"]), news.get("quotas")) as service:
            job = waiting.follow(service, job, news)
        return UpdateResult(_outputs(news, job, key=key, strategy=_strategy_of(job, place), attempt=due.attempt, history=history))

    @reported_cleanly
    def delete(self, id_: str, props: dict[str, Any]) -> None:
        name = _job_name(props.get("jobName") or id_, props)
        on_delete = props.get("onDelete") or spec.DEFAULT_ON_DELETE
        if on_delete == "keep":  # forget it: the job, running or not, stays in Vertex
            return
        _report_to_stderr()
        from . import stopping, vertex

        timeout = spec.duration_seconds(props.get("deleteTimeout") or spec.DEFAULT_DELETE_TIMEOUT)
        with vertex.JobService(_location(name), props.get("quotas")) as service:
            # Cancelled at once; waited on only if the host can spare the thread (see stopping).
            stopped = stopping.stop(service, name, timeout, on_delete, props.get("displayName") or name)
            if on_delete == "cancel":
                return
            if stopped == stopping.STOPPED:  # terminal, as just seen: no second look before the delete
                service.delete_record(name, timeout)
        # Earlier attempts ended before this one was submitted; their records go too, each
        # in the region it ran in (a fallback rung may have moved it).
        for past in _past_names(props):
            with vertex.JobService(_location(past), props.get("quotas")) as service:
                service.delete(past, timeout)


def _import_vertex() -> None:
    try:
        importlib.import_module(f"{__package__}.vertex")
        importlib.import_module(f"{__package__}.waiting")
    except Exception:  # noqa: BLE001 - the method that needs it imports it again and reports the error
        pass


def _submit(
    props: dict[str, Any], attempt: int, place: resubmission.Placement, seen_in: Any = ()
) -> tuple[dict[str, Any], str]:
    """Submits the `attempt`-th job of these inputs where `place` says (or adopts it, if an
    earlier try landed, in whichever region its ladder sent it)."""
    from . import labels, vertex

    parent, key, body = spec.submission(props, attempt, place.strategy, place.location, place.kms_key_name)
    scope, quotas = props.get("submissionScope") or "", props.get("quotas")
    # An earlier try of this attempt may have landed in another region of the ladder (the
    # ladder changed since an `up` was interrupted): look there first, one list per region,
    # so it is adopted rather than submitted twice. A job whose ladder names no other region
    # makes no call here.
    elsewhere: list[dict[str, Any]] = []
    for location in dict.fromkeys([*resubmission.locations(props), *seen_in]):
        if location and location != place.location:
            with vertex.JobService(location, quotas) as other:
                elsewhere += other.jobs_of(spec.parent(props, location), scope, body.get("displayName") or "", key)
    job = labels.adoptable(elsewhere, key)
    adopted, left_running = job is not None, []
    if job is None:
        with vertex.JobService(place.location, quotas) as service:
            job, adopted, left_running = service.submit(parent, body, key, scope)
    left_running += labels.left_running(elsewhere, scope, job["name"])
    if adopted:
        log.warning("%s: adopted %s, submitted earlier under submission key %s", props.get("displayName"), job["name"], key)
    if (props.get("onDelete") or spec.DEFAULT_ON_DELETE) == "keep":
        return job, key  # its user asked for this resource's jobs to outlive it: none is cancelled
    for other in left_running:
        # Left by a create of an earlier spec that never reached the state (an
        # interrupted `up`): nothing else points to it, so it would bill on unseen.
        log.warning(
            "%s: cancelling %s (%s), an earlier submission of this resource that no state points to",
            props.get("displayName"), other["name"], other.get("state"),
        )
        with vertex.JobService(_location(other["name"]), quotas) as service:
            service.cancel(other["name"])
    return job, key


def _kept(props: dict[str, Any]) -> dict[str, Any]:
    """The provider's own outputs, which a read carries over unchanged."""
    return {
        "key": props.get("submissionKey"),
        "strategy": props.get("strategy"),
        "attempt": props.get("attempt") or 1,
        "history": props.get("history") or [],
    }


def _strategy_of(job: dict[str, Any], place: resubmission.Placement) -> str:
    """The strategy the job was submitted on: as placed, or, for one adopted from an interrupted
    `up` under another ladder, as it was placed then."""
    return ((job.get("jobSpec") or {}).get("scheduling") or {}).get("strategy") or place.strategy


def _past_names(props: dict[str, Any]) -> list[str]:
    """The full names of the attempts before the current one. A history entry written
    before attempts could move region holds only the job id: those all ran in the
    job's own location."""
    return [
        _job_name(past.get("jobName") or past["jobId"], props)
        for past in props.get("history") or []
        if past.get("jobName") or past.get("jobId")
    ]


def _job_name(id_or_name: str, props: dict[str, Any]) -> str:
    """The job's full resource name, from a state that may hold it or only its id."""
    if "/" in id_or_name:
        return id_or_name
    return f"{spec.parent(props)}/customJobs/{id_or_name}"


def _location(name: str) -> str:
    return name.split("/")[3]  # projects/P/locations/L/customJobs/ID


def _report_to_stderr() -> None:
    reporting.to_stderr()  # what the host writes to stderr is what `pulumi up` shows


def _outputs(
    props: dict[str, Any], job: dict[str, Any], *, key: str | None, strategy: str | None, attempt: int, history: list
) -> dict[str, Any]:
    from . import vertex

    inputs = {k: v for k, v in props.items() if k != PROVIDER_KEY and k not in OUTPUT_FIELDS}
    error = job.get("error")
    return {
        **inputs,
        "jobName": job["name"],
        "jobId": job["name"].rsplit("/", 1)[-1],
        "state": job.get("state"),
        "createTime": job.get("createTime"),
        "startTime": job.get("startTime"),
        "endTime": job.get("endTime"),
        "updateTime": job.get("updateTime"),
        "error": {"code": error.get("code", 0), "message": error.get("message", "")} if error else None,
        "consoleUrl": vertex.console_url(job["name"]),
        "submissionKey": key,
        "strategy": strategy,
        "attempt": int(attempt),
        "history": history,
        "gone": False,
    }
