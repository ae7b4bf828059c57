"""The policy pack (policy/), through its real Analyzer gRPC server, as `pulumi preview --policy-pack policy` runs it."""

from __future__ import annotations

import copy
import json

import pytest

from tests.policy_pack import POLICY_DIR, STACKS_DIR_ENV, UNKNOWN, PolicyPackHost
from tests.program import STACKS, render, stack_config

BUCKET = "gcp:storage/bucket:Bucket"
BUCKET_MEMBER = "gcp:storage/bucketIAMMember:BucketIAMMember"
BUCKET_BINDING = "gcp:storage/bucketIAMBinding:BucketIAMBinding"
BUCKET_POLICY = "gcp:storage/bucketIAMPolicy:BucketIAMPolicy"
PROJECT_MEMBER = "gcp:projects/iAMMember:IAMMember"
PROJECT_BINDING = "gcp:projects/iAMBinding:IAMBinding"
PROJECT_POLICY = "gcp:projects/iAMPolicy:IAMPolicy"
SA_MEMBER = "gcp:serviceaccount/iAMMember:IAMMember"
SA_BINDING = "gcp:serviceaccount/iAMBinding:IAMBinding"
SA_ACCOUNT = "gcp:serviceaccount/account:Account"
SA_KEY = "gcp:serviceaccount/key:Key"
REPO_MEMBER = "gcp:artifactregistry/repositoryIamMember:RepositoryIamMember"
REPO_BINDING = "gcp:artifactregistry/repositoryIamBinding:RepositoryIamBinding"
REPO_POLICY = "gcp:artifactregistry/repositoryIamPolicy:RepositoryIamPolicy"
REPOSITORY = "gcp:artifactregistry/repository:Repository"
JOB = "pulumi-python:dynamic/spot-training:SpotTrainingJob"

DEFAULT_LEVELS = {
    "bucket-uniform-access": "mandatory",
    "bucket-public-access-prevention": "mandatory",
    "bucket-no-public-members": "mandatory",
    "iam-no-basic-roles": "mandatory",
    "iam-no-project-impersonation": "mandatory",
    "iam-no-service-account-keys": "mandatory",
    "artifact-registry-no-public-readers": "mandatory",
    "job-spot-strategy": "advisory",  # cost
    "job-image-pinned": "mandatory",
    "job-labels": "mandatory",
    "job-cmek": "mandatory",
    "job-env-no-credentials": "mandatory",
    "job-spec-advice": "advisory",  # the project's own advice, no rule of Google's (issue 23.13)
    "residency-allowed-locations": "mandatory",
    "team-hourly-budget": "advisory",  # cost; a stack with budgetEnforcement: mandatory gets the next one
    "team-hourly-budget-mandatory": "mandatory",
}

SA = "serviceAccount:vision-train-dev@acme-ml-dev.iam.gserviceaccount.com"
PINNED = "us-central1-docker.pkg.dev/acme-ml-dev/vision/trainer@sha256:" + "5" * 64
T4 = {"machineType": "n1-standard-8", "acceleratorType": "NVIDIA_TESLA_T4", "acceleratorCount": 1}
L4 = {"machineType": "g2-standard-8", "acceleratorType": "NVIDIA_L4", "acceleratorCount": 1}
CPU = {"machineType": "n1-standard-8"}


def policy_data(role: str, *members: str) -> str:
    return json.dumps({"bindings": [{"role": role, "members": list(members)}]})


