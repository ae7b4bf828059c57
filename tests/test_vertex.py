"""The Vertex adapter's own promises: where it connects, and what a refusal tells the user."""

import pytest
from google.api_core import exceptions

from components.spot_job.client import job_service


def test_without_the_emulator_variable_the_client_calls_the_regional_endpoint(monkeypatch):
    monkeypatch.delenv(job_service.EMULATOR_HOST_ENV, raising=False)

    from google.auth import credentials

    # Stand-in credentials: building the client must not need real ones or the network.
    monkeypatch.setattr("google.auth.default", lambda *a, **k: (credentials.AnonymousCredentials(), "acme-ml-dev"))
    client = job_service.job_service_client("europe-west4")
    assert client.api_endpoint == "europe-west4-aiplatform.googleapis.com"


def refusing(error, name="create_custom_job"):
    def method(**_):
        raise error

    method.__name__ = name  # the client method it stands for: the role named depends on it
    return method


def test_permission_denied_says_which_grants_are_missing(emulator):
    service = job_service.JobService("us-central1")
    with pytest.raises(job_service.VertexError, match=r"roles/iam\.serviceAccountUser"):
        service._call("submit the job", refusing(exceptions.PermissionDenied("actAs denied")))


def test_invalid_argument_carries_vertexs_message(emulator):
    service = job_service.JobService("us-central1")
    with pytest.raises(job_service.VertexError, match="machine type n9-huge is not supported"):
        service._call("submit the job", refusing(exceptions.InvalidArgument("machine type n9-huge is not supported")))


def test_a_rejected_submission_through_the_real_client_is_final(emulator):
    """The emulator rejects what Vertex rejects; the adapter does not retry it."""
    service = job_service.JobService("us-central1")
    with pytest.raises(job_service.VertexError, match="display_name"):
        service.create("projects/acme-ml-dev/locations/us-central1", {"jobSpec": {"workerPoolSpecs": []}})
    assert emulator.calls["CreateCustomJob"] == 1


def test_vertex_imports_only_the_job_service_client_and_the_package_stays_whole_for_everyone_else():
    """gapic_import: the host imports one of aiplatform_v1's ~40 clients, and of its ~120 types modules
    those that client uses; anything else that reads the package or its types (the high-level SDK,
    here) gets them whole, with the same classes."""
    import subprocess
    import sys

    from tests.program import ROOT

    program = (
        "import sys\n"
        "from components.spot_job.client import job_service\n"
        "loaded = {m.split('.')[4] for m in sys.modules if m.startswith('google.cloud.aiplatform_v1.services.')}\n"
        "assert loaded == {'job_service'}, loaded\n"
        "types = {m.split('.')[4] for m in sys.modules if m.startswith('google.cloud.aiplatform_v1.types.')}\n"
        "assert 'custom_job' in types and 'featurestore' not in types and len(types) < 60, sorted(types)\n"
        "from google.cloud.aiplatform_v1.types import CustomJob, Featurestore\n"
        "from google.cloud.aiplatform_v1.types.featurestore import Featurestore as defined\n"
        "assert CustomJob is job_service.aiplatform_v1.CustomJob and Featurestore is defined\n"
        "from google.cloud import aiplatform, aiplatform_v1\n"
        "assert aiplatform_v1.JobServiceClient is job_service.aiplatform_v1.JobServiceClient\n"
        "assert aiplatform_v1.CustomJob is job_service.aiplatform_v1.CustomJob\n"
        "assert aiplatform_v1.types.Featurestore is defined\n"
        "assert aiplatform_v1.PipelineServiceClient and aiplatform.CustomJob\n"
        "print('ok')\n"
    )
    done = subprocess.run([sys.executable, "-c", program], cwd=ROOT, capture_output=True, text=True)
    assert done.stdout.strip() == "ok", done.stderr
