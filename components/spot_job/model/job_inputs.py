"""The typed view of a SpotTrainingJob's inputs: read once from the engine's props, at the provider's entry points.

The engine hands the provider a bag of props. `JobInputs.of(props)` reads it
once: where the job runs, its canonical job definition (spec.job_definition,
what `diff` compares and the submission key hashes), and every knob as the
type it means (`waitFor` an Enum, `waitTimeout` seconds, the resubmission
policy and its fallback ladder as records). Everything past the entry points
(the decision, the resubmission policy, the protocol, waiting and stopping)
takes this and the state (resource_state.JobState), never the props.

`props` stays on the record for two readers only: the outputs written back
beside the inputs (job_state.outputs) and redaction, which must see every
value at a secret path to scrub it from a line.

Stored state is read leniently: a knob written by an older version, or one a
preview does not know yet (`unknown`), reads as its default, and
`policy.known` says whether `resubmission` was known. New inputs are checked
(spec.validate) before this is made of them, so a user never meets the
leniency. Pure: no Pulumi, no Google client.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, TypeVar

from components.spot_job.model import defaults, progress, redaction, spec, values
from components.spot_job.model.defaults import OnDelete, ReplaceOrder, WaitFor, Word
from components.spot_job.model.submission_key import submission_key_of

NOT_GIVEN: Any = object()  # `unknown` when every value is known (outside a preview)

_W = TypeVar("_W", bound=Word)


@dataclass(frozen=True)
class Rung:
    """One rung of `resubmission.fallback`: from `after_stockouts` STOCKOUT failures on, run on
    `strategy` (or as before), in `location` with `kms_key_name` (or where it was)."""

    index: int
    after_stockouts: int
    strategy: str | None
    location: str | None
    kms_key_name: str | None


@dataclass(frozen=True)
class Policy:
    """`resubmission`: what `up` does with a job that ended FAILED (decision/resubmission_policy.py)."""

    max_resubmissions: int = defaults.DEFAULT_MAX_RESUBMISSIONS
    on_other_failures: bool = False
    stop_without_progress: int = progress.DEFAULT_STOP_WITHOUT_PROGRESS
    fallback: tuple[Rung, ...] = ()
    known: bool = True  # False in a preview where `resubmission` holds a value not known yet


@dataclass(frozen=True)
class Mirror:
    """An image mirror: an image under `source` pulls from `target` instead when the job runs in `location`."""

    location: str
    source: str
    target: str


@dataclass(frozen=True)
class JobInputs:
    """A job's inputs, read once."""

    props: Mapping[str, Any]  # as the engine gave them: stored back unchanged beside the outputs
    project: str
    location: str  # the job's own region, its home
    label: str  # how lines name the job: its displayName
    definition: Mapping[str, Any]  # spec.job_definition: the canonical job-defining inputs
    strategy: str  # the spec's own scheduling strategy
    kms_key_name: str | None  # the spec's own CMEK key
    output_dir: str | None  # jobSpec.baseOutputDirectory.outputUriPrefix
    scope: str  # submissionScope: project/stack/resource
    adopt: str | None  # a job started outside the stack, to adopt instead of submitting
    wait_for: WaitFor
    wait_timeout: float  # seconds
    on_delete: OnDelete
    delete_timeout: float  # seconds
    replace_order: ReplaceOrder
    quotas: Mapping[str, Any] | None
    mirrors: tuple[Mirror, ...]
    policy: Policy
    secret_paths: tuple[str, ...]  # the paths its `secretPaths` declares: values never shown
    knobs: Mapping[str, Any]  # each KNOB_FIELDS value as given: what `diff` compares
    triggers: Mapping[str, Any]  # each TRIGGER_FIELDS value as given (`rerun`)
    flex_start_fits: bool  # whether the spec may run on FLEX_START (a fallback rung's `auto`)
    # The regions a job of this resource may be in, each once: its own location first, then each
    # region its ladder names, in ladder order. Where its attempts ran (its state says) may add
    # more: a ladder since changed may have moved one elsewhere (`locations`).
    regions: tuple[str, ...]
    unknown: Any = NOT_GIVEN  # the marker of a value a preview does not know yet, as read

    @classmethod
    def of(cls, props: Mapping[str, Any], unknown: Any = NOT_GIVEN) -> JobInputs:
        """The inputs in the engine's props. `unknown`: the marker of a value a preview does not know yet."""
        job_spec = _map(props.get("jobSpec"))
        policy = _policy(props.get("resubmission"), unknown)
        return cls(
            props=props,
            project=_text(props.get("project")),
            location=_text(props.get("location")),
            label=_text(props.get("displayName")),
            definition=spec.job_definition(dict(props)),
            strategy=_text(_map(job_spec.get("scheduling")).get("strategy")) or defaults.DEFAULT_STRATEGY,
            kms_key_name=_text(_map(props.get("encryptionSpec")).get("kmsKeyName")) or None,
            output_dir=progress.output_dir(props) or None,
            scope=_text(props.get("submissionScope")),
            adopt=_text(props.get("adopt")) or None,
            wait_for=_word(WaitFor, props.get("waitFor"), WaitFor(defaults.DEFAULT_WAIT_FOR)),
            wait_timeout=_seconds(props.get("waitTimeout"), defaults.DEFAULT_WAIT_TIMEOUT),
            on_delete=_word(OnDelete, props.get("onDelete"), OnDelete(defaults.DEFAULT_ON_DELETE)),
            delete_timeout=_seconds(props.get("deleteTimeout"), defaults.DEFAULT_DELETE_TIMEOUT),
            replace_order=_word(ReplaceOrder, props.get("replaceOrder"), ReplaceOrder(defaults.DEFAULT_REPLACE_ORDER)),
            quotas=props.get("quotas") if isinstance(props.get("quotas"), Mapping) else None,
            mirrors=tuple(_mirrors(props.get("imageMirrors"))),
            policy=policy,
            secret_paths=tuple(redaction.paths(props)),
            knobs={key: props.get(key) for key in spec.KNOB_FIELDS},
            triggers={key: props.get(key) for key in spec.TRIGGER_FIELDS},
            flex_start_fits=any(r.strategy == "auto" for r in policy.fallback) and _flex_start_fits(props),
            regions=_regions(_text(props.get("location")), policy.fallback),
            unknown=unknown,
        )

    def submission_key(self, attempt: int = 1) -> str:
        """The label value of the `attempt`-th submission (spec.submission_key, from the definition read once)."""
        return submission_key_of(self.props.get("submissionScope", ""), self.definition, self.triggers.get("rerun"), attempt)

    def locations(self, ran_in: tuple[str, ...] = ()) -> tuple[str, ...]:
        """`regions`, then `ran_in` (where its attempts ran, as its state says), each once. The one
        answer to "where may a job of this resource be", for the protocol, the provider, the CLI and
        the sweep."""
        return tuple(dict.fromkeys((*self.regions, *(loc for loc in ran_in if loc))))


