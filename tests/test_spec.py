"""The spec layer: defaults, canonical form, and each validation rule, by field path."""

import copy

import pytest

from components.spot_job.model import spec
from components.spot_job.rules import flex_start
from tests.fixtures import docs_request_body, job_inputs, python_package_pool


def failures_at(inputs: dict) -> dict[str, str]:
    return {f.path: f.reason for f in spec.validate(inputs)}


def with_spec(**spec_fields) -> dict:
    inputs = job_inputs()
    inputs["jobSpec"].update(copy.deepcopy(spec_fields))
    return inputs


def with_pool(index: int = 0, **pool_fields) -> dict:
    inputs = job_inputs()
    pools = inputs["jobSpec"]["workerPoolSpecs"]
    while len(pools) <= index:
        pools.append(python_package_pool(replicaCount=2))
    pools[index].update(copy.deepcopy(pool_fields))
    return inputs


def with_machine(**machine) -> dict:
    inputs = job_inputs()
    inputs["jobSpec"]["workerPoolSpecs"][0]["machineSpec"].update(machine)
    return inputs


def _flex(timeout=None, second=None, **machine) -> dict:
    """A FLEX_START job on one L4, changed by `machine`, `timeout` and a second pool."""
    inputs = with_machine(**{"machineType": "g2-standard-8", "acceleratorType": "NVIDIA_L4", "acceleratorCount": 1, **machine})
    inputs["jobSpec"]["scheduling"] = {"strategy": "FLEX_START", **({"timeout": timeout} if timeout else {})}
    if second:
        pool = copy.deepcopy(inputs["jobSpec"]["workerPoolSpecs"][0])
        pool.update(machineSpec=second, replicaCount=1)
        inputs["jobSpec"]["workerPoolSpecs"].append(pool)
    return inputs


def test_flex_start_follows_the_dynamic_workload_scheduler_requirements():
    # https://cloud.google.com/vertex-ai/docs/training/schedule-jobs-dws
    assert failures_at(_flex(timeout="604800s")) == {}
    # Each GPU on a machine type that carries it (rules/gpu_machines.py): one GPU where the series has it.
    machines = {
        "NVIDIA_L4": "g2-standard-8", "NVIDIA_TESLA_A100": "a2-highgpu-1g", "NVIDIA_A100_80GB": "a2-ultragpu-1g",
        "NVIDIA_H100_80GB": "a3-highgpu-1g", "NVIDIA_H100_MEGA_80GB": "a3-megagpu-8g", "NVIDIA_H200_141GB": "a3-ultragpu-8g",
        "NVIDIA_B200": "a4-highgpu-8g",
    }
    assert set(machines) == set(flex_start.FLEX_START_GPUS)
    for gpu, machine_type in machines.items():
        count = 1 if machine_type.endswith(("-1g", "-8")) else 8
        assert failures_at(_flex(machineType=machine_type, acceleratorType=gpu, acceleratorCount=count)) == {}, gpu
    same = _flex(second={"machineType": "g2-standard-8", "acceleratorType": "NVIDIA_L4", "acceleratorCount": 1})
    assert failures_at(same) == {}
    t4 = with_machine(acceleratorType="NVIDIA_TESLA_T4", acceleratorCount=1)
    assert not flex_start.qualifies(t4)


def test_spot_may_say_it_takes_no_reservation_and_standard_may_consume_one():
    # https://cloud.google.com/vertex-ai/docs/training/use-reservations
    assert failures_at(with_machine(reservationAffinity={"reservationAffinityType": "NO_RESERVATION"})) == {}
    standard = with_machine(reservationAffinity={"reservationAffinityType": "SPECIFIC_RESERVATION", "key": "compute.googleapis.com/reservation-name", "values": ["r1"]})
    standard["jobSpec"]["scheduling"] = {"strategy": "STANDARD"}
    assert failures_at(standard) == {}


def _tpu(machine_type, topology, replicas=None, second=False, strategy=None, **machine) -> dict:
    """A one-pool TPU job on `machine_type` with `topology`."""
    inputs = job_inputs()
    if strategy:
        inputs["jobSpec"]["scheduling"] = {"strategy": strategy}
    pool = inputs["jobSpec"]["workerPoolSpecs"][0]
    pool["machineSpec"] = {"machineType": machine_type, **({"tpuTopology": topology} if topology else {}), **machine}
    inputs["jobSpec"]["workerPoolSpecs"] = [pool]
    if replicas is not None:
        pool["replicaCount"] = replicas
    if second:
        inputs["jobSpec"]["workerPoolSpecs"].append(python_package_pool())
    return inputs


