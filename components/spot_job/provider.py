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
from typing import TYPE_CHECKING, Any

from pulumi.dynamic import (
    CheckFailure,
    CheckResult,
    CreateResult,
    DiffResult,
    ReadResult,
    ResourceProvider,
    UpdateResult,
)
from pulumi.output import Unknown
from pulumi.runtime import rpc

from components.spot_job import host, reporting
from components.spot_job.decision import resubmission_policy, verdict
from components.spot_job.model import progress, redaction, spec, submission_labels
from components.spot_job.model.errors import reported_cleanly
from components.spot_job.model.job_inputs import JobInputs
from components.spot_job.model.job_state import JobState

if TYPE_CHECKING:
    pass

log = logging.getLogger("spot-training")
log.addFilter(redaction.ScrubFilter())  # no secret value in any line the host writes


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
        failures = spec.validate(_marked(news), unknown=rpc.UNKNOWN)
        return CheckResult(news, [CheckFailure(f.path, f.reason) for f in failures])

    @reported_cleanly
    def diff(self, id_: str, olds: dict[str, Any], news: dict[str, Any]) -> DiffResult:
        # Only says what verdict.decide decided: `update` and `create` carry out the same decision.
        olds = _marked(olds)
        state, old = JobState.of(olds, id_), JobInputs.of(olds, rpc.UNKNOWN)
        decided = verdict.decide(state, old, JobInputs.of(_marked(news), rpc.UNKNOWN))
        if decided.reason:
            _report_to_stderr()  # the engine shows it in the preview
            (log.warning if decided.warns else log.info)("%s", decided.reason)
        return DiffResult(
            changes=decided.changes, replaces=list(decided.replaces), delete_before_replace=decided.cancel_first
        )

    @reported_cleanly
    def create(self, props: dict[str, Any]) -> CreateResult:
        spec.require_valid(props)
        job = JobInputs.of(props)
        _report_to_stderr()
        if job.adopt:  # a job started outside the stack: adopted once it matches the spec, never submitted
            from components.spot_job.protocol import adoption

            adopted = adoption.adopt(job)
            return CreateResult(str(adopted.job), adopted.outputs(props))
        from components.spot_job.protocol import submission, waiting

        place = resubmission_policy.placement_after(0, job)
        done = submission.submit(job, 1, place)
        state = waiting.followed(job, done, place, attempt=1, history=())
        return CreateResult(str(state.job), state.outputs(props))

    @reported_cleanly
    def read(self, id_: str, props: dict[str, Any]) -> ReadResult:
        from components.spot_job.client import job_service

        state, inputs = JobState.of(props, id_), JobInputs.of(props)
        # The reads of a refresh share one listing of the stack's jobs; a job it does not show is read alone.
        stack = submission_labels.stack_scope(inputs.scope) if inputs.scope else ""
        job = job_service.JobService(state.job.location, inputs.quotas).read(str(state.job), stack)
        if job is None:
            # Vertex deletes only a job that has ended, so its training ran. The
            # resource stays, marked gone: dropping it would make the next `up`
            # run (and bill) the training again. `rerun` runs it again on purpose.
            return ReadResult(id_, {**props, "gone": True})
        refreshed = state.refreshed(job)
        if refreshed.wants_progress:  # once per ended attempt: what it achieved, for the resubmission policy
            from components.spot_job.client import progress_record

            earlier = [past.id for past in refreshed.past_jobs]
            found = progress_record.read(progress.record_uri(inputs.output_dir), refreshed.job.project, refreshed.job.id, earlier)
            refreshed = refreshed.with_progress(found)
        return ReadResult(id_, refreshed.outputs(props))

    @reported_cleanly
    def update(self, id_: str, olds: dict[str, Any], news: dict[str, Any]) -> UpdateResult:
        state, old, new = JobState.of(olds, id_), JobInputs.of(olds), JobInputs.of(news)
        decided = verdict.decide(state, old, new)
        outs = {key: value for key, value in olds.items() if key not in spec.KNOB_FIELDS}
        outs.update({key: news[key] for key in spec.KNOB_FIELDS if news.get(key) is not None})
        due = decided.resubmission
        if due is None:  # only knobs changed: no API call
            return UpdateResult(outs)
        spec.require_valid(news)
        _report_to_stderr()
        from components.spot_job.protocol import submission, waiting

        log.warning("%s; submitting it, output kept in %s", decided.reason, new.output_dir or "no baseOutputDirectory")
        place = resubmission_policy.Placement(due.strategy, due.location, due.kms_key_name)
        # An attempt of this job may already be where the old ladder and the history sent the others.
        seen = old.locations(tuple(ran.location for ran in state.all_jobs))
        done = submission.submit(new, due.attempt, place, seen)
        followed = waiting.followed(new, done, place, attempt=due.attempt, history=(*state.history, state.ended_attempt()))
        return UpdateResult(followed.outputs(news))

    @reported_cleanly
    def delete(self, id_: str, props: dict[str, Any]) -> None:
        """Carries out `decision.plan_delete` (what destroy does with each `onDelete` is decided there)."""
        job = JobInputs.of(props)
        planned = verdict.plan_delete(JobState.of(props, id_), job)
        _report_to_stderr()
        from components.spot_job.client import job_service
        from components.spot_job.protocol import stopping, submission

        service = job_service.JobService(planned.job.location, job.quotas)
        # Cancelled at once; waited on only if the host can spare the thread (see stopping).
        stopped = (
            stopping.stop(service, planned.job, planned.timeout, planned.on_delete, planned.label, planned.scope)
            if planned.cancel
            else None
        )
        found = planned.copies
        copies = submission.cancel_copies(job, found.keys, found.regions, spare=found.spare)
        if copies and planned.delete_record:
            log.warning(
                "%s: the records of the %d cancelled cop(ies) stay in Vertex while they stop; once they have, `%s` "
                "deletes them",
                planned.label, len(copies), stopping.sweep_command(planned.scope),
            )
        if planned.delete_record and stopped is stopping.Outcome.STOPPED:  # ended, as just seen: no second look
            service.delete_record(str(planned.job), planned.timeout)
        for past in planned.past_records:
            job_service.JobService(past.location, job.quotas).delete(str(past), planned.timeout)


def _marked(value: Any) -> Any:
    """`value` with each unknown the host hands over (a `pulumi.output.Unknown`: it deserializes
    Check's and Diff's props keeping unknowns) written as the one marker the pure modules compare
    with, `rpc.UNKNOWN`."""
    if isinstance(value, Unknown):
        return rpc.UNKNOWN
    if isinstance(value, dict):
        return {key: _marked(item) for key, item in value.items()}
    if isinstance(value, list):
        return [_marked(item) for item in value]
    return value


def _import_vertex() -> None:
    try:
        for module in ("client.job_service", "protocol.submission", "protocol.stopping", "protocol.waiting"):
            importlib.import_module(f"{__package__}.{module}")
    except Exception:  # noqa: BLE001 - the method that needs it imports it again and reports the error
        pass


def _report_to_stderr() -> None:
    reporting.to_stderr()  # what the host writes to stderr is what `pulumi up` shows
