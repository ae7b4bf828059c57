"""References to other resources: the output directory, the service account,
the VPC network, the TensorBoard (which must be in the job's location) and the
Experiment.

googleapis/googleapis google/cloud/aiplatform/v1/custom_job.proto
(f8291d2b89f0017ab078a4c7378069bae5686f6f): CustomJobSpec.network
"projects/{project}/global/networks/{network}. Where {project} is a project
number, as in `12345`".
googleapis/python-aiplatform google/cloud/aiplatform/jobs.py
(91cc8ce4f015771b5d8c43c8764ea9dc9abdb216), CustomJob.run: "'experiment' and
'tensorboard' cannot be set together"; "`service_account` is required with
provided `experiment`" and "with provided `tensorboard`"; experiment_run "can
only be set when `experiment` is set".
https://cloud.google.com/vertex-ai/docs/reference/rest/v1/CustomJobSpec
https://cloud.google.com/vertex-ai/docs/experiments/tensorboard-training
"""

from __future__ import annotations

import re

from components.spot_job.rules.known import Fail, Known

GCS_URI = re.compile(r"^gs://[a-z0-9][a-z0-9._-]{1,220}[a-z0-9](/.*)?$")
NETWORK = re.compile(r"^projects/([^/]+)/global/networks/[^/]+$")
PROJECT_NUMBER = re.compile(r"^\d+$")
TENSORBOARD = re.compile(r"^projects/[^/]+/locations/([^/]+)/tensorboards/[^/]+$")
EMAIL = re.compile(r"^[^@\s]+@[^@\s]+\.[^@\s]+$")


def references(k: Known, fail: Fail) -> None:
    spec = k.spec()
    output = k.get(spec, "baseOutputDirectory", dict)
    if output is not None:
        prefix = k.text(output, "outputUriPrefix")
        if prefix is None and not k.has(output, "outputUriPrefix"):
            fail("jobSpec.baseOutputDirectory.outputUriPrefix", "is required when baseOutputDirectory is set")
        elif prefix is not None and not GCS_URI.match(prefix):
            fail("jobSpec.baseOutputDirectory.outputUriPrefix", f"must be a gs:// URI, got {prefix!r}")
    account = k.text(spec, "serviceAccount")
    if account is not None and not EMAIL.match(account):
        fail("jobSpec.serviceAccount", f"must be a service account email, got {account!r}")
    network = k.text(spec, "network")
    match = NETWORK.match(network) if network is not None else None
    if network is not None and match is None:
        fail("jobSpec.network", "must look like projects/PROJECT_NUMBER/global/networks/NETWORK")
    elif match is not None and not PROJECT_NUMBER.match(match.group(1)):
        fail(
            "jobSpec.network",
            f"names the project {match.group(1)!r}; Vertex AI takes the project's number here "
            "(projects/123456789012/global/networks/NETWORK; `gcloud projects describe PROJECT` shows it)",
        )
    board = k.text(spec, "tensorboard")
    if board is not None and not TENSORBOARD.match(board):
        fail("jobSpec.tensorboard", "must look like projects/P/locations/L/tensorboards/T")
    # A TensorBoard in another region than the job is not refused: no source
    # says Vertex does (the pack's job-spec-advice warns).


def experiment(k: Known, fail: Fail) -> None:
    """An Experiment or a TensorBoard, as the SDK's CustomJob.run allows them."""
    spec = k.spec()
    experiment, board = k.has(spec, "experiment"), k.has(spec, "tensorboard")
    if experiment and board:
        fail(
            "jobSpec.experiment",
            "cannot be set together with tensorboard: an Experiment logs to its own backing TensorBoard; drop one",
        )
    if k.has(spec, "experimentRun") and not experiment:
        fail("jobSpec.experimentRun", "can only be set with jobSpec.experiment, the Experiment the run belongs to")
    if (experiment or board) and not k.has(spec, "serviceAccount") and not k.is_unknown(spec.get("serviceAccount")):
        field = "experiment" if experiment else "tensorboard"
        fail(
            "jobSpec.serviceAccount",
            f"is required with jobSpec.{field}: the job writes to it as this service account "
            "(https://cloud.google.com/vertex-ai/docs/experiments/tensorboard-training)",
        )