def test_a_tpu_replica_count_above_one_says_to_size_the_slice_instead():
    reason = failures_at(_tpu("ct6e-standard-4t", "2x2", replicas=2))["jobSpec.workerPoolSpecs[0].replicaCount"]
    assert "TPU worker pool takes replicaCount 1" in reason and "tpuTopology" in reason


# Google's table of TPU machine types: single host where the topology has no
# more chips than one host carries (issue 11.4).
# https://cloud.google.com/vertex-ai/docs/training/configure-compute#tpu
@pytest.mark.parametrize(
    "machine_type, topology, extra",
    [
        ("tpu7x-standard-4t", "2x2x1", {}),
        ("ct6e-standard-1t", "1x1", {}),
        ("ct6e-standard-4t", "2x2", {}),
        ("ct6e-standard-8t", "2x4", {}),
        ("ct5lp-hightpu-1t", "1x1", {}),
        ("ct5lp-hightpu-4t", "2x2", {}),
        ("ct5lp-hightpu-8t", "2x4", {}),
        ("cloud-tpu", None, {"acceleratorType": "TPU_V2", "acceleratorCount": 8}),
        ("cloud-tpu", None, {"acceleratorType": "TPU_V3", "acceleratorCount": 8}),
    ],
)
def test_every_single_host_tpu_slice_in_googles_table_may_run_on_spot(machine_type, topology, extra):
    assert failures_at(_tpu(machine_type, topology, **extra)) == {}


# Every slice Google's table lists runs on STANDARD; on Spot only the single-host
# ones (issue 11.4). The table's own topologies, checked against the docs'
# "Configure compute resources" TPU section:
# https://docs.cloud.google.com/gemini-enterprise-agent-platform/machine-learning/training/configure-compute#tpu
def test_every_slice_in_googles_table_runs_on_standard_and_only_single_hosts_on_spot():
    from components.spot_job.rules import tpu_machines

    for machine_type, machine in tpu_machines.MACHINES.items():
        for topology in machine.topologies:
            assert failures_at(_tpu(machine_type, topology, strategy="STANDARD")) == {}, (machine_type, topology)
            on_spot = failures_at(_tpu(machine_type, topology))
            single_host = tpu_machines.topology_chips(topology) <= machine.chips_per_host
            assert (on_spot == {}) == single_host, (machine_type, topology, on_spot)
    for count, pod in ((8, False), (32, True), (128, True)):
        inputs = _tpu("cloud-tpu", None, acceleratorType="TPU_V2", acceleratorCount=count)
        assert (failures_at(inputs) != {}) == pod, count


# --- accepted as written ---------------------------------------------------


def test_the_docs_request_body_is_accepted_as_it_is():
    assert spec.validate(job_inputs()) == []
    assert spec.request_body(job_inputs())["jobSpec"]["scheduling"] == {"strategy": "SPOT"}


def test_a_distributed_python_package_job_with_an_empty_pool_is_accepted():
    inputs = job_inputs()
    inputs["jobSpec"]["workerPoolSpecs"] = [python_package_pool(), {}, python_package_pool(replicaCount=2)]
    assert spec.validate(inputs) == []


# --- defaults and canonical form ------------------------------------------


def test_strategy_defaults_to_spot_and_replica_count_to_one():
    inputs = job_inputs()
    del inputs["jobSpec"]["scheduling"]
    del inputs["jobSpec"]["workerPoolSpecs"][0]["replicaCount"]
    job = spec.job_definition(inputs)["jobSpec"]
    assert job["scheduling"]["strategy"] == "SPOT"
    assert job["workerPoolSpecs"][0]["replicaCount"] == 1


def test_configs_that_differ_only_in_form_have_one_canonical_form():
    plain = job_inputs()
    del plain["jobSpec"]["scheduling"]
    plain["jobSpec"]["scheduling"] = {"timeout": "3600s"}
    dressed = job_inputs(labels={})
    dressed["jobSpec"]["scheduling"] = {"timeout": "3600.000s", "strategy": "SPOT", "disableRetries": False}
    pool = dressed["jobSpec"]["workerPoolSpecs"][0]
    pool["replicaCount"] = "1"  # int64 the way REST JSON writes it
    pool["containerSpec"]["env"] = []
    dressed["jobSpec"] = dict(reversed(list(dressed["jobSpec"].items())))  # key order
    assert spec.job_definition(plain) == spec.job_definition(dressed)
    assert spec.spec_hash(plain) == spec.spec_hash(dressed)


def test_numbers_as_pulumi_carries_them_are_whole_numbers():
    # Pulumi's wire format carries every number as a double.
    wired = job_inputs()
    wired["jobSpec"]["workerPoolSpecs"][0]["replicaCount"] = 1.0
    assert spec.validate(wired) == []
    assert spec.job_definition(wired) == spec.job_definition(job_inputs())