def _regions(home: str, fallback: tuple[Rung, ...]) -> tuple[str, ...]:
    found = (home, *(r.location for r in fallback if r.location))
    return tuple(loc for loc in dict.fromkeys(found) if loc)


def _policy(value: Any, unknown: Any) -> Policy:
    if _holds(value, unknown):
        return Policy(known=False)
    given = _map(value)
    rungs = [
        Rung(
            index=i,
            after_stockouts=_whole(rung.get("afterStockouts"), 0),
            strategy=_text(rung.get("strategy")) or None,
            location=_text(rung.get("location")) or None,
            kms_key_name=_text(rung.get("kmsKeyName")) or None,
        )
        for i, rung in enumerate(given.get("fallback") or [])
        if isinstance(rung, Mapping)
    ]
    return Policy(
        max_resubmissions=_whole(given.get("maxResubmissions"), defaults.DEFAULT_MAX_RESUBMISSIONS),
        on_other_failures=bool(given.get("onOtherFailures")),
        stop_without_progress=_whole(given.get("stopWithoutProgress"), progress.DEFAULT_STOP_WITHOUT_PROGRESS),
        fallback=tuple(rungs),
    )


def _mirrors(value: Any) -> list[Mirror]:
    found = []
    for mirror in value if isinstance(value, list) else []:
        if isinstance(mirror, Mapping) and mirror.get("location") and mirror.get("from") and mirror.get("to"):
            found.append(Mirror(str(mirror["location"]), str(mirror["from"]), str(mirror["to"])))
    return found


def _flex_start_fits(props: Mapping[str, Any]) -> bool:
    from components.spot_job.rules import flex_start

    return flex_start.qualifies(dict(props))


def _holds(value: Any, unknown: Any) -> bool:
    """Whether `value` is, or holds, the preview's marker of a value not known yet."""
    if unknown is NOT_GIVEN:
        return False
    if isinstance(value, str):
        return bool(value == unknown)
    if isinstance(value, Mapping):
        return any(_holds(v, unknown) for v in value.values())
    if isinstance(value, list):
        return any(_holds(v, unknown) for v in value)
    return False


def _word(kind: type[_W], value: Any, default: _W) -> _W:
    try:
        return kind(value) if value else default
    except ValueError:  # an unknown, or a word an older version stored: as if unset
        return default


def _seconds(value: Any, default: str) -> float:
    return values.duration_seconds(value) if values.is_duration(value) else values.duration_seconds(default)


def _whole(value: Any, default: int) -> int:
    # The one coercion `check` validated with: 1, 1.0 (Pulumi's wire format carries every
    # number as a double) and "1" (as YAML or REST may write it).
    number = values.as_int(value)
    return default if number is None else number


def _map(value: Any) -> Mapping[str, Any]:
    return value if isinstance(value, Mapping) else {}


def _text(value: Any) -> str:
    return value if isinstance(value, str) else ""
