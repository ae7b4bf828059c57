"""SpotTrainingJob: a Vertex AI CustomJob on Spot VMs as a Pulumi resource."""

from __future__ import annotations

import asyncio
import dataclasses
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import pulumi
import pulumi.dynamic

from components.spot_job.model import property_paths
from components.spot_job.model.typed_spec import JobSpec, ResubmissionPolicy
from components.spot_job.provider import SpotTrainingJobProvider

# Where a value sits in the inputs: ("jobSpec", "workerPoolSpecs", 0, ...).
Path = tuple[property_paths.Part, ...]


@dataclass
class SpotTrainingJobArgs:
    """The job: its spec, typed (JobSpec) or REST-shaped (the `jobSpec` of Google's docs)."""

    job_spec: pulumi.Input[JobSpec | Mapping[str, Any]]
    project: pulumi.Input[str] | None = None  # default: gcp:project
    location: pulumi.Input[str] | None = None  # default: gcp:region
    display_name: pulumi.Input[str] | None = None  # default: the resource's name
    labels: pulumi.Input[Mapping[str, pulumi.Input[str]]] | None = None
    kms_key_name: pulumi.Input[str] | None = None  # CMEK: the job's encryptionSpec
    # What the provider does around the job (README: "When a Spot job is preempted").
    rerun: pulumi.Input[str] | None = None  # change it to submit an unchanged spec again
    resubmission: pulumi.Input[ResubmissionPolicy | Mapping[str, Any]] | None = None
    wait_for: str | None = None  # none (default), running or succeeded
    wait_timeout: str | None = None  # e.g. "600s"; at most "1800s"
    on_delete: str | None = None  # delete (default), cancel or keep
    delete_timeout: str | None = None  # how long delete waits for a cancelled job, e.g. "900s"
    replace_order: str | None = None  # cancelFirst (default) or submitFirst
    # Vertex AI's per-region request quotas the provider paces to, for a project whose quotas
    # were raised: {"submissionsPerMinute": 60, "callsPerMinute": 600} (the defaults).
    quotas: Mapping[str, int] | None = None
    # Where an attempt in another region pulls its images from: [{location, from, to}], URL
    # prefixes; an image URI starting with `from` is submitted starting with `to` in `location`
    # (the team's replica repositories, ContainerRepository.mirrors).
    image_mirrors: pulumi.Input[list[Mapping[str, pulumi.Input[str]]]] | None = None
    # The full name of a CustomJob started outside the stack (gcloud, the SDK) that the resource adopts,
    # checked against the spec, instead of submitting one (adoption.py). The resource option `import_`
    # on a SpotTrainingJob means the same.
    adopt: pulumi.Input[str] | None = None

    def inputs(self, project: Any, location: Any, display_name: Any) -> dict[str, Any]:
        """The resource's inputs, with these defaults for the unset ones."""
        return {
            "project": self.project or project,
            "location": self.location or location,
            "displayName": self.display_name or display_name,
            "labels": self.labels,
            "encryptionSpec": {"kmsKeyName": self.kms_key_name} if self.kms_key_name else None,
            "jobSpec": self.job_spec.to_rest() if isinstance(self.job_spec, JobSpec) else self.job_spec,
            "rerun": self.rerun,
            "resubmission": self.resubmission.to_rest()
            if isinstance(self.resubmission, ResubmissionPolicy)
            else self.resubmission,
            "waitFor": self.wait_for,
            "waitTimeout": self.wait_timeout,
            "onDelete": self.on_delete,
            "deleteTimeout": self.delete_timeout,
            "replaceOrder": self.replace_order,
            "quotas": self.quotas,
            "imageMirrors": self.image_mirrors,
            "adopt": self.adopt,
        }

    @staticmethod
    def from_custom_job(body: Mapping[str, Any], **overrides: Any) -> SpotTrainingJobArgs:
        """From a CustomJob REST body: displayName, labels, encryptionSpec, jobSpec."""
        # A body without a jobSpec passes None on: the provider's check names the missing field.
        job_spec: Any = body.get("jobSpec")
        return SpotTrainingJobArgs(
            job_spec=job_spec,
            display_name=body.get("displayName"),
            labels=body.get("labels"),
            kms_key_name=(body.get("encryptionSpec") or {}).get("kmsKeyName"),
            **overrides,
        )


