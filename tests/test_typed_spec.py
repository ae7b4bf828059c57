"""Typed arguments write the same REST shape a config would."""

import dataclasses

from components.spot_job.model import schema, spec, typed_spec
from tests.fixtures import IMAGE, job_inputs, python_package_pool


def test_a_typed_job_is_the_docs_request_body():
    typed = typed_spec.JobSpec(
        worker_pool_specs=[
            typed_spec.WorkerPoolSpec(
                machine_spec=typed_spec.MachineSpec("n1-standard-4"),
                replica_count=1,
                container_spec=typed_spec.ContainerSpec(image_uri=IMAGE, command=["python", "-m", "trainer"], args=["--epochs=3"]),
            )
        ],
        scheduling=typed_spec.Scheduling(strategy="SPOT"),
    )
    from_code = job_inputs(jobSpec=typed.to_rest())
    assert spec.validate(from_code) == []
    assert spec.job_definition(from_code) == spec.job_definition(job_inputs())


def test_a_typed_distributed_package_job_with_env_output_and_an_empty_pool():
    package = python_package_pool()["pythonPackageSpec"]
    pool = typed_spec.WorkerPoolSpec(
        machine_spec=typed_spec.MachineSpec("n1-standard-4"),
        python_package_spec=typed_spec.PythonPackageSpec(
            executor_image_uri=package["executorImageUri"],
            package_uris=package["packageUris"],
            python_module=package["pythonModule"],
            env={"EPOCHS": "3"},
        ),
        disk_spec=typed_spec.DiskSpec(boot_disk_size_gb=200),
    )
    rest = typed_spec.JobSpec(
        worker_pool_specs=[pool, None, dataclasses.replace(pool, replica_count=2)],
        base_output_directory="gs://acme-ml-dev-vision/jobs/tabular",
    ).to_rest()
    assert spec.validate(job_inputs(jobSpec=rest)) == []
    assert rest["workerPoolSpecs"][1] == {}
    assert rest["workerPoolSpecs"][0]["pythonPackageSpec"]["env"] == [{"name": "EPOCHS", "value": "3"}]
    assert rest["baseOutputDirectory"] == {"outputUriPrefix": "gs://acme-ml-dev-vision/jobs/tabular"}
    assert rest["workerPoolSpecs"][0]["diskSpec"] == {"bootDiskSizeGb": 200}


def test_every_typed_field_is_a_rest_field():
    pairs = {
        typed_spec.JobSpec: "CustomJobSpec",
        typed_spec.WorkerPoolSpec: "WorkerPoolSpec",
        typed_spec.MachineSpec: "MachineSpec",
        typed_spec.ContainerSpec: "ContainerSpec",
        typed_spec.PythonPackageSpec: "PythonPackageSpec",
        typed_spec.DiskSpec: "DiskSpec",
        typed_spec.Scheduling: "Scheduling",
    }
    for cls, message in pairs.items():
        names = {typed_spec._camel(f.name) for f in dataclasses.fields(cls)} - {"extra"}
        assert names <= set(schema.MESSAGES[message]), (cls.__name__, names - set(schema.MESSAGES[message]))


def test_the_readme_typed_job_carries_its_lifecycle_knobs_to_the_resource():
    from components.spot_job.model.typed_spec import (
        ContainerSpec,
        FallbackRung,
        JobSpec,
        MachineSpec,
        ResubmissionPolicy,
        WorkerPoolSpec,
    )
    from components.spot_job.resource import SpotTrainingJob, SpotTrainingJobArgs
    from tests.program import render_components

    def build():
        SpotTrainingJob("resnet", SpotTrainingJobArgs(
            project="acme-ml-dev",
            location="us-central1",
            job_spec=JobSpec(worker_pool_specs=[WorkerPoolSpec(
                machine_spec=MachineSpec("n1-standard-8", accelerator_type="NVIDIA_TESLA_T4", accelerator_count=1),
                container_spec=ContainerSpec(image_uri=IMAGE),
            )]),
            resubmission=ResubmissionPolicy(max_resubmissions=5, fallback=[FallbackRung(after_stockouts=3)]),
            wait_for="running",
        ))

    [job] = render_components(build).of_type("SpotTrainingJob")
    assert job.inputs["resubmission"] == {"maxResubmissions": 5, "fallback": [{"afterStockouts": 3, "strategy": "auto"}]}
    assert job.inputs["waitFor"] == "running"
    assert spec.validate({k: v for k, v in job.inputs.items() if not k.startswith("__")}) == []


