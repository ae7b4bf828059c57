"""SpotTrainingJob: a Vertex AI CustomJob on Spot VMs as a Pulumi resource."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Mapping, Optional, Union

import pulumi
import pulumi.dynamic

from . import property_paths
from .provider import SpotTrainingJobProvider
from .typed_spec import JobSpec, ResubmissionPolicy


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
        job_spec = args.job_spec.to_rest() if isinstance(args.job_spec, JobSpec) else args.job_spec
        props: dict[str, Any] = {
            "project": args.project or gcp.get("project"),
            "location": args.location or gcp.get("region"),
            "displayName": args.display_name or name,
            "labels": args.labels,
            "encryptionSpec": {"kmsKeyName": args.kms_key_name} if args.kms_key_name else None,
            "jobSpec": job_spec,
            "rerun": args.rerun,
            "resubmission": args.resubmission.to_rest()
            if isinstance(args.resubmission, ResubmissionPolicy)
            else args.resubmission,
            "waitFor": args.wait_for,
            "waitTimeout": args.wait_timeout,
            "onDelete": args.on_delete,
            "deleteTimeout": args.delete_timeout,
            "replaceOrder": args.replace_order,
            # What makes the submission key unique to this resource of this stack.
            "submissionScope": f"{pulumi.get_project()}/{pulumi.get_stack()}/{name}",
        }
        # The provider host takes no secrets: the engine hands it plain values.
        # This tells it which were secret, so it never logs them.
        props["secretPaths"] = pulumi.Output.from_input(_secret_paths(dict(props)))
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
