"""SpotTrainingJob: a Vertex AI CustomJob on Spot VMs as a Pulumi resource."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Mapping, Optional, Union

import pulumi
import pulumi.dynamic

from .provider import SpotTrainingJobProvider
from .typed_spec import JobSpec


@dataclass
class SpotTrainingJobArgs:
    """The job: its spec, typed (JobSpec) or REST-shaped (the `jobSpec` of Google's docs)."""

    job_spec: pulumi.Input[Union[JobSpec, Mapping[str, Any]]]
    project: Optional[pulumi.Input[str]] = None  # default: gcp:project
    location: Optional[pulumi.Input[str]] = None  # default: gcp:region
    display_name: Optional[pulumi.Input[str]] = None  # default: the resource's name
    labels: Optional[pulumi.Input[Mapping[str, pulumi.Input[str]]]] = None
    kms_key_name: Optional[pulumi.Input[str]] = None  # CMEK: the job's encryptionSpec
    delete_timeout: Optional[str] = None  # how long delete waits for a cancelled job, e.g. "900s"

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

    Its id is the job's full name, projects/P/locations/L/customJobs/ID. Any
    change to what defines the job resubmits it (a CustomJob is immutable);
    `delete_timeout` changes in place.
    """

    jobId: pulumi.Output[str]
    state: pulumi.Output[str]
    createTime: pulumi.Output[str]
    startTime: pulumi.Output[Optional[str]]
    endTime: pulumi.Output[Optional[str]]
    updateTime: pulumi.Output[str]
    error: pulumi.Output[Optional[dict]]
    consoleUrl: pulumi.Output[str]
    submissionKey: pulumi.Output[str]

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
            "deleteTimeout": args.delete_timeout,
            # What makes the submission key unique to this resource of this stack.
            "submissionScope": f"{pulumi.get_project()}/{pulumi.get_stack()}/{name}",
        }
        props.update(dict.fromkeys(SpotTrainingJob.__annotations__))
        super().__init__(SpotTrainingJobProvider(), name, props, opts)