# Compliant resources, one per shape; each violating case below changes one of them.
COMPLIANT = {
    BUCKET: {
        "name": "acme-ml-dev-vision-staging",
        "location": "US-CENTRAL1",
        "uniformBucketLevelAccess": True,
        "publicAccessPrevention": "enforced",
    },
    BUCKET_MEMBER: {"bucket": "acme-ml-dev-vision-staging", "role": "roles/storage.objectViewer", "member": SA},
    BUCKET_BINDING: {"bucket": "acme-ml-dev-vision-staging", "role": "roles/storage.objectViewer", "members": [SA]},
    BUCKET_POLICY: {"bucket": "acme-ml-dev-vision-staging", "policyData": policy_data("roles/storage.objectViewer", SA)},
    PROJECT_MEMBER: {"project": "acme-ml-dev", "role": "roles/logging.logWriter", "member": SA},
    PROJECT_BINDING: {"project": "acme-ml-dev", "role": "roles/monitoring.metricWriter", "members": [SA]},
    PROJECT_POLICY: {"project": "acme-ml-dev", "policyData": policy_data("roles/logging.logWriter", SA)},
    # actAs on the one account is how the stack grants it.
    SA_MEMBER: {"serviceAccountId": "projects/acme-ml-dev/serviceAccounts/x", "role": "roles/iam.serviceAccountUser", "member": "group:vision-ml@acme.example"},
    SA_BINDING: {"serviceAccountId": "projects/acme-ml-dev/serviceAccounts/x", "role": "roles/iam.serviceAccountUser", "members": ["group:vision-ml@acme.example"]},
    SA_ACCOUNT: {"accountId": "vision-train-dev"},
    REPO_MEMBER: {"repository": "vision", "role": "roles/artifactregistry.reader", "member": SA},
    REPO_BINDING: {"repository": "vision", "role": "roles/artifactregistry.reader", "members": [SA]},
    REPO_POLICY: {"repository": "vision", "policyData": policy_data("roles/artifactregistry.reader", SA)},
    JOB: {
        "project": "acme-ml-dev",
        "location": "us-central1",
        "displayName": "vision-resnet",
        "labels": {"team": "vision", "environment": "dev"},
        "jobSpec": {
            "workerPoolSpecs": [{"machineSpec": T4, "replicaCount": 1, "containerSpec": {"imageUri": PINNED}}],
            "scheduling": {"strategy": "SPOT"},
        },
    },
}


def changed(type_: str, change) -> dict:
    props = copy.deepcopy(COMPLIANT[type_])
    change(props)
    return props


HF_TOKEN = "hf_" + "Q7x" * 12  # shapes of real tokens; made up
GITHUB_TOKEN = "ghp_" + "a1B2" * 9
AWS_KEY_ID = "AKIA" + "Z7Q2" * 4
OPENAI_KEY = "sk-proj-" + "x9Y8" * 6
SECRET_VERSION = "projects/acme-ml-dev/secrets/hf-token/versions/latest"


def with_env(*pairs, task="containerSpec"):
    def change(props):
        if task == "pythonPackageSpec":
            python_package_job(props)
        props["jobSpec"]["workerPoolSpecs"][0][task]["env"] = [{"name": n, "value": v} for n, v in pairs]
    return change


def python_package_job(props):
    props["jobSpec"]["workerPoolSpecs"] = [{
        "machineSpec": CPU,
        "pythonPackageSpec": {
            "executorImageUri": "us-docker.pkg.dev/vertex-ai/training/sklearn-cpu.1-6:latest",
            "packageUris": ["gs://acme-ml-dev-tabular-staging/packages/533e71d8a3abff98/tabular_trainer-0.1.0.tar.gz"],
            "pythonModule": "tabular_trainer.task",
        },
    }]


def with_rung(strategy: str, pools=None):
    def change(props):
        props["resubmission"] = {"maxResubmissions": 3, "fallback": [{"afterStockouts": 2, "strategy": strategy}]}
        if pools is not None:
            props["jobSpec"]["workerPoolSpecs"] = [
                {"machineSpec": machine, "replicaCount": 1, "containerSpec": {"imageUri": PINNED}} for machine in pools
            ]
    return change


