"""What a preview says about a job it will submit again."""

import logging

from components.spot_job.decision import change_lines
from components.spot_job.model.job_inputs import JobInputs
from components.spot_job.provider import SpotTrainingJobProvider
from tests.fixtures import IMAGE, job_inputs, python_package_pool

NEW_IMAGE = IMAGE.split("@")[0] + "@sha256:" + "9f" * 32


def with_image(uri: str) -> dict:
    inputs = job_inputs()
    inputs["jobSpec"]["workerPoolSpecs"][0]["containerSpec"]["imageUri"] = uri
    return inputs


def test_a_new_image_digest_reads_as_one():
    [line] = change_lines.describe(JobInputs.of(job_inputs()), JobInputs.of(with_image(NEW_IMAGE)))
    assert line == (
        "jobSpec.workerPoolSpecs[0].containerSpec.imageUri: image trainer: "
        "new digest sha256:abababababab -> sha256:9f9f9f9f9f9f"
    )


def test_new_package_code_reads_as_such():
    old, new = job_inputs(), job_inputs()
    old["jobSpec"]["workerPoolSpecs"] = [python_package_pool()]
    new["jobSpec"]["workerPoolSpecs"] = [python_package_pool()]
    old["jobSpec"]["workerPoolSpecs"][0]["pythonPackageSpec"]["packageUris"] = ["gs://b/packages/0123456789abcdef/trainer-0.1.0.tar.gz"]
    new["jobSpec"]["workerPoolSpecs"][0]["pythonPackageSpec"]["packageUris"] = ["gs://b/packages/fedcba9876543210/trainer-0.1.0.tar.gz"]
    assert change_lines.describe(JobInputs.of(old), JobInputs.of(new)) == [
        "jobSpec.workerPoolSpecs[0].pythonPackageSpec.packageUris[0]: package trainer-0.1.0.tar.gz: new code 0123456789abcdef -> fedcba9876543210"
    ]


def test_several_changes_each_get_a_line_and_defaults_are_shown_as_what_they_mean():
    new = job_inputs(displayName="resnet-v2", rerun="2")
    new["jobSpec"]["workerPoolSpecs"][0]["machineSpec"]["machineType"] = "n1-highmem-8"
    new["jobSpec"]["scheduling"] = {"strategy": "STANDARD"}
    assert change_lines.describe(JobInputs.of(job_inputs()), JobInputs.of(new)) == [
        "displayName: JOB_NAME -> resnet-v2",
        "jobSpec.scheduling.strategy: SPOT -> STANDARD",
        "jobSpec.workerPoolSpecs[0].machineSpec.machineType: n1-standard-4 -> n1-highmem-8",
        "rerun: (unset) -> 2 (a manual rerun)",
    ]


def test_a_rewrite_that_means_the_same_is_no_change():
    same = job_inputs()
    same["jobSpec"]["workerPoolSpecs"][0]["replicaCount"] = "1"
    same["jobSpec"]["scheduling"] = {}
    assert change_lines.describe(JobInputs.of(job_inputs()), JobInputs.of(same)) == []


def test_a_value_a_preview_cannot_know_yet_says_so():
    unknown = "04da6b54-80e4-46f7-96ec-b56ff0331ba9"
    [line] = change_lines.describe(JobInputs.of(job_inputs()), JobInputs.of(with_image(unknown), unknown))
    assert line.endswith(f"{IMAGE} -> (known once deployed)")


def test_the_provider_diff_logs_why_the_job_is_submitted_again(caplog):
    caplog.set_level(logging.INFO, logger="spot-training")
    SpotTrainingJobProvider().diff("id", job_inputs(), with_image(NEW_IMAGE))
    [record] = [r for r in caplog.records if "submitted again" in r.getMessage()]
    assert "image trainer: new digest" in record.getMessage()
    assert "the old one cancelled first" in record.getMessage()


def test_a_secret_value_is_never_quoted_even_when_its_whole_list_changes():
    token = "hf_" + "Q7x" * 12
    secret = ["jobSpec.workerPoolSpecs[0].containerSpec.env[0].value"]
    olds, news = job_inputs(secretPaths=secret), job_inputs(secretPaths=secret)
    olds["jobSpec"]["workerPoolSpecs"][0]["containerSpec"]["env"] = [{"name": "HF_TOKEN", "value": token}]
    news["jobSpec"]["workerPoolSpecs"][0]["containerSpec"]["env"] = [{"name": "HF_TOKEN", "value": token}, {"name": "LOG_LEVEL", "value": "debug"}]
    [line] = change_lines.describe(JobInputs.of(olds), JobInputs.of(news))
    assert line.startswith("jobSpec.workerPoolSpecs[0].containerSpec.env: ") and "LOG_LEVEL" in line
    assert token not in line and "[secret]" in line