def test_a_real_change_changes_the_canonical_form_and_hash():
    changed = job_inputs()
    changed["jobSpec"]["workerPoolSpecs"][0]["containerSpec"]["imageUri"] = "gcr.io/acme/trainer@sha256:" + "cd" * 32
    assert spec.spec_hash(changed) != spec.spec_hash(job_inputs())


def test_provider_knobs_are_not_part_of_the_job_definition():
    assert spec.job_definition(job_inputs(deleteTimeout="60s")) == spec.job_definition(job_inputs())


def test_submission_key_is_stable_per_scope_and_spec():
    one = job_inputs(submissionScope="spot-training/dev/resnet")
    other_stack = job_inputs(submissionScope="spot-training/prod/resnet")
    assert spec.submission_key(one) == spec.submission_key(copy.deepcopy(one))
    assert spec.submission_key(one) != spec.submission_key(other_stack)
    assert len(spec.submission_key(one)) <= 63  # it is a label value


def test_a_rerun_and_each_attempt_have_their_own_submission_key():
    one = job_inputs(submissionScope="spot-training/dev/resnet")
    keys = {
        spec.submission_key(one),
        spec.submission_key(one, attempt=2),
        spec.submission_key({**one, "rerun": "1"}),
        spec.submission_key({**one, "rerun": "1"}, attempt=2),
    }
    assert len(keys) == 4


def test_the_lifecycle_knobs_are_not_part_of_the_job_definition():
    knobs = {"rerun": "2", "waitFor": "running", "waitTimeout": "60s", "onDelete": "keep", "replaceOrder": "submitFirst", "resubmission": {"maxResubmissions": 1}}
    assert spec.job_definition(job_inputs(**knobs)) == spec.job_definition(job_inputs())
    assert spec.request_body(job_inputs(**knobs)) == spec.request_body(job_inputs())
    assert failures_at(job_inputs(**knobs)) == {}


def test_flex_start_applies_to_gpu_machines_only():
    gpu = with_machine(machineType="g2-standard-8", acceleratorType="NVIDIA_L4", acceleratorCount=1)
    assert flex_start.qualifies(gpu)
    assert not flex_start.qualifies(job_inputs())
    assert failures_at({**gpu, "resubmission": {"fallback": [{"afterStockouts": 1, "strategy": "FLEX_START"}]}}) == {}


def test_request_body_is_the_docs_body_with_defaults():
    body = spec.request_body(job_inputs())
    assert set(body) == {"displayName", "jobSpec"}
    assert body["jobSpec"]["workerPoolSpecs"][0]["containerSpec"]["command"] == ["python", "-m", "trainer"]


# --- one rule, one case ----------------------------------------------------