# (policy, type, props, field the message names)
VIOLATIONS = [
    ("bucket-uniform-access", BUCKET, changed(BUCKET, lambda p: p.update(uniformBucketLevelAccess=False)), "uniformBucketLevelAccess is false"),
    ("bucket-uniform-access", BUCKET, changed(BUCKET, lambda p: p.pop("uniformBucketLevelAccess")), "uniformBucketLevelAccess is not set"),
    ("bucket-public-access-prevention", BUCKET, changed(BUCKET, lambda p: p.update(publicAccessPrevention="inherited")), 'publicAccessPrevention is "inherited"'),
    ("bucket-no-public-members", BUCKET_MEMBER, changed(BUCKET_MEMBER, lambda p: p.update(member="allUsers")), "member is allUsers"),
    ("bucket-no-public-members", BUCKET_BINDING, changed(BUCKET_BINDING, lambda p: p["members"].append("allAuthenticatedUsers")), "members[1] is allAuthenticatedUsers"),
    ("bucket-no-public-members", BUCKET_POLICY, changed(BUCKET_POLICY, lambda p: p.update(policyData=policy_data("roles/storage.objectViewer", SA, "allUsers"))), "policyData.bindings[0].members[1] is allUsers"),
    ("iam-no-basic-roles", PROJECT_MEMBER, changed(PROJECT_MEMBER, lambda p: p.update(role="roles/editor")), "role is roles/editor"),
    ("iam-no-basic-roles", PROJECT_POLICY, changed(PROJECT_POLICY, lambda p: p.update(policyData=policy_data("roles/owner", SA))), "policyData.bindings[0].role is roles/owner"),
    ("iam-no-basic-roles", SA_BINDING, changed(SA_BINDING, lambda p: p.update(role="roles/owner")), "role is roles/owner"),
    ("iam-no-basic-roles", BUCKET_MEMBER, changed(BUCKET_MEMBER, lambda p: p.update(role="roles/viewer")), "role is roles/viewer"),
    ("iam-no-basic-roles", REPO_BINDING, changed(REPO_BINDING, lambda p: p.update(role="roles/editor")), "role is roles/editor"),
    ("iam-no-project-impersonation", PROJECT_MEMBER, changed(PROJECT_MEMBER, lambda p: p.update(role="roles/iam.serviceAccountUser")), "role is roles/iam.serviceAccountUser at project level"),
    ("iam-no-project-impersonation", PROJECT_BINDING, changed(PROJECT_BINDING, lambda p: p.update(role="roles/iam.serviceAccountTokenCreator")), "role is roles/iam.serviceAccountTokenCreator at project level"),
    ("iam-no-project-impersonation", PROJECT_POLICY, changed(PROJECT_POLICY, lambda p: p.update(policyData=policy_data("roles/iam.serviceAccountUser", SA))), "policyData.bindings[0].role is roles/iam.serviceAccountUser"),
    ("iam-no-service-account-keys", SA_KEY, {"serviceAccountId": "vision-train-dev@acme-ml-dev.iam.gserviceaccount.com"}, "serviceAccountId vision-train-dev@"),
    ("artifact-registry-no-public-readers", REPO_MEMBER, changed(REPO_MEMBER, lambda p: p.update(member="allUsers")), "member is allUsers"),
    ("artifact-registry-no-public-readers", REPO_BINDING, changed(REPO_BINDING, lambda p: p["members"].append("allAuthenticatedUsers")), "members[1] is allAuthenticatedUsers"),
    ("artifact-registry-no-public-readers", REPO_POLICY, changed(REPO_POLICY, lambda p: p.update(policyData=policy_data("roles/artifactregistry.reader", "allUsers"))), "policyData.bindings[0].members[0] is allUsers"),
    ("job-spot-strategy", JOB, changed(JOB, lambda p: p["jobSpec"]["scheduling"].update(strategy="STANDARD")), "jobSpec.scheduling.strategy is STANDARD"),
    ("job-spot-strategy", JOB, changed(JOB, with_rung("STANDARD")), "resubmission.fallback[0].strategy is STANDARD"),
    ("job-spot-strategy", JOB, changed(JOB, with_rung("auto", pools=[T4, CPU])), "resubmission.fallback[0].strategy is auto, STANDARD for this job"),
    # Flex-start takes L4, A100, H100, H200, B200 only, the same machine in every pool (issue 11.7):
    # https://cloud.google.com/vertex-ai/docs/training/schedule-jobs-dws
    ("job-spot-strategy", JOB, changed(JOB, with_rung("auto", pools=[T4, T4])), "resubmission.fallback[0].strategy is auto, STANDARD for this job"),
    ("job-spot-strategy", JOB, changed(JOB, with_rung("auto", pools=[L4, {**L4, "acceleratorCount": 2}])), "resubmission.fallback[0].strategy is auto, STANDARD for this job"),
    ("job-image-pinned", JOB, changed(JOB, lambda p: p["jobSpec"]["workerPoolSpecs"][0]["containerSpec"].update(imageUri="us-central1-docker.pkg.dev/acme-ml-dev/vision/trainer:latest")), "jobSpec.workerPoolSpecs[0].containerSpec.imageUri is"),
    ("job-image-pinned", JOB, changed(JOB, lambda p: p["jobSpec"]["workerPoolSpecs"].append({"machineSpec": T4, "replicaCount": 2, "containerSpec": {"imageUri": "trainer@sha256:abc"}})), 'jobSpec.workerPoolSpecs[1].containerSpec.imageUri is "trainer@sha256:abc"'),
    # Only Google's own repository is exempt: a look-alike path in another project, or another vertex-ai repository, is not.
    ("job-image-pinned", JOB, changed(JOB, lambda p: p["jobSpec"]["workerPoolSpecs"][0]["containerSpec"].update(imageUri="us-docker.pkg.dev/acme/vertex-ai/training/tf-cpu.2-17.py310:latest")), "(Google's prebuilt training images, {us,europe,asia}-docker.pkg.dev/vertex-ai/training/<name>:<tag>, are exempt as written)"),
    ("job-image-pinned", JOB, changed(JOB, lambda p: p["jobSpec"]["workerPoolSpecs"][0]["containerSpec"].update(imageUri="us-docker.pkg.dev/vertex-ai/prediction/tf2-cpu.2-17:latest")), "imageUri is \"us-docker.pkg.dev/vertex-ai/prediction/"),
    ("job-labels", JOB, changed(JOB, lambda p: p["labels"].pop("team")), "labels.team is missing"),
    ("job-labels", JOB, changed(JOB, lambda p: p["labels"].update(environment="")), "labels.environment is empty"),
    ("job-env-no-credentials", JOB, changed(JOB, with_env(("LOG_LEVEL", "info"), ("HF_TOKEN", HF_TOKEN))), "jobSpec.workerPoolSpecs[0].containerSpec.env[1] (HF_TOKEN)"),
    ("job-env-no-credentials", JOB, changed(JOB, with_env(("DB_PASSWORD", "hunter22"))), "env[0] (DB_PASSWORD) is a literal value"),
    ("job-env-no-credentials", JOB, changed(JOB, with_env(("WANDB_API_KEY", "0123456789abcdef"), task="pythonPackageSpec")), "jobSpec.workerPoolSpecs[0].pythonPackageSpec.env[0] (WANDB_API_KEY)"),
    ("job-env-no-credentials", JOB, changed(JOB, with_env(("CLIENT_SECRET", "abc-def-123"))), "env[0] (CLIENT_SECRET)"),
    ("job-env-no-credentials", JOB, changed(JOB, with_env(("REPO", f"https://x:{GITHUB_TOKEN}@github.com/acme/data"))), "env[0] (REPO) holds what looks like a GitHub token"),
    ("job-env-no-credentials", JOB, changed(JOB, with_env(("AWS_ID", AWS_KEY_ID))), "env[0] (AWS_ID) holds what looks like an AWS access key"),
    ("job-env-no-credentials", JOB, changed(JOB, with_env(("LLM", OPENAI_KEY))), "env[0] (LLM) holds what looks like an OpenAI-style API key"),
    ("job-env-no-credentials", JOB, changed(JOB, with_env(("MODEL", HF_TOKEN))), "env[0] (MODEL) holds what looks like a Hugging Face token"),
    # What the resource's rules no longer refuse, no source saying Vertex does (issue 23.13): advice here.
    ("job-spec-advice", JOB, changed(JOB, with_env(("LOG_LEVEL", "info"), ("LOG_LEVEL", "debug"))), "jobSpec.workerPoolSpecs[0].containerSpec.env[1] sets LOG_LEVEL a second time"),
    ("job-spec-advice", JOB, changed(JOB, lambda p: p["jobSpec"].update(tensorboard="projects/acme-ml-dev/locations/europe-west4/tensorboards/1")), "jobSpec.tensorboard is in europe-west4, the job in us-central1"),
]