class SpotTrainingJob(pulumi.dynamic.Resource, module="spot-training", name="SpotTrainingJob"):
    """A CustomJob submitted to Vertex AI, by default with `scheduling.strategy: SPOT`.

    Its id is the full name of the job first submitted for its spec,
    projects/P/locations/L/customJobs/ID; `jobName` is the attempt now current
    (they differ once a failed job was resubmitted). Any change to what defines
    the job, or to `rerun`, submits it again (a CustomJob is immutable); the
    other knobs change in place.
    """

    # The outputs, declared as the SDK's getter properties (as pulumi_gcp declares
    # its own): the SDK resolves a class's getter types once (functools.cache),
    # whereas class annotations it resolves with typing.get_type_hints again at
    # every registration, which was about a tenth of a 1,000-job render.

    @property
    @pulumi.getter(name="jobName")
    def jobName(self) -> pulumi.Output[str]:
        """The full name of the attempt now current: `id` until a failed job is resubmitted."""
        return _output(self, "jobName")

    @property
    @pulumi.getter(name="jobId")
    def jobId(self) -> pulumi.Output[str]:
        """The numeric id of the current attempt's CustomJob."""
        return _output(self, "jobId")

    @property
    @pulumi.getter(name="state")
    def state(self) -> pulumi.Output[str]:
        """The job's state as Vertex reports it, e.g. JOB_STATE_RUNNING."""
        return _output(self, "state")

    @property
    @pulumi.getter(name="createTime")
    def createTime(self) -> pulumi.Output[str]:
        """When the current attempt was submitted (RFC 3339)."""
        return _output(self, "createTime")

    @property
    @pulumi.getter(name="startTime")
    def startTime(self) -> pulumi.Output[str | None]:
        """When it started running; unset while it is queued."""
        return _output(self, "startTime")

    @property
    @pulumi.getter(name="endTime")
    def endTime(self) -> pulumi.Output[str | None]:
        """When it ended; unset while it is active."""
        return _output(self, "endTime")

    @property
    @pulumi.getter(name="updateTime")
    def updateTime(self) -> pulumi.Output[str]:
        """When Vertex last changed the job."""
        return _output(self, "updateTime")

    @property
    @pulumi.getter(name="error")
    def error(self) -> pulumi.Output[dict[str, Any] | None]:
        """The job's error (code, message) if it failed, else unset."""
        return _output(self, "error")

    @property
    @pulumi.getter(name="consoleUrl")
    def consoleUrl(self) -> pulumi.Output[str]:
        """The job's page in the Google Cloud console."""
        return _output(self, "consoleUrl")

    @property
    @pulumi.getter(name="submissionKey")
    def submissionKey(self) -> pulumi.Output[str]:
        """The label value that makes the submission exactly-once."""
        return _output(self, "submissionKey")

    @property
    @pulumi.getter(name="strategy")
    def strategy(self) -> pulumi.Output[str]:
        """The attempt's scheduling strategy, after any fallback."""
        return _output(self, "strategy")

    @property
    @pulumi.getter(name="attempt")
    def attempt(self) -> pulumi.Output[int]:
        """1 for the first submission, +1 per resubmission."""
        return _output(self, "attempt")

    @property
    @pulumi.getter(name="history")
    def history(self) -> pulumi.Output[list[dict[str, Any]]]:
        """The attempts before this one: jobId, state, strategy, error."""
        return _output(self, "history")

    def __init__(self, name: str, args: SpotTrainingJobArgs, opts: pulumi.ResourceOptions | None = None) -> None:
        if opts is not None and opts.import_:
            # The engine's import reads a resource with its id alone, and the dynamic provider host
            # cannot serve a read without the resource's `__provider` (a KeyError in the SDK's host,
            # seen under the CLI v3.274.0): the provider's create adopts the job instead.
            args = dataclasses.replace(args, adopt=opts.import_)
            opts = pulumi.ResourceOptions.merge(opts, pulumi.ResourceOptions())
            opts.import_ = None
        gcp = pulumi.Config("gcp")
        props: dict[str, Any] = {
            **args.inputs(project=gcp.get("project"), location=gcp.get("region"), display_name=name),
            # What makes the submission key unique to this resource of this stack.
            "submissionScope": f"{pulumi.get_project()}/{pulumi.get_stack()}/{name}",
        }
        # The provider host takes no secrets: the engine hands it plain values.
        # This tells it which were secret, so it never logs them. Only an Output can be
        # secret: a job with none registers no `secretPaths` (nor makes an Output for it),
        # and one with some makes a single Output, holding the Outputs found and their paths
        # rather than a copy of the inputs (Output.from_input of a coroutine made three).
        if found := _outputs(props, ()):
            props["secretPaths"] = pulumi.Output(set(), asyncio.ensure_future(_secret_paths(found)), _known())
        # An unset input is left out: the SDK registers no None value anyway, but would make
        # an Output (and its futures and tasks) for every key; the outputs need theirs.
        props = {key: value for key, value in props.items() if value is not None}
        props.update(dict.fromkeys(OUTPUTS))
        super().__init__(SpotTrainingJobProvider(), name, props, opts)
        _untrack(self, props)