RULES = [
    ("missing workerPoolSpecs", lambda: with_spec(workerPoolSpecs=[]), "jobSpec.workerPoolSpecs"),
    ("missing jobSpec", lambda: {k: v for k, v in job_inputs().items() if k != "jobSpec"}, "jobSpec"),
    ("a typo'd field", lambda: {**job_inputs(), "jobSpec": {"workerPoolSpec": docs_request_body()["jobSpec"]["workerPoolSpecs"]}}, "jobSpec.workerPoolSpec"),
    ("an unknown nested field", lambda: with_machine(machinetype="n1"), "jobSpec.workerPoolSpecs[0].machineSpec.machinetype"),
    ("an unknown top-level field", lambda: job_inputs(displayname="x"), "displayname"),
    ("neither task", lambda: with_pool(0, containerSpec=None), "jobSpec.workerPoolSpecs[0]"),
    ("both tasks", lambda: with_pool(0, pythonPackageSpec=python_package_pool()["pythonPackageSpec"]), "jobSpec.workerPoolSpecs[0]"),
    ("an empty chief pool", lambda: with_spec(workerPoolSpecs=[{}]), "jobSpec.workerPoolSpecs[0]"),
    ("more than four pools", lambda: with_spec(workerPoolSpecs=[python_package_pool()] * 5), "jobSpec.workerPoolSpecs"),
    ("no machine type", lambda: with_pool(0, machineSpec={}), "jobSpec.workerPoolSpecs[0].machineSpec.machineType"),
    ("no image", lambda: with_pool(0, containerSpec={"args": ["x"]}), "jobSpec.workerPoolSpecs[0].containerSpec.imageUri"),
    (
        "more than 100 packageUris",
        lambda: with_pool(1, pythonPackageSpec={**python_package_pool()["pythonPackageSpec"], "packageUris": [f"gs://b-1/p{i}.tar.gz" for i in range(101)]}),
        "jobSpec.workerPoolSpecs[1].pythonPackageSpec.packageUris",
    ),
    (
        "a non-gs:// package URI",
        lambda: with_pool(1, pythonPackageSpec={**python_package_pool()["pythonPackageSpec"], "packageUris": ["https://example.com/p.tar.gz"]}),
        "jobSpec.workerPoolSpecs[1].pythonPackageSpec.packageUris[0]",
    ),
    (
        "no packageUris",
        lambda: with_pool(1, pythonPackageSpec={**python_package_pool()["pythonPackageSpec"], "packageUris": []}),
        "jobSpec.workerPoolSpecs[1].pythonPackageSpec.packageUris",
    ),
    (
        "no python module",
        lambda: with_pool(1, pythonPackageSpec={k: v for k, v in python_package_pool()["pythonPackageSpec"].items() if k != "pythonModule"}),
        "jobSpec.workerPoolSpecs[1].pythonPackageSpec.pythonModule",
    ),
    ("first pool replicaCount 2", lambda: with_pool(0, replicaCount=2), "jobSpec.workerPoolSpecs[0].replicaCount"),
    ("a negative replicaCount", lambda: with_pool(1, replicaCount=-1), "jobSpec.workerPoolSpecs[1].replicaCount"),
    ("a fractional replicaCount", lambda: with_pool(1, replicaCount=1.5), "jobSpec.workerPoolSpecs[1].replicaCount"),
    ("accelerator count without type", lambda: with_machine(acceleratorCount=1), "jobSpec.workerPoolSpecs[0].machineSpec.acceleratorType"),
    ("accelerator type without count", lambda: with_machine(acceleratorType="NVIDIA_TESLA_T4"), "jobSpec.workerPoolSpecs[0].machineSpec.acceleratorCount"),
    ("an unknown accelerator", lambda: with_machine(acceleratorType="NVIDIA_TESLA_T5", acceleratorCount=1), "jobSpec.workerPoolSpecs[0].machineSpec.acceleratorType"),
    (
        "a TPU Pod on Spot",
        lambda: with_machine(machineType="ct5lp-hightpu-4t", tpuTopology="4x4"),
        "jobSpec.workerPoolSpecs[0].machineSpec.tpuTopology",
    ),
    (
        "an old-style TPU Pod on Spot",
        lambda: with_machine(machineType="cloud-tpu", acceleratorType="TPU_V3", acceleratorCount=32),
        "jobSpec.workerPoolSpecs[0].machineSpec",
    ),
    ("a malformed TPU topology", lambda: with_machine(machineType="ct5lp-hightpu-4t", tpuTopology="four"), "jobSpec.workerPoolSpecs[0].machineSpec.tpuTopology"),
    ("an unknown strategy", lambda: with_spec(scheduling={"strategy": "CHEAP"}), "jobSpec.scheduling.strategy"),
    ("a deprecated strategy", lambda: with_spec(scheduling={"strategy": "LOW_COST"}), "jobSpec.scheduling.strategy"),
    ("a duration without unit", lambda: with_spec(scheduling={"timeout": "86400"}), "jobSpec.scheduling.timeout"),
    ("a duration as a number", lambda: with_spec(scheduling={"timeout": 86400}), "jobSpec.scheduling.timeout"),
    ("a non-boolean flag", lambda: with_spec(scheduling={"disableRetries": "yes"}), "jobSpec.scheduling.disableRetries"),
    ("Spot on a persistent resource", lambda: with_spec(persistentResourceId="pool-1"), "jobSpec.persistentResourceId"),
    ("a label key with capitals", lambda: job_inputs(labels={"Team": "vision"}), "labels.Team"),
    # https://googleapis.dev/dotnet/Google.Apis.Backupdr.v1/latest/api/Google.Apis.Backupdr.v1.Data.LabelKeyValPair.html
    ("a label value in capitals of another script", lambda: job_inputs(labels={"team": "ΟΡΑΣΗ"}), "labels.team"),
    # https://cloud.google.com/vertex-ai/docs/training/configure-compute and
    # https://docs.cloud.google.com/dotnet/docs/reference/Google.Cloud.AIPlatform.V1Beta1/latest/Google.Cloud.AIPlatform.V1Beta1.DiskSpec
    ("a boot disk below 100 GB", lambda: with_pool(0, diskSpec={"bootDiskSizeGb": 50}), "jobSpec.workerPoolSpecs[0].diskSpec.bootDiskSizeGb"),
    ("a boot disk above 64000 GB", lambda: with_pool(0, diskSpec={"bootDiskSizeGb": "64001"}), "jobSpec.workerPoolSpecs[0].diskSpec.bootDiskSizeGb"),
    ("an unknown boot disk type", lambda: with_pool(0, diskSpec={"bootDiskType": "pd-balanced"}), "jobSpec.workerPoolSpecs[0].diskSpec.bootDiskType"),
    # https://docs.cloud.google.com/gemini-enterprise-agent-platform/reference/rest/Shared.Types/CustomJobSpec
    ("replicaCount 0 in a worker pool", lambda: with_pool(1, replicaCount=0), "jobSpec.workerPoolSpecs[1].replicaCount"),
    ("a label value with a space", lambda: job_inputs(labels={"team": "computer vision"}), "labels.team"),
    ("a label key that is too long", lambda: job_inputs(labels={"k" * 65: "v"}), "labels." + "k" * 65),
    ("the reserved submission label", lambda: job_inputs(labels={spec.SUBMISSION_LABEL: "x"}), f"labels.{spec.SUBMISSION_LABEL}"),
    ("more than 63 labels", lambda: job_inputs(labels={f"k{i}": "v" for i in range(64)}), "labels"),
    ("a display name over 128 characters", lambda: job_inputs(displayName="x" * 129), "displayName"),
    ("no display name", lambda: {k: v for k, v in job_inputs().items() if k != "displayName"}, "displayName"),
    ("no project", lambda: {k: v for k, v in job_inputs().items() if k != "project"}, "project"),
    ("no location", lambda: {k: v for k, v in job_inputs().items() if k != "location"}, "location"),
    ("a malformed location", lambda: job_inputs(location="US Central"), "location"),
    ("a CMEK key in another region", lambda: job_inputs(encryptionSpec={"kmsKeyName": "projects/p/locations/europe-west4/keyRings/r/cryptoKeys/k"}), "encryptionSpec.kmsKeyName"),
    ("a malformed CMEK key", lambda: job_inputs(encryptionSpec={"kmsKeyName": "my-key"}), "encryptionSpec.kmsKeyName"),
    ("a baseOutputDirectory outside Cloud Storage", lambda: with_spec(baseOutputDirectory={"outputUriPrefix": "/tmp/out"}), "jobSpec.baseOutputDirectory.outputUriPrefix"),
    ("a baseOutputDirectory given as a string", lambda: with_spec(baseOutputDirectory="gs://b/out"), "jobSpec.baseOutputDirectory"),
    ("a malformed service account", lambda: with_spec(serviceAccount="trainer"), "jobSpec.serviceAccount"),
    ("a malformed network", lambda: with_spec(network="default"), "jobSpec.network"),
    ("an env var without name", lambda: with_pool(0, containerSpec={"imageUri": "gcr.io/a/b", "env": [{"value": "1"}]}), "jobSpec.workerPoolSpecs[0].containerSpec.env[0].name"),
    ("args as a number", lambda: with_pool(0, containerSpec={"imageUri": "gcr.io/a/b", "args": 3}), "jobSpec.workerPoolSpecs[0].containerSpec.args[0]"),
    ("a malformed delete timeout", lambda: job_inputs(deleteTimeout="15m"), "deleteTimeout"),
    ("a delete timeout past the host's limit", lambda: job_inputs(deleteTimeout="3600s"), "deleteTimeout"),
    ("a wait timeout of zero", lambda: job_inputs(waitTimeout="0s"), "waitTimeout"),
    ("an unknown waitFor", lambda: job_inputs(waitFor="done"), "waitFor"),
    ("an unknown onDelete", lambda: job_inputs(onDelete="forget"), "onDelete"),
    ("an unknown replaceOrder", lambda: job_inputs(replaceOrder="parallel"), "replaceOrder"),
    ("too many resubmissions", lambda: job_inputs(resubmission={"maxResubmissions": 11}), "resubmission.maxResubmissions"),
    ("a typo in the policy", lambda: job_inputs(resubmission={"maxResubmission": 2}), "resubmission.maxResubmission"),
    ("a rung without afterStockouts", lambda: job_inputs(resubmission={"fallback": [{"strategy": "STANDARD"}]}), "resubmission.fallback[0].afterStockouts"),
    ("rungs out of order", lambda: job_inputs(resubmission={"fallback": [{"afterStockouts": 3, "strategy": "auto"}, {"afterStockouts": 2, "strategy": "STANDARD"}]}), "resubmission.fallback[1].afterStockouts"),
    ("a rung back to SPOT", lambda: job_inputs(resubmission={"fallback": [{"afterStockouts": 1, "strategy": "SPOT"}]}), "resubmission.fallback[0].strategy"),
    ("FLEX_START for a CPU machine", lambda: job_inputs(resubmission={"fallback": [{"afterStockouts": 1, "strategy": "FLEX_START"}]}), "resubmission.fallback[0].strategy"),
    # https://cloud.google.com/vertex-ai/docs/training/schedule-jobs-dws (issue 11.7)
    ("FLEX_START for a T4", lambda: with_machine(acceleratorType="NVIDIA_TESLA_T4", acceleratorCount=1) | {"resubmission": {"fallback": [{"afterStockouts": 2, "strategy": "FLEX_START"}]}}, "resubmission.fallback[0].strategy"),
    ("strategy FLEX_START on a T4", lambda: _flex(acceleratorType="NVIDIA_TESLA_T4"), "jobSpec.workerPoolSpecs[0].machineSpec.acceleratorType"),
    ("strategy FLEX_START longer than 7 days", lambda: _flex(timeout="604801s"), "jobSpec.scheduling.timeout"),
    ("strategy FLEX_START with pools of different machines", lambda: _flex(second={"machineType": "g2-standard-24", "acceleratorType": "NVIDIA_L4", "acceleratorCount": 2}), "jobSpec.workerPoolSpecs[1].machineSpec"),
    ("strategy FLEX_START consuming a reservation", lambda: _flex(reservationAffinity={"reservationAffinityType": "ANY_RESERVATION"}), "jobSpec.workerPoolSpecs[0].machineSpec.reservationAffinity"),
    # https://cloud.google.com/vertex-ai/docs/training/use-spot-vms, https://cloud.google.com/compute/docs/instances/spot#limitations (issue 11.6)
    ("Spot consuming a specific reservation", lambda: with_machine(reservationAffinity={"reservationAffinityType": "SPECIFIC_RESERVATION", "key": "compute.googleapis.com/reservation-name", "values": ["r1"]}), "jobSpec.workerPoolSpecs[0].machineSpec.reservationAffinity.reservationAffinityType"),
    ("Spot consuming any reservation", lambda: with_machine(reservationAffinity={"reservationAffinityType": "ANY_RESERVATION"}), "jobSpec.workerPoolSpecs[0].machineSpec.reservationAffinity.reservationAffinityType"),
    # https://cloud.google.com/vertex-ai/docs/training/configure-compute#tpu (issue 11.4, 11.8)
    ("a two-host v5e slice on Spot", lambda: _tpu("ct5lp-hightpu-4t", "2x4"), "jobSpec.workerPoolSpecs[0].machineSpec.tpuTopology"),
    ("a multi-host TPU7x slice on Spot", lambda: _tpu("tpu7x-standard-4t", "2x2x2"), "jobSpec.workerPoolSpecs[0].machineSpec.tpuTopology"),
    ("a multi-host v6e slice on Spot", lambda: _tpu("ct6e-standard-4t", "4x4"), "jobSpec.workerPoolSpecs[0].machineSpec.tpuTopology"),
    ("a topology the table does not list for the machine", lambda: _tpu("ct6e-standard-8t", "4x4", strategy="STANDARD"), "jobSpec.workerPoolSpecs[0].machineSpec.tpuTopology"),
    ("a TPU v3 count that is neither one TPU nor a Pod", lambda: _tpu("cloud-tpu", None, acceleratorType="TPU_V3", acceleratorCount=16, strategy="STANDARD"), "jobSpec.workerPoolSpecs[0].machineSpec.acceleratorCount"),
    ("a TPU job with a second pool", lambda: _tpu("ct5lp-hightpu-4t", "2x2", second=True), "jobSpec.workerPoolSpecs[1]"),
    ("a TPU pool with two replicas", lambda: _tpu("ct6e-standard-4t", "2x2", replicas=2), "jobSpec.workerPoolSpecs[0].replicaCount"),
    ("an old-style TPU with two replicas", lambda: _tpu("cloud-tpu", None, replicas=2, acceleratorType="TPU_V3", acceleratorCount=8), "jobSpec.workerPoolSpecs[0].replicaCount"),
    ("a fallback from a job not on SPOT", lambda: {**with_spec(scheduling={"strategy": "STANDARD"}), "resubmission": {"fallback": [{"afterStockouts": 1, "strategy": "auto"}]}}, "resubmission.fallback"),
]