def test_a_typed_spec_is_validated_when_it_is_made_naming_every_field():
    """The rules of spec.validate (the provider's check) at construction, as one clean RunError."""
    import pulumi
    import pytest

    chief = typed_spec.WorkerPoolSpec(machine_spec=typed_spec.MachineSpec("n1-standard-4"), replica_count=2, container_spec=typed_spec.ContainerSpec(image_uri=IMAGE))
    with pytest.raises(typed_spec.TypedSpecError) as raised:
        typed_spec.JobSpec(worker_pool_specs=[chief], scheduling=typed_spec.Scheduling(strategy="SOMETIMES", timeout="2h"))
    message = str(raised.value)
    assert isinstance(raised.value, pulumi.RunError) and isinstance(raised.value, spec.SpecError)
    assert message.startswith("JobSpec: invalid Spot training job:")
    for path in ("jobSpec.workerPoolSpecs[0].replicaCount", "jobSpec.scheduling.strategy", "jobSpec.scheduling.timeout"):
        assert path in message


def test_values_that_are_outputs_are_unknown_at_construction_and_skipped():
    """Outputs of other resources are taken as they are (nothing checks them at construction); the job
    the engine registers carries their values once resolved."""
    import pulumi

    from components.spot_job.resource import SpotTrainingJob, SpotTrainingJobArgs
    from tests.program import render_components

    def build() -> None:
        image = pulumi.Output.from_input(IMAGE)  # an image URI from another resource
        job = typed_spec.JobSpec(worker_pool_specs=[typed_spec.WorkerPoolSpec(
            machine_spec=typed_spec.MachineSpec("n1-standard-4"),
            container_spec=typed_spec.ContainerSpec(image_uri=image, args=[pulumi.Output.from_input("--epochs=3")]),
            replica_count=pulumi.Output.from_input(1),
        )], service_account=pulumi.Output.from_input("trainer@acme-ml-dev.iam.gserviceaccount.com"))
        args = SpotTrainingJobArgs(
            job_spec=job,
            labels=pulumi.Output.from_input({"purpose": "smoke"}),
            project=pulumi.Output.from_input("acme-ml-dev"),
            location="us-central1",
        )
        SpotTrainingJob("smoke", args)

    [registered] = render_components(build).of_type("SpotTrainingJob")
    assert registered.inputs["project"] == "acme-ml-dev"
    assert registered.inputs["labels"] == {"purpose": "smoke"}
    assert registered.inputs["jobSpec"] == {
        "serviceAccount": "trainer@acme-ml-dev.iam.gserviceaccount.com",
        "workerPoolSpecs": [
            {"machineSpec": {"machineType": "n1-standard-4"}, "replicaCount": 1, "containerSpec": {"imageUri": IMAGE, "args": ["--epochs=3"]}}
        ],
    }


def test_a_job_made_in_code_is_validated_by_the_providers_check_once_with_its_defaults(emulator, host):
    """SpotTrainingJobArgs and SpotTrainingJob carry what they are given; the provider's `check` validates it,
    with the defaults filled in (here the resource's name as displayName), naming each field, before any call
    to Google. A stack config's jobs are validated by its loader instead, naming the config path."""
    from components.spot_job.resource import SpotTrainingJob, SpotTrainingJobArgs
    from tests.program import render_components
    from tests.provider_host import JOB_TYPE

    body = {"labels": {"Team": "vision"}, "jobSpec": job_inputs()["jobSpec"]}
    recorder = render_components(
        lambda: SpotTrainingJob("r" * 129, SpotTrainingJobArgs.from_custom_job(body, wait_for="forever", project="acme-ml-dev", location="us"))
    )
    [job] = recorder.of_type("SpotTrainingJob")
    checked = host.check(f"urn:pulumi:dev::spot-training::{JOB_TYPE}::{'r' * 129}", {}, dict(job.inputs))
    assert sorted(f.property for f in checked.failures) == ["displayName", "labels.Team", "location", "waitFor"]
    assert sum(emulator.calls.values()) == 0
