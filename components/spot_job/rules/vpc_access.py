"""jobSpec.network and jobSpec.pscInterfaceConfig: a job reaches a VPC one way.

Google's pipeline components for Vertex, kubeflow/pipelines
components/google-cloud/google_cloud_pipeline_components/v1/custom_job/utils.py
(7b70c7b95f6832772efd6fd0029a4024491a0f44, create_custom_training_job_from_component)
raise "`network` and `psc_interface_config` field cannot be set at the same
time." before a job is built (commit fdb67cfe, "enforce mutual exclusivity
between `network` and `psc_interface_config` in custom job spec"). VPC Network
Peering (network, with its reservedIpRanges) and a Private Service Connect
interface (pscInterfaceConfig) are the two ways custom_job.proto offers. No
page of Google's says the API itself refuses both; Google's own client does,
so this project does too, by the field's path, rather than submit a job
Google's tooling never builds.
https://cloud.google.com/vertex-ai/docs/general/vpc-peering
https://cloud.google.com/vertex-ai/docs/training/psc-i-egress
"""

from __future__ import annotations

from .known import Fail, Known


def one_way_in(k: Known, fail: Fail) -> None:
    spec = k.spec()
    network = k.text(spec, "network")
    psc = k.get(spec, "pscInterfaceConfig", dict)
    if network is not None and psc is not None:
        fail(
            "jobSpec.pscInterfaceConfig",
            f"is set together with network ({network}); Google's own pipeline components refuse a custom job with "
            "both (\"cannot be set at the same time\"): reach the VPC by peering (network) or by a Private Service "
            "Connect interface (pscInterfaceConfig), not both; remove one",
        )