@pytest.mark.parametrize("make, path", [(make, path) for _, make, path in RULES], ids=[name for name, _, _ in RULES])
def test_each_rule_names_the_offending_field(make, path):
    failures = failures_at(make())
    assert path in failures, failures
    assert failures[path]  # a reason a person can read


def test_a_typo_gets_a_suggestion():
    inputs = {**job_inputs(), "jobSpec": {"workerPoolSpec": []}}
    assert "did you mean 'workerPoolSpecs'" in failures_at(inputs)["jobSpec.workerPoolSpec"]


def test_a_single_host_tpu_slice_may_run_on_spot():
    assert failures_at(with_machine(machineType="ct5lp-hightpu-4t", tpuTopology="2x2")) == {}


def test_a_tpu_pod_may_run_on_standard():
    inputs = with_machine(machineType="ct5lp-hightpu-4t", tpuTopology="4x4")
    inputs["jobSpec"]["scheduling"] = {"strategy": "STANDARD"}
    assert failures_at(inputs) == {}


def test_max_wait_duration_is_accepted_with_flex_start():
    inputs = _flex()
    inputs["jobSpec"]["scheduling"]["maxWaitDuration"] = "1800s"
    assert failures_at(inputs) == {}


def test_unknown_preview_values_are_not_judged():
    unknown = "04da6b54-80e4-46f7-96ec-b56ff0331ba9"
    inputs = job_inputs(displayName=unknown)
    inputs["jobSpec"]["workerPoolSpecs"][0]["containerSpec"]["imageUri"] = unknown
    assert spec.validate(inputs, unknown=unknown) == []


