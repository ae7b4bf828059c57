"""The spec layer's table of the REST shape, held against the installed Vertex AI protos.

A field Google adds, renames or retypes shows up here, not as a key that a
config sets and the spec layer silently rejects or drops.
"""

import pytest
from google.cloud import aiplatform_v1
from google.protobuf.descriptor import FieldDescriptor

from components.spot_job.model import schema

# Our message name -> the proto message it mirrors.
PROTOS = {
    "EncryptionSpec": aiplatform_v1.EncryptionSpec,
    "CustomJobSpec": aiplatform_v1.CustomJobSpec,
    "WorkerPoolSpec": aiplatform_v1.WorkerPoolSpec,
    "ContainerSpec": aiplatform_v1.ContainerSpec,
    "PythonPackageSpec": aiplatform_v1.PythonPackageSpec,
    "EnvVar": aiplatform_v1.EnvVar,
    "MachineSpec": aiplatform_v1.MachineSpec,
    "ReservationAffinity": aiplatform_v1.ReservationAffinity,
    "DiskSpec": aiplatform_v1.DiskSpec,
    "NfsMount": aiplatform_v1.NfsMount,
    "LustreMount": aiplatform_v1.LustreMount,
    "Scheduling": aiplatform_v1.Scheduling,
    "GcsDestination": aiplatform_v1.GcsDestination,
    "PscInterfaceConfig": aiplatform_v1.PscInterfaceConfig,
    "DnsPeeringConfig": aiplatform_v1.DnsPeeringConfig,
}
ENUM_PROTOS = {
    "AcceleratorType": aiplatform_v1.AcceleratorType,
    "ReservationAffinity.Type": aiplatform_v1.ReservationAffinity.Type,
    "Scheduling.Strategy": aiplatform_v1.Scheduling.Strategy,
}
SCALARS = {
    FieldDescriptor.TYPE_STRING: schema.STRING,
    FieldDescriptor.TYPE_BOOL: schema.BOOL,
    FieldDescriptor.TYPE_INT32: schema.INT,
    FieldDescriptor.TYPE_INT64: schema.INT,
}


def expected_kind(field: FieldDescriptor):
    if field.message_type is not None and field.message_type.full_name == "google.protobuf.Duration":
        kind = schema.DURATION
    elif field.message_type is not None:
        kind = field.message_type.name
    elif field.enum_type is not None:
        containing = field.enum_type.containing_type
        kind = ("enum", f"{containing.name}.{field.enum_type.name}" if containing else field.enum_type.name)
    else:
        kind = SCALARS[field.type]
    return ("list", kind) if field.is_repeated else kind


@pytest.mark.parametrize("name", sorted(PROTOS))
def test_each_message_has_exactly_the_proto_fields_with_their_kinds(name):
    descriptor = PROTOS[name].pb().DESCRIPTOR
    proto_fields = {f.json_name: expected_kind(f) for f in descriptor.fields}
    assert schema.MESSAGES[name] == proto_fields


def test_the_resource_carries_the_custom_job_fields_a_user_sets():
    custom_job = {f.json_name for f in aiplatform_v1.CustomJob.pb().DESCRIPTOR.fields}
    job_fields = {"displayName", "labels", "encryptionSpec", "jobSpec"}
    assert job_fields <= custom_job
    assert job_fields <= set(schema.MESSAGES[schema.RESOURCE])


@pytest.mark.parametrize("name", sorted(ENUM_PROTOS))
def test_enum_values_are_real_and_complete(name):
    real = {v for v in ENUM_PROTOS[name].__members__ if not v.endswith("UNSPECIFIED")}
    assert set(schema.ENUMS[name]) == real