COMPLIANT_TOO = [
    pytest.param(JOB, changed(JOB, lambda p: p["jobSpec"].pop("scheduling")), id="job-without-strategy-is-spot"),
    pytest.param(JOB, changed(JOB, lambda p: p["jobSpec"]["scheduling"].update(strategy="FLEX_START")), id="job-flex-start"),
    pytest.param(JOB, changed(JOB, with_rung("FLEX_START")), id="job-flex-start-rung"),
    pytest.param(JOB, changed(JOB, with_rung("auto", pools=[L4, L4])), id="job-auto-rung-all-flex-start-gpus-is-flex-start"),
    # NO_RESERVATION consumes none: Flex-start takes it, so `auto` still resolves to FLEX_START (issue 23.12).
    pytest.param(JOB, changed(JOB, with_rung("auto", pools=[{**L4, "reservationAffinity": {"reservationAffinityType": "NO_RESERVATION"}}])), id="job-auto-rung-no-reservation-is-flex-start"),
    pytest.param(JOB, changed(JOB, lambda p: p["jobSpec"].update(scheduling={"strategy": "FLEX_START", "maxWaitDuration": "3600s"})), id="job-flex-start-max-wait"),
    pytest.param(JOB, changed(JOB, lambda p: p.update(resubmission={"maxResubmissions": 3, "fallback": [{"afterStockouts": 2, "location": "us-east1"}]})), id="job-rung-without-strategy-keeps-the-jobs"),
    pytest.param(JOB, changed(JOB, python_package_job), id="job-prebuilt-executor-image-by-tag"),
    pytest.param(JOB, changed(JOB, lambda p: p["jobSpec"]["workerPoolSpecs"].append({})), id="job-empty-pool-slot"),
    # Google's Spot example (https://cloud.google.com/vertex-ai/docs/training/use-spot-vms) puts a prebuilt training
    # container in containerSpec.imageUri; the hosts are those of https://cloud.google.com/vertex-ai/docs/training/pre-built-containers
    pytest.param(JOB, changed(JOB, lambda p: p["jobSpec"]["workerPoolSpecs"][0]["containerSpec"].update(imageUri="us-docker.pkg.dev/vertex-ai/training/tf-cpu.2-17.py310:latest")), id="job-google-prebuilt-training-container-by-tag"),
    pytest.param(JOB, changed(JOB, lambda p: p["jobSpec"]["workerPoolSpecs"][0]["containerSpec"].update(imageUri="europe-docker.pkg.dev/vertex-ai/training/pytorch-gpu.2-4.py310:latest")), id="job-google-prebuilt-training-container-europe"),
    pytest.param(SA_ACCOUNT, COMPLIANT[SA_ACCOUNT], id="service-account-without-key"),
    pytest.param(JOB, changed(JOB, with_env(("HF_TOKEN", SECRET_VERSION))), id="job-env-secret-manager-version"),
    pytest.param(JOB, changed(JOB, with_env(("HF_TOKEN_SECRET", "projects/acme-ml-dev/secrets/hf-token"))), id="job-env-secret-manager-secret"),
    pytest.param(JOB, changed(JOB, with_env(("TOKENIZER", "bert-base-uncased"), ("MAX_TOKENS", "512"), ("LOG_LEVEL", "info"))), id="job-env-words-that-only-contain-token"),
    pytest.param(JOB, changed(JOB, with_env(("HF_TOKEN", ""))), id="job-env-empty-credential-name"),
]