def test_require_valid_lists_every_failure_with_a_prefix():
    inputs = job_inputs(location="nowhere", displayName="x" * 200)
    with pytest.raises(spec.SpecError) as raised:
        spec.require_valid(inputs, prefix="spot-training:jobs.resnet")
    message = str(raised.value)
    assert "spot-training:jobs.resnet.location" in message
    assert "spot-training:jobs.resnet.displayName" in message


def test_a_flex_start_rung_is_not_judged_on_an_accelerator_a_preview_cannot_know():
    unknown = "04da6b54-80e4-46f7-96ec-b56ff0331ba9"
    inputs = with_machine(acceleratorType=unknown, acceleratorCount=1)
    inputs["resubmission"] = {"fallback": [{"afterStockouts": 1, "strategy": "FLEX_START"}]}
    assert spec.validate(inputs, unknown=unknown) == []
    assert [f.path for f in spec.validate({**inputs, "jobSpec": job_inputs()["jobSpec"]})] == ["resubmission.fallback[0].strategy"]


# Issue 11.2: an empty value is an unset one, as the API reads it (proto3 has no
# presence: https://protobuf.dev/programming-guides/proto3/#default); pipeline
# components send unset options like this.
EMPTY_BUT_VALID = [
    ("an empty CMEK key", lambda: job_inputs(encryptionSpec={"kmsKeyName": ""})),
    ("an empty encryptionSpec", lambda: job_inputs(encryptionSpec={})),
    ("an empty persistent resource on Spot", lambda: with_spec(persistentResourceId="")),
    ("an empty output directory", lambda: with_spec(baseOutputDirectory={"outputUriPrefix": ""})),
    ("an empty baseOutputDirectory", lambda: with_spec(baseOutputDirectory={})),
    ("an empty service account", lambda: with_spec(serviceAccount="")),
    ("an empty network", lambda: with_spec(network="")),
    ("an empty tensorboard", lambda: with_spec(tensorboard="")),
    ("empty reserved ranges", lambda: with_spec(reservedIpRanges=[])),
    ("false flags", lambda: with_spec(enableWebAccess=False, enableDashboardAccess=False)),
    ("empty labels", lambda: job_inputs(labels={})),
]


