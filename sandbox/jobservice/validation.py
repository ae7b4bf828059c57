"""CreateCustomJob request checks, phrased like the real API so tests can match on field names."""

import re
import unicodedata
from collections.abc import Mapping

from google.cloud import aiplatform_v1

from sandbox.jobservice.errors import invalid

PARENT = re.compile(r"projects/(?P<project>[^/]+)/locations/(?P<location>[^/]+)")
_LABEL_KEY = re.compile(r"[a-z][a-z0-9_-]{0,62}")
# Values: lowercase letters of any script, numbers, '_' and '-' (Vertex: "International
# characters are allowed"). https://cloud.google.com/java/docs/reference/google-cloud-aiplatform/3.45.0/com.google.cloud.aiplatform.v1.CustomJobOrBuilder
_LABEL_VALUE_CATEGORIES = ("Ll", "Lo", "Nd", "Nl", "No")
MAX_LABELS = 64


def check_parent(parent: str) -> None:
    if not PARENT.fullmatch(parent):
        raise invalid(f"parent must be of the form projects/{{project}}/locations/{{location}}, got {parent!r}")


def check_custom_job(job: aiplatform_v1.CustomJob) -> None:
    if not job.display_name:
        raise invalid("display_name is required")
    pools = job.job_spec.worker_pool_specs
    if not pools:
        raise invalid("job_spec.worker_pool_specs is required")
    for i, pool in enumerate(pools):
        pb = aiplatform_v1.WorkerPoolSpec.pb(pool)
        if i > 0 and pb.ByteSize() == 0:
            continue  # Vertex lets a job skip a pool position; only the chief pool is mandatory
        field = f"job_spec.worker_pool_specs[{i}]"
        if not pool.machine_spec.machine_type:
            raise invalid(f"{field}.machine_spec.machine_type is required")
        if pb.WhichOneof("task") is None:  # a oneof: "exactly one" over the wire means "one is set"
            raise invalid(f"{field} must set exactly one of container_spec or python_package_spec")
    _check_labels(job.labels)


def _check_labels(labels: Mapping[str, str]) -> None:
    if len(labels) > MAX_LABELS:
        raise invalid(f"labels: at most {MAX_LABELS} labels are allowed, got {len(labels)}")
    for key, value in labels.items():
        if not _LABEL_KEY.fullmatch(key):
            raise invalid(f"labels: invalid key {key!r}: 1-63 chars of [a-z0-9_-], starting with [a-z]")
        if len(value) > 63 or not all(c in "_-" or unicodedata.category(c) in _LABEL_VALUE_CATEGORIES for c in value):
            raise invalid(f"labels: invalid value {value!r} for key {key!r}: 0-63 chars of [\\p{{Ll}}\\p{{Lo}}\\p{{N}}_-]")