@pytest.fixture(scope="module")
def pack():
    with PolicyPackHost() as host:
        yield host


@pytest.fixture(scope="module")
def settings_pack(tmp_path_factory):
    """A pack reading stack settings from a directory of test stacks ($SPOT_TRAINING_STACKS_DIR)."""
    stacks = tmp_path_factory.mktemp("stacks")
    files = {
        "cmek": {"requireCmek": True},
        "broken": {"allowedStrategies": "SPOT", "requireCmek": "yes", "requireCMEK": True, "allowedLocations": "us-central1"},
        "notmap": ["SPOT"],
        "badregion": {"allowedLocations": ["us-central1", "US Central", 4]},
        "emptyregions": {"allowedLocations": []},
        # Upper-case on purpose: compared case-insensitively, as a bucket's location is written.
        "residency": {"allowedLocations": ["US-CENTRAL1", "us-east1"]},
    }
    for name, value in files.items():
        (stacks / f"Pulumi.{name}.yaml").write_text(json.dumps({"config": {"spot-training:policy": value}}))
    with PolicyPackHost({STACKS_DIR_ENV: str(stacks)}) as host:
        yield host


def named(diagnostics, policy):
    return [d for d in diagnostics if d[0] == policy]


@pytest.mark.parametrize("type_, props", [pytest.param(t, p, id=t.rsplit(":", 1)[-1] + "-" + t.split("/")[0].split(":")[1]) for t, p in COMPLIANT.items()] + COMPLIANT_TOO)
def test_a_compliant_resource_passes_every_policy(pack, type_, props):
    assert pack.analyze(type_, "r", props) == []


@pytest.mark.parametrize("policy, type_, props, field", VIOLATIONS, ids=[f"{v[0]}:{v[3][:40]}" for v in VIOLATIONS])
def test_a_violation_names_the_policy_the_field_and_the_level(pack, policy, type_, props, field):
    diagnostics = pack.analyze(type_, "r", props)
    assert [d[0] for d in diagnostics] == [policy], diagnostics
    (_, message, level), = diagnostics
    assert field in message
    assert level == DEFAULT_LEVELS[policy]


