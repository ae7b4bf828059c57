"""References to other resources: the output directory, the service account,
the VPC network and the TensorBoard (which must be in the job's location).
https://cloud.google.com/vertex-ai/docs/reference/rest/v1/CustomJobSpec
"""

from __future__ import annotations

import re

from .known import Fail, Known

GCS_URI = re.compile(r"^gs://[a-z0-9][a-z0-9._-]{1,220}[a-z0-9](/.*)?$")
NETWORK = re.compile(r"^projects/[^/]+/global/networks/[^/]+$")
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
    if network is not None and not NETWORK.match(network):
        fail("jobSpec.network", "must look like projects/PROJECT_NUMBER/global/networks/NETWORK")
    board = k.text(spec, "tensorboard")
    if board is not None:
        match = TENSORBOARD.match(board)
        if not match:
            fail("jobSpec.tensorboard", "must look like projects/P/locations/L/tensorboards/T")
        elif (location := k.text(k.inputs, "location")) and match.group(1) != location:
            fail("jobSpec.tensorboard", f"the TensorBoard is in {match.group(1)!r}, the job in {location!r}")