@pytest.mark.parametrize("empty", [case for _, case in EMPTY_BUT_VALID], ids=[name for name, _ in EMPTY_BUT_VALID])
def test_an_empty_value_validates_as_absent_and_is_not_submitted(empty):
    inputs = empty()
    assert spec.validate(inputs) == []
    assert spec.request_body(inputs) == spec.request_body(job_inputs())  # no diff between the two spellings


def test_the_persistent_resource_refusal_says_what_to_write_instead():
    [failure] = spec.validate(with_spec(persistentResourceId="pool-1"))
    assert failure.path == "jobSpec.persistentResourceId" and "scheduling.strategy STANDARD" in failure.reason


# https://cloud.google.com/java/docs/reference/google-cloud-aiplatform/3.45.0/com.google.cloud.aiplatform.v1.CustomJobOrBuilder
# ("International characters are allowed")
@pytest.mark.parametrize("value", ["équipe-vision", "ビジョン", "команда_1", "视觉"])
def test_a_label_value_in_lowercase_letters_of_any_script_is_accepted(value):
    assert spec.validate(job_inputs(labels={"team": value})) == []


def test_a_label_value_refusal_says_what_to_write():
    assert "'computer-vision'" in failures_at(job_inputs(labels={"team": "Computer Vision"}))["labels.team"]