def test_default_enforcement_levels_security_mandatory_cost_advisory(pack):
    info = pack.info()
    assert info.name == "spot-training"
    assert pack.levels() == DEFAULT_LEVELS
    for policy in info.policies:
        assert policy.description, policy.name


def test_the_policy_pack_config_overrides_a_level(pack):
    example = json.loads((POLICY_DIR / "config.example.json").read_text())
    assert example == {"job-spot-strategy": "mandatory"}
    standard = changed(JOB, lambda p: p["jobSpec"]["scheduling"].update(strategy="STANDARD"))
    try:
        pack.configure(example)
        assert [(d[0], d[2]) for d in pack.analyze(JOB, "r", standard)] == [("job-spot-strategy", "mandatory")]
        pack.configure({"job-spot-strategy": "disabled"})
        assert pack.analyze(JOB, "r", standard) == []
    finally:
        pack.configure({})
    assert [(d[0], d[2]) for d in pack.analyze(JOB, "r", standard)] == [("job-spot-strategy", "advisory")]


def test_a_standard_job_violates_in_dev_and_passes_in_prod(pack):
    standard = changed(JOB, lambda p: p["jobSpec"]["scheduling"].update(strategy="STANDARD"))
    (dev,) = pack.analyze(JOB, "r", standard, stack="dev")
    assert "stack dev allows SPOT, FLEX_START (spot-training:policy.allowedStrategies in stacks/Pulumi.dev.yaml)" in dev[1]
    assert pack.analyze(JOB, "r", {**standard, "location": "europe-west4"}, stack="prod") == []  # in prod's region
    # A stack without a file gets the defaults.
    assert [d[0] for d in pack.analyze(JOB, "r", standard, stack="staging")] == ["job-spot-strategy"]


def test_a_stack_that_requires_cmek(settings_pack):
    diagnostics = settings_pack.analyze(JOB, "r", COMPLIANT[JOB], stack="cmek")
    assert [(d[0], d[2]) for d in diagnostics] == [("job-cmek", "mandatory")]
    assert "encryptionSpec.kmsKeyName is not set" in diagnostics[0][1]
    assert "spot-training:policy.requireCmek" in diagnostics[0][1]
    key = "projects/acme-ml-dev/locations/us-central1/keyRings/ml/cryptoKeys/jobs"
    encrypted = changed(JOB, lambda p: p.update(encryptionSpec={"kmsKeyName": key}))
    assert settings_pack.analyze(JOB, "r", encrypted, stack="cmek") == []
    assert settings_pack.analyze(JOB, "r", COMPLIANT[JOB], stack="other") == []  # no file there: no CMEK required


def test_malformed_stack_settings_are_violations_naming_the_key(settings_pack):
    broken = settings_pack.analyze(JOB, "r", COMPLIANT[JOB], stack="broken")
    strategy, cmek, residency = (
        " | ".join(d[1] for d in named(broken, p)) for p in ("job-spot-strategy", "job-cmek", "residency-allowed-locations")
    )
    assert "spot-training:policy.allowedStrategies in " in strategy and "must be a non-empty list of SPOT" in strategy
    assert "spot-training:policy.requireCmek in " in cmek and "must be true or false" in cmek
    assert "spot-training:policy.allowedLocations in " in residency and "must be a non-empty list of region ids" in residency
    for messages in (strategy, cmek, residency):  # unknown key
        assert "spot-training:policy.requireCMEK in " in messages
        assert "the keys are allowedStrategies, requireCmek, allowedLocations, teamHourlyBudget, budgetEnforcement" in messages
    assert "must be true or false" not in strategy and "must be a non-empty list" not in cmek  # each its own key
    assert "spot-training:policy.allowedLocations in" not in strategy + cmek
    notmap = settings_pack.analyze(JOB, "r", COMPLIANT[JOB], stack="notmap")
    assert sorted(d[0] for d in notmap) == ["job-cmek", "job-spot-strategy", "residency-allowed-locations"]
    assert all("spot-training:policy in " in d[1] and "must be a map" in d[1] for d in notmap)


def in_region(region: str):
    return lambda p: p.update(location=region)


def with_region_rung(*rungs):
    def change(props):
        props["resubmission"] = {"maxResubmissions": 4, "fallback": list(rungs)}
    return change