def _untrack(resource: pulumi.Resource, props: Mapping[str, Any]) -> None:
    """Takes the resource's own property Outputs off the SDK's list of Outputs a program waits for at its end.

    Why: after the program returns, the SDK waits for every Output it tracks, with one
    `asyncio.wait(FIRST_COMPLETED)` over all those still pending each time one completes: a cost
    of the pending Outputs times the completions, quadratic in the jobs of a stack. A job has an
    Output per input and per declared output, 21 against a bare dynamic resource's 7, and its
    program's event loop, which sends the registrations, spent most of its time in those waits.

    Why nothing is lost: these Outputs resolve when the job's registration returns, and that
    call is itself awaited (the SDK's RPC manager), carrying any failure of the registration; a
    use of one (`apply`, `export`, an input of another resource) makes an Output, or a call,
    of its own that is tracked. It is what the SDK's own `apply` does to the Output it derives
    from (`Output._untrack`, a private method of the SDK this project locks, 3.272); the callback
    that marks a failure retrieved stays on. With an SDK without it, nothing is untracked.
    """
    for name in props:
        output = resource.__dict__.get(name)
        untrack = getattr(output, "_untrack", None)
        if isinstance(output, pulumi.Output) and callable(untrack):
            untrack()


def _output(resource: pulumi.Resource, name: str) -> pulumi.Output[Any]:
    """An output property; the getter's annotation says what it holds (`pulumi.get` returns Any)."""
    output: pulumi.Output[Any] = pulumi.get(resource, name)
    return output


async def _secret_paths(outputs: list[tuple[Path, pulumi.Output[Any]]]) -> list[str] | None:
    """The paths of those `outputs` (path in the inputs, Output) that are `pulumi.Output.secret(...)`; None if there is none.

    None, not [], so a job without secrets registers no `secretPaths` at all.
    """
    found: list[str] = []
    for path, value in outputs:
        if await value.is_secret():
            found.append(property_paths.join(path))
    return found or None


async def _known() -> bool:
    """`secretPaths` is always known (whether an Output is secret is known even when its value is not)."""
    return True


def _outputs(value: Any, path: Path) -> list[tuple[Path, pulumi.Output[Any]]]:
    if isinstance(value, pulumi.Output):
        return [(path, value)]
    if isinstance(value, Mapping):
        return [found for key, item in value.items() for found in _outputs(item, (*path, key))]
    if isinstance(value, (list, tuple)):
        return [found for i, item in enumerate(value) for found in _outputs(item, (*path, i))]
    return []


# The output names, registered as unset inputs so that the SDK makes an Output for each.
OUTPUTS = tuple(name for name, value in vars(SpotTrainingJob).items() if isinstance(value, property))