# https://docs.cloud.google.com/dotnet/docs/reference/Google.Cloud.AIPlatform.V1Beta1/latest/Google.Cloud.AIPlatform.V1Beta1.DiskSpec
@pytest.mark.parametrize("disk", [{"bootDiskType": "hyperdisk-balanced", "bootDiskSizeGb": 200}, {"bootDiskType": "pd-standard", "bootDiskSizeGb": "100"}, {"bootDiskSizeGb": 64000}])
def test_documented_boot_disks_are_accepted(disk):
    assert spec.validate(with_pool(0, diskSpec=disk)) == []


# https://docs.cloud.google.com/gemini-enterprise-agent-platform/reference/rest/Shared.Types/CustomJobSpec
def test_replica_count_zero_in_a_worker_pool_says_to_write_an_empty_pool():
    reason = failures_at(with_pool(1, replicaCount=0))["jobSpec.workerPoolSpecs[1].replicaCount"]
    assert "{}" in reason
    placeholder = job_inputs()
    placeholder["jobSpec"]["workerPoolSpecs"] += [{}, python_package_pool(replicaCount=2)]
    assert spec.validate(placeholder) == []


# gcloud's --config takes a scalar for a repeated field and one worker pool as a
# mapping, and submits each as a one-item list (apitools protojson, "Normalize
# values in to a list"): the same job, no diff.
# https://cloud.google.com/sdk/gcloud/reference/ai/custom-jobs/create
def test_a_scalar_for_a_repeated_field_is_a_one_item_list():
    listed = with_pool(0, containerSpec={"imageUri": "gcr.io/a/b", "args": ["--epochs=3"]})
    scalar = copy.deepcopy(listed)
    scalar["jobSpec"]["workerPoolSpecs"][0]["containerSpec"]["args"] = "--epochs=3"
    mapping = copy.deepcopy(scalar)
    mapping["jobSpec"]["workerPoolSpecs"] = mapping["jobSpec"]["workerPoolSpecs"][0]
    for gcloud in (scalar, mapping):
        assert spec.validate(gcloud) == []
        assert spec.job_definition(gcloud) == spec.job_definition(listed)
        assert spec.spec_hash(gcloud) == spec.spec_hash(listed)


# The canonical form is kept per definition (spec._canonical_json): it must be the very form
# computed afresh, of its exact types, and each caller's own to change.
def _forms_written_many_ways() -> list[dict]:
    scalar = with_pool(0, containerSpec={"imageUri": "gcr.io/a/b", "args": "--epochs=3"})
    wired = job_inputs()
    wired["jobSpec"]["workerPoolSpecs"][0]["replicaCount"] = 1.0
    dressed = job_inputs(labels={"b": "2", "a": "1"})
    dressed["jobSpec"]["scheduling"] = {"timeout": "3600.000s", "strategy": "SPOT", "disableRetries": False}
    unknown = job_inputs()
    unknown["jobSpec"]["workerPoolSpecs"][0]["containerSpec"]["imageUri"] = "04da6b54-80e4-46f7-96ec-b56ff0331ba9"
    return [job_inputs(), scalar, wired, dressed, unknown, _flex("3600s"), docs_request_body()]


@pytest.mark.parametrize("inputs", _forms_written_many_ways())
def test_the_kept_canonical_form_is_the_one_computed_afresh(inputs):
    afresh = spec._canonical({k: inputs[k] for k in spec.JOB_FIELDS if inputs.get(k) is not None})
    for _ in range(2):  # the first computes it, the second finds it kept
        found = spec.job_definition(copy.deepcopy(inputs))
        assert found == afresh
        assert list(found) == list(afresh) and repr(found) == repr(afresh)  # the same order and types


def test_each_caller_gets_a_canonical_form_of_its_own():
    first = spec.job_definition(job_inputs())
    first["jobSpec"]["workerPoolSpecs"][0]["machineSpec"]["machineType"] = "changed"
    first["labels"] = {"changed": "yes"}
    assert spec.job_definition(job_inputs()) == spec._canonical(job_inputs())
    assert spec.job_definition(job_inputs()) is not spec.job_definition(job_inputs())


def test_a_value_json_would_write_as_another_is_not_kept():
    # A tuple is written as a list by JSON, but as_lists takes it for one item; an int subclass as an int.
    tupled = job_inputs()
    tupled["jobSpec"]["workerPoolSpecs"][0]["containerSpec"]["args"] = ("--epochs=3",)
    assert not spec._plain_json(tupled)
    assert spec.job_definition(tupled) == spec._canonical({k: tupled[k] for k in spec.JOB_FIELDS if k in tupled})
    assert not spec._plain_json({"n": True.__class__(1)} | {"m": type("Count", (int,), {})(1)})
    assert spec._plain_json(job_inputs())