RESIDENCY_WHERE = "stack residency allows us-central1, us-east1 (spot-training:policy.allowedLocations in "


@pytest.mark.parametrize("type_, props", [
    pytest.param(JOB, COMPLIANT[JOB], id="job-in-its-region"),
    pytest.param(JOB, changed(JOB, in_region("US-EAST1")), id="job-any-case"),
    pytest.param(JOB, changed(JOB, with_region_rung({"afterStockouts": 2, "location": "us-east1"}, {"afterStockouts": 4, "strategy": "FLEX_START"})), id="job-ladder-within"),
    pytest.param(BUCKET, COMPLIANT[BUCKET], id="bucket-upper-case"),
    pytest.param(REPOSITORY, {"repositoryId": "vision", "format": "DOCKER", "location": "us-east1"}, id="repository"),
    # The repository's own location is checked, not each grant on it.
    pytest.param(REPO_MEMBER, {**COMPLIANT[REPO_MEMBER], "location": "europe-west4"}, id="other-types-unchecked"),
])
def test_allowed_locations_pass(settings_pack, type_, props):
    assert settings_pack.analyze(type_, "r", props, stack="residency") == []


@pytest.mark.parametrize("type_, props, messages", [
    pytest.param(JOB, changed(JOB, in_region("europe-west4")), ["location is europe-west4; " + RESIDENCY_WHERE], id="job-location"),
    pytest.param(
        JOB,
        changed(JOB, with_region_rung({"afterStockouts": 1, "strategy": "FLEX_START"}, {"afterStockouts": 2, "location": "us-east1"}, {"afterStockouts": 3, "location": "europe-west4", "strategy": "SPOT"})),
        ["resubmission.fallback[2].location is europe-west4; " + RESIDENCY_WHERE],
        id="job-ladder-rung",
    ),
    pytest.param(
        JOB,
        changed(JOB, lambda p: (in_region("asia-east1")(p), with_region_rung({"afterStockouts": 2, "location": "europe-west4"})(p))),
        ["location is asia-east1; ", "resubmission.fallback[0].location is europe-west4; "],
        id="job-every-offending-region",
    ),
    pytest.param(BUCKET, changed(BUCKET, in_region("EUROPE-WEST4")), ["location is EUROPE-WEST4; " + RESIDENCY_WHERE], id="bucket"),
    pytest.param(BUCKET, changed(BUCKET, in_region("US")), ["location is US; "], id="bucket-multi-region"),
    pytest.param(REPOSITORY, {"repositoryId": "vision", "format": "DOCKER", "location": "europe-west4"}, ["location is europe-west4; "], id="repository"),
])
def test_a_location_outside_the_allowed_ones_is_a_mandatory_violation_naming_its_path(settings_pack, type_, props, messages):
    diagnostics = settings_pack.analyze(type_, "r", props, stack="residency")
    assert [(d[0], d[2]) for d in diagnostics] == [("residency-allowed-locations", "mandatory")] * len(messages), diagnostics
    for diagnostic, message in zip(diagnostics, messages):
        assert message in diagnostic[1]
        assert "or allow " in diagnostic[1]


def test_without_allowed_locations_every_region_is_allowed(pack, settings_pack):
    far = changed(JOB, lambda p: (in_region("asia-east1")(p), with_region_rung({"afterStockouts": 2, "location": "me-west1"})(p)))
    assert pack.analyze(JOB, "r", far, stack="dev") == []
    assert [d[0] for d in settings_pack.analyze(JOB, "r", far, stack="cmek")] == ["job-cmek"]  # other settings only
    assert settings_pack.analyze(BUCKET, "r", changed(BUCKET, in_region("ASIA-EAST1")), stack="nofile") == []


def test_malformed_allowed_locations_name_the_key(settings_pack):
    bad = settings_pack.analyze(BUCKET, "r", COMPLIANT[BUCKET], stack="badregion")
    assert [d[0] for d in bad] == ["residency-allowed-locations"] * 2
    assert "spot-training:policy.allowedLocations[1] in " in bad[0][1] and "'US Central' is not a region id" in bad[0][1]
    assert "spot-training:policy.allowedLocations[2] in " in bad[1][1] and "4 is not a region id" in bad[1][1]
    (empty,) = settings_pack.analyze(REPOSITORY, "r", {"location": "us-central1"}, stack="emptyregions")
    assert "spot-training:policy.allowedLocations in " in empty[1] and "must be a non-empty list" in empty[1]
    assert empty[2] == "mandatory"


