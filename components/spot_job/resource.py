"""SpotTrainingJob: a Vertex AI CustomJob on Spot VMs as a Pulumi resource."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Mapping, Optional, Union

import pulumi
import pulumi.dynamic

from . import property_paths
from .provider import SpotTrainingJobProvider
from .typed_spec import UNKNOWN, JobSpec, ResubmissionPolicy, require_valid


@dataclass
class SpotTrainingJobArgs:
    """The job: its spec, typed (JobSpec) or REST-shaped (the `jobSpec` of Google's docs)."""

    job_spec: pulumi.Input[Union[JobSpec, Mapping[str, Any]]]
    project: Optional[pulumi.Input[str]] = None  # default: gcp:project
    location: Optional[pulumi.Input[str]] = None  # default: gcp:region
    display_name: Optional[pulumi.Input[str]] = None  # default: the resource's name
    labels: Optional[pulumi.Input[Mapping[str, pulumi.Input[str]]]] = None
    kms_key_name: Optional[pulumi.Input[str]] = None  # CMEK: the job's encryptionSpec
    # What the provider does around the job (README: "When a Spot job is preempted").
    rerun: Optional[pulumi.Input[str]] = None  # change it to submit an unchanged spec again
    resubmission: Optional[pulumi.Input[Union[ResubmissionPolicy, Mapping[str, Any]]]] = None
    wait_for: Optional[str] = None  # none (default), running or succeeded
    wait_timeout: Optional[str] = None  # e.g. "600s"; at most "1800s"
    on_delete: Optional[str] = None  # delete (default), cancel or keep
    delete_timeout: Optional[str] = None  # how long delete waits for a cancelled job, e.g. "900s"
    replace_order: Optional[str] = None  # cancelFirst (default) or submitFirst
    # Vertex AI's per-region request quotas the provider paces to, for a project whose quotas
    # were raised: {"submissionsPerMinute": 60, "callsPerMinute": 600} (the defaults).
    quotas: Optional[Mapping[str, int]] = None

    def __post_init__(self) -> None:
        # spec.validate's rules at construction, naming the field; the defaults still to come
        # (project, location, display name) and Pulumi Outputs are unknown here and skipped.
        require_valid(self.inputs(project=UNKNOWN, location=UNKNOWN, display_name=UNKNOWN), "SpotTrainingJobArgs")

    def inputs(self, project: Any, location: Any, display_name: Any) -> dict[str, Any]:
        """The resource's inputs that spec.validate checks, with these defaults for the unset ones."""
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
        }

    @staticmethod
    def from_custom_job(body: Mapping[str, Any], **overrides: Any) -> "SpotTrainingJobArgs":
        """From a CustomJob REST body: displayName, labels, encryptionSpec, jobSpec."""
        return SpotTrainingJobArgs(
            job_spec=body.get("jobSpec"),
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

    jobName: pulumi.Output[str]
    jobId: pulumi.Output[str]
    state: pulumi.Output[str]
    createTime: pulumi.Output[str]
    startTime: pulumi.Output[Optional[str]]
    endTime: pulumi.Output[Optional[str]]
    updateTime: pulumi.Output[str]
    error: pulumi.Output[Optional[dict]]
    consoleUrl: pulumi.Output[str]
    submissionKey: pulumi.Output[str]
    strategy: pulumi.Output[str]  # the attempt's scheduling strategy, after any fallback
    attempt: pulumi.Output[int]  # 1 for the first submission, +1 per resubmission
    history: pulumi.Output[list]  # the attempts before this one: jobId, state, strategy, error

    def __init__(self, name: str, args: SpotTrainingJobArgs, opts: Optional[pulumi.ResourceOptions] = None) -> None:
        gcp = pulumi.Config("gcp")
        props: dict[str, Any] = {
            **args.inputs(project=gcp.get("project"), location=gcp.get("region"), display_name=name),
            # What makes the submission key unique to this resource of this stack.
            "submissionScope": f"{pulumi.get_project()}/{pulumi.get_stack()}/{name}",
        }
        # The provider host takes no secrets: the engine hands it plain values.
        # This tells it which were secret, so it never logs them.
        props["secretPaths"] = pulumi.Output.from_input(_secret_paths(dict(props)))
        # With the defaults filled in (gcp:project, gcp:region, the name), before anything is registered.
        require_valid(props, f"SpotTrainingJob {name!r}")
        props.update(dict.fromkeys(SpotTrainingJob.__annotations__))
        super().__init__(SpotTrainingJobProvider(), name, props, opts)


async def _secret_paths(props: dict[str, Any]) -> Optional[list[str]]:
    """The paths of the values in `props` that are `pulumi.Output.secret(...)`; None if there is none.

    None, not [], so a job without secrets registers no `secretPaths` at all.
    """
    found = []
    for path, value in _outputs(props, ()):
        if await value.is_secret():
            found.append(property_paths.join(path))
    return found or None


def _outputs(value: Any, path: tuple) -> list[tuple[tuple, pulumi.Output]]:
    if isinstance(value, pulumi.Output):
        return [(path, value)]
    if isinstance(value, Mapping):
        return [found for key, item in value.items() for found in _outputs(item, (*path, key))]
    if isinstance(value, (list, tuple)):
        return [found for i, item in enumerate(value) for found in _outputs(item, (*path, i))]
    return []