def test_prod_allows_its_region_and_the_ladders_europe_west1(pack):
    ladder = changed(JOB, lambda p: (in_region("europe-west4")(p), with_region_rung({"afterStockouts": 2, "location": "europe-west1"})(p)))
    assert pack.analyze(JOB, "r", ladder, stack="prod") == []
    (outside,) = pack.analyze(JOB, "r", changed(JOB, in_region("us-central1")), stack="prod")
    assert outside[0] == "residency-allowed-locations"
    assert "stack prod allows europe-west4, europe-west1 (spot-training:policy.allowedLocations in stacks/Pulumi.prod.yaml)" in outside[1]


def test_an_image_digest_still_unknown_in_preview_is_no_violation(pack):
    computed = changed(JOB, lambda p: p["jobSpec"]["workerPoolSpecs"][0]["containerSpec"].update(imageUri=UNKNOWN))
    assert pack.analyze(JOB, "r", computed) == []


def test_other_unknowns_are_reported_as_not_checkable_not_as_violations(pack):
    # The SDK's behaviour: an advisory "can't run policy ... during preview"; `up` checks the known value.
    computed = changed(BUCKET_MEMBER, lambda p: p.update(member=UNKNOWN))
    (diagnostic,) = pack.analyze(BUCKET_MEMBER, "r", computed)
    assert diagnostic[0] == "bucket-no-public-members" and diagnostic[2] == "advisory"
    assert "can't run policy" in diagnostic[1] and ".member can't be known during preview" in diagnostic[1]


@pytest.mark.parametrize("env", sorted(p.name.split(".")[1] for p in STACKS.glob("Pulumi.*.yaml")))
def test_every_stack_passes_the_whole_pack(pack, env):
    resources = render(stack_config(env), stack=env).resources
    types = {r.typ for r in resources}
    assert {BUCKET, BUCKET_MEMBER, PROJECT_MEMBER, SA_MEMBER, REPO_MEMBER, JOB} <= types
    diagnostics = {r.name: pack.analyze(r.typ, r.name, dict(r.inputs), stack=env) for r in resources}
    assert {name: found for name, found in diagnostics.items() if found} == {}


def test_a_credential_in_env_is_never_quoted_and_the_fix_is_named(pack):
    for name, value in (("HF_TOKEN", HF_TOKEN), ("REPO", f"https://x:{GITHUB_TOKEN}@github.com/acme/data"), ("DB_PASSWORD", "hunter22")):
        (diagnostic,) = pack.analyze(JOB, "r", changed(JOB, with_env((name, value))))
        message = diagnostic[1]
        assert value not in message and GITHUB_TOKEN not in message
        assert "aiplatform.customJobs.get" in message and "secrets:" in message and "${secrets." in message


def test_an_env_value_unknown_in_preview_is_no_violation(pack):
    assert pack.analyze(JOB, "r", changed(JOB, with_env(("HF_TOKEN", UNKNOWN)))) == []


def test_a_credential_set_as_a_config_secret_is_still_a_credential_in_env(pack):
    # `pulumi config set --secret` keeps it out of state and previews, not out of the CustomJob:
    # Vertex shows env to whoever may get the job. The engine sends the pack the value marked secret.
    marked = {"4dabf18193072939515e22adb298388d": "1b47061264138c4ac30d75fd1eb44270", "value": HF_TOKEN}
    (diagnostic,) = pack.analyze(JOB, "r", changed(JOB, with_env(("HF_TOKEN", marked))))
    assert diagnostic[0] == "job-env-no-credentials" and HF_TOKEN not in diagnostic[1]


def test_a_team_with_a_region_ladder_and_a_replica_repository_passes_the_whole_pack(pack):
    from tests.test_region_failover import replica_config

    cfg = replica_config()  # its ladder stays on SPOT: dev's policy allows no STANDARD (advisory)
    cfg["spot-training:teams"]["vision"]["jobs"]["resnet"]["resubmission"] = {"fallback": [{"afterStockouts": 1, "location": "us-east1"}]}
    resources = render(cfg, stack="dev").resources
    assert any(r.inputs.get("mode") == "REMOTE_REPOSITORY" for r in resources)
    diagnostics = {r.name: pack.analyze(r.typ, r.name, dict(r.inputs), stack="dev") for r in resources}
    assert {name: found for name, found in diagnostics.items() if found} == {}
