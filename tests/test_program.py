"""The program under Pulumi's mocks: every stack renders, bad config stops it early."""

import pytest

from stack_config import ConfigError
from tests.fixtures import docs_request_body
from tests.program import STACKS, Recorder, render, stack_config

STACK_NAMES = sorted(p.name.split(".")[1] for p in STACKS.glob("Pulumi.*.yaml"))


def team_config(**jobs) -> dict:
    return {
        "gcp:project": "acme-ml-dev",
        "gcp:region": "us-central1",
        "spot-training:environment": "dev",
        "spot-training:deployers": ["serviceAccount:ci@acme-ml-dev.iam.gserviceaccount.com"],
        "spot-training:teams": {"vision": {"members": ["group:vision-ml@acme.example"], "jobs": jobs}},
    }


def a_job() -> dict:
    """A job entry: the jobSpec fields of the docs' body, verbatim."""
    return docs_request_body()["jobSpec"]


def registered(recorder):
    return [r for r in recorder.resources if r.typ != "pulumi:pulumi:Stack"]


@pytest.mark.parametrize("env", STACK_NAMES)
def test_every_stack_renders_one_job_per_team_entry(env):
    config = stack_config(env)
    jobs = render(config, stack=env).of_type("SpotTrainingJob")
    expected = sorted(f"{team}-{job}" for team, t in config["spot-training:teams"].items() for job in t.get("jobs", {}))
    assert sorted(job.name for job in jobs) == expected
    assert len(config["spot-training:teams"]) >= 2


def test_a_job_gets_its_teams_defaults():
    [job] = render(team_config(resnet=a_job())).of_type("SpotTrainingJob")
    spec = job.inputs["jobSpec"]
    assert spec["serviceAccount"] == "vision-train-dev@acme-ml-dev.iam.gserviceaccount.com"
    assert spec["baseOutputDirectory"] == {"outputUriPrefix": "gs://acme-ml-dev-vision-staging/jobs/resnet"}
    assert spec["scheduling"]["strategy"] == "SPOT"
    assert job.inputs["labels"] == {"team": "vision", "environment": "dev"}
    assert job.inputs["displayName"] == "vision-resnet"


def test_explicit_service_account_and_output_directory_are_kept():
    body = {**a_job(), "serviceAccount": "other@acme-ml-dev.iam.gserviceaccount.com", "baseOutputDirectory": {"outputUriPrefix": "gs://elsewhere/out"}}
    [job] = render(team_config(resnet=body)).of_type("SpotTrainingJob")
    assert job.inputs["jobSpec"]["serviceAccount"] == "other@acme-ml-dev.iam.gserviceaccount.com"
    assert job.inputs["jobSpec"]["baseOutputDirectory"] == {"outputUriPrefix": "gs://elsewhere/out"}


def test_image_and_package_references_resolve_to_pinned_uris():
    config = team_config(
        resnet={**a_job(), "workerPoolSpecs": [{**a_job()["workerPoolSpecs"][0], "containerSpec": {"imageUri": "${images.trainer}"}}]},
    )
    config["spot-training:teams"]["vision"]["images"] = {"trainer": {"name": "trainer", "tag": "v1"}}
    [job] = render(config).of_type("SpotTrainingJob")
    uri = job.inputs["jobSpec"]["workerPoolSpecs"][0]["containerSpec"]["imageUri"]
    assert uri.startswith("us-central1-docker.pkg.dev/acme-ml-dev/vision/trainer@sha256:")

    [package_job] = [r for r in render(stack_config("dev")).of_type("SpotTrainingJob") if r.name == "tabular-baseline"]
    # The runtime the trainer depends on first, so pip finds it installed.
    runtime, trainer = package_job.inputs["jobSpec"]["workerPoolSpecs"][0]["pythonPackageSpec"]["packageUris"]
    assert runtime.startswith("gs://acme-ml-dev-tabular-staging/packages/") and runtime.endswith("/spot_training_runtime-0.1.0.tar.gz")
    assert trainer.startswith("gs://acme-ml-dev-tabular-staging/packages/") and trainer.endswith("/tabular_trainer-0.1.0.tar.gz")


def test_a_bad_job_stops_the_program_naming_the_config_path_before_anything_is_registered():
    bad = a_job()
    bad["workerPoolSpecs"][0]["replicaCount"] = 3
    bad["scheduling"]["strategy"] = "CHEAP"
    recorder = Recorder()
    with pytest.raises(ConfigError) as raised:
        render(team_config(good=a_job(), resnet=bad), recorder=recorder)
    message = str(raised.value)
    assert "spot-training:teams.vision.jobs.resnet.workerPoolSpecs[0].replicaCount" in message
    assert "spot-training:teams.vision.jobs.resnet.scheduling.strategy" in message
    assert registered(recorder) == []


@pytest.mark.parametrize(
    "change, path",
    [
        (lambda t: t.update(memebers=[]), "spot-training:teams.vision.memebers: unknown key"),
        (lambda t: t.update(bucket={"versoning": True}), "spot-training:teams.vision.bucket.versoning: unknown key"),
        (lambda t: t.update(bucket={"packageRetentionDays": "30"}), "spot-training:teams.vision.bucket.packageRetentionDays: must be"),
        (lambda t: t.update(repository={"keepRecent": 3}), "spot-training:teams.vision.repository.keepRecent: unknown key"),
        (lambda t: t.update(images={"trainer": {"name": "trainer"}}), "spot-training:teams.vision.images.trainer: must be"),
        (lambda t: t.update(packages={"trainer": "dist/x.tar.gz"}), "spot-training:teams.vision.packages.trainer: must be"),
        (lambda t: t.update(packages={"trainer": {"source": "training/nowhere"}}), "spot-training:teams.vision.packages.trainer.source: "),
        (lambda t: t.update(images={"eval": {"build": {"context": "images/nowhere"}}}), "spot-training:teams.vision.images.eval.build.context: "),
        (lambda t: t.update(members=["vision-ml@acme.example"]), "spot-training:teams.vision.members[0]: "),
        (lambda t: t["jobs"]["resnet"].update(workerPoolSpec=[]), "spot-training:teams.vision.jobs.resnet.workerPoolSpec: unknown field"),
        (lambda t: t["jobs"]["resnet"].update(waitTimeout="7200s"), "spot-training:teams.vision.jobs.resnet.waitTimeout: is 7200s; at most 1800s"),
        (lambda t: t["jobs"]["resnet"].update(onDelete="forget"), "spot-training:teams.vision.jobs.resnet.onDelete: unknown value"),
        (
            lambda t: t["jobs"]["resnet"].update(resubmission={"fallback": [{"afterStockouts": 1, "strategy": "FLEX_START"}]}),
            "spot-training:teams.vision.jobs.resnet.resubmission.fallback[0].strategy: this job cannot run on FLEX_START",
        ),
        # The stack sets these itself; a user's would be overwritten without a word (issue 11.17).
        (lambda t: t["jobs"]["resnet"].update(labels={"team": "nlp"}), "spot-training:teams.vision.jobs.resnet.labels.team: is set by the stack"),
        (
            lambda t: t["jobs"]["resnet"].update(labels={"environment": "prod"}),
            "spot-training:teams.vision.jobs.resnet.labels.environment: is set by the stack",
        ),
        (
            lambda t: t["jobs"]["resnet"]["workerPoolSpecs"][0].update(containerSpec={"imageUri": "${images.nope}"}),
            "spot-training:teams.vision.jobs.resnet.workerPoolSpecs[0].containerSpec.imageUri: ${images.nope} names no image",
        ),
    ],
)
def test_config_errors_name_their_path(change, path):
    config = team_config(resnet=a_job())
    change(config["spot-training:teams"]["vision"])
    recorder = Recorder()
    with pytest.raises(ConfigError) as raised:
        render(config, recorder=recorder)
    assert path in str(raised.value)
    assert registered(recorder) == []


@pytest.mark.parametrize(
    "key, hint",
    [
        ("spot-training:deployer", "did you mean spot-training:deployers?"),  # its deployers would lose actAs
        ("spot-training:polcy", "did you mean spot-training:policy?"),
        ("spot-training:budget", "the keys are spot-training:environment, spot-training:deployers"),
    ],
)
def test_an_unknown_key_of_the_namespace_is_an_error_with_a_suggestion(key, hint):
    config = team_config(resnet=a_job())
    config[key] = ["serviceAccount:ci@acme-ml-dev.iam.gserviceaccount.com"]
    recorder = Recorder()
    with pytest.raises(ConfigError) as raised:
        render(config, recorder=recorder)
    assert f"{key}: unknown key; {hint}" in str(raised.value)
    assert registered(recorder) == []


def test_keys_of_other_namespaces_are_left_to_their_owners():
    config = team_config(resnet=a_job())
    config["gcp:zone"] = "us-central1-a"
    config["aws:region"] = "us-east-1"
    assert render(config).of_type("SpotTrainingJob")


@pytest.mark.parametrize("key", ["gcp:region", "spot-training:environment", "spot-training:teams"])
def test_required_stack_keys_are_named(key):
    config = team_config(resnet=a_job())
    del config[key]
    with pytest.raises(ConfigError, match=key):
        render(config)


def test_a_jobs_lifecycle_keys_reach_the_resource_and_stay_out_of_its_spec():
    job = {
        **a_job(),
        "rerun": 2,
        "waitFor": "running",
        "waitTimeout": "900s",
        "onDelete": "cancel",
        "replaceOrder": "submitFirst",
        "resubmission": {"maxResubmissions": 5, "onOtherFailures": True},
    }
    [resource] = render(team_config(resnet=job)).of_type("SpotTrainingJob")
    inputs = resource.inputs
    assert inputs["rerun"] == "2"  # any YAML scalar will do as a trigger
    assert (inputs["waitFor"], inputs["waitTimeout"], inputs["onDelete"], inputs["replaceOrder"]) == ("running", "900s", "cancel", "submitFirst")
    assert inputs["resubmission"] == {"maxResubmissions": 5, "onOtherFailures": True}
    assert not {"rerun", "waitFor", "resubmission"} & set(inputs["jobSpec"])


def test_the_project_refreshes_before_every_up_so_a_preempted_job_is_seen():
    import yaml

    from tests.program import ROOT

    assert yaml.safe_load((ROOT / "Pulumi.yaml").read_text())["options"]["refresh"] == "always"


def test_empty_values_in_a_job_entry_take_the_teams_defaults():
    """Issue 11.2: `serviceAccount: ""` means unset, so the team's account runs the job, not none."""
    job = a_job()
    job.update(serviceAccount="", network="", baseOutputDirectory={"outputUriPrefix": ""}, persistentResourceId="")
    [resource] = render(team_config(resnet=job)).of_type("SpotTrainingJob")
    spec_ = resource.inputs["jobSpec"]
    assert spec_["serviceAccount"] == "vision-train-dev@acme-ml-dev.iam.gserviceaccount.com"
    assert spec_["baseOutputDirectory"]["outputUriPrefix"] == "gs://acme-ml-dev-vision-staging/jobs/resnet"


# gcloud's --config spelling: `workerPoolSpecs:` as one mapping (gcloud's own
# help example) and a scalar for a repeated field; gcloud's loader (apitools
# protojson, "Normalize values in to a list") submits each as a one-item list.
# https://cloud.google.com/sdk/gcloud/reference/ai/custom-jobs/create
def test_gcloud_config_spelling_renders_the_same_job_as_the_list_spelling():
    listed = a_job()
    listed["workerPoolSpecs"] = listed["workerPoolSpecs"][:1]
    listed["workerPoolSpecs"][0]["containerSpec"]["args"] = ["--epochs=3"]
    gcloud = a_job()
    gcloud["workerPoolSpecs"] = {**listed["workerPoolSpecs"][0], "containerSpec": {**listed["workerPoolSpecs"][0]["containerSpec"], "args": "--epochs=3"}}
    as_list = render(team_config(resnet=listed)).of_type("SpotTrainingJob")[0].inputs
    as_gcloud = render(team_config(resnet=gcloud)).of_type("SpotTrainingJob")[0].inputs
    from components.spot_job.model import spec

    assert spec.job_definition(as_gcloud) == spec.job_definition(as_list)
    assert spec.job_definition(as_gcloud)["jobSpec"]["workerPoolSpecs"][0]["containerSpec"]["args"] == ["--epochs=3"]


@pytest.mark.parametrize(
    "wrap, removes",
    [
        (lambda job: {"jobSpec": job}, "remove the `jobSpec:` line"),
        (lambda job: {"displayName": "resnet", "jobSpec": job, "name": "projects/1/locations/us-central1/customJobs/2", "state": "JOB_STATE_SUCCEEDED"}, "remove name, state too"),
    ],
)
def test_a_spec_pasted_with_its_wrapper_says_what_to_remove(wrap, removes):
    recorder = Recorder()
    with pytest.raises(ConfigError) as raised:
        render(team_config(resnet=wrap(a_job())), recorder=recorder)
    message = str(raised.value)
    assert "spot-training:teams.vision.jobs.resnet.jobSpec:" in message and removes in message
    assert "unknown field" not in message
    assert registered(recorder) == []


def test_two_teams_whose_jobs_derive_one_resource_name_are_named_both():
    """Issue 11.16: nlp's bert-finetune and nlp-bert's finetune are both `nlp-bert-finetune`."""
    config = team_config()
    config["spot-training:teams"] = {
        "nlp": {"jobs": {"bert-finetune": a_job()}},
        "nlp-bert": {"jobs": {"finetune": a_job()}},
    }
    recorder = Recorder()
    with pytest.raises(ConfigError) as raised:
        render(config, recorder=recorder)
    assert (
        "spot-training:teams.nlp-bert.jobs.finetune: its resource name 'nlp-bert-finetune' is also "
        "spot-training:teams.nlp.jobs.bert-finetune's" in str(raised.value)
    )
    assert registered(recorder) == []


@pytest.mark.parametrize("name", ["Tabular_Staging!", "ab", "-starts-with-dash", "192.168.5.4", "goog-bucket", "my-google-bucket", "a" * 64])
def test_a_bucket_name_outside_cloud_storages_rules_is_refused_by_path(name):
    """Issue 11.14 (https://cloud.google.com/storage/docs/buckets#naming)."""
    config = team_config(resnet=a_job())
    config["spot-training:teams"]["vision"]["bucket"] = {"name": name}
    recorder = Recorder()
    with pytest.raises(ConfigError) as raised:
        render(config, recorder=recorder)
    assert "spot-training:teams.vision.bucket.name:" in str(raised.value) and "not a Cloud Storage bucket name" in str(raised.value)
    assert registered(recorder) == []


@pytest.mark.parametrize("name", ["acme-vision-staging", "acme_vision.staging.example", "a1b"])
def test_a_bucket_name_within_the_rules_renders(name):
    config = team_config(resnet=a_job())
    config["spot-training:teams"]["vision"]["bucket"] = {"name": name}
    [bucket] = render(config).of_type("storage/bucket:Bucket")
    assert bucket.inputs["name"] == name


# --- renames (issue 21, part 6): a component's type renamed keeps what it holds ---


def engine_urns(recorder) -> dict[str, tuple[str, set[str]]]:
    """Each resource's type and name -> its URN and the URNs the engine matches it to in state: its own, and those
    its aliases and its ancestors' aliases make (a child inherits its parent's aliases). The engine's URN qualifies
    a type by its ancestors' (`team$bucket`), not the root stack's."""
    import itertools

    regs = recorder.registrations

    def alternatives(urn: str) -> list[list[str]]:
        typ, _, parent, former = regs[urn]
        if typ == "pulumi:pulumi:Stack":
            return []
        return [*(alternatives(parent) if parent in regs else []), [typ, *former]]

    found = {}
    for urn, (typ, name, _, _) in regs.items():
        if typ != "pulumi:pulumi:Stack":
            levels = alternatives(urn)
            own = "$".join(types[0] for types in levels)
            chains = itertools.product(*levels)
            found[f"{typ}::{name}"] = (
                f"urn:pulumi:dev::spot-training::{own}::{name}",
                {f"urn:pulumi:dev::spot-training::{'$'.join(chain)}::{name}" for chain in chains},
            )
    return found


KEPT = ("gcp:storage/bucket:Bucket", "gcp:serviceaccount/account:Account", "SpotTrainingJob")


@pytest.mark.parametrize("renamed", ["team", "bucket", "account"])
def test_renaming_a_components_type_with_an_alias_plans_no_replacement_of_a_bucket_an_account_or_a_job(monkeypatch, renamed):
    """The convention of docs/team.md: a renamed type keeps its former one in FORMER_TYPES. The engine then
    matches every child's old URN (a new URN is a delete and a create: a new, empty bucket; a new account
    without its grants; a job submitted again)."""
    from components.service_account import TrainingServiceAccount
    from components.staging_bucket import StagingBucket
    from components.team import TeamTrainingEnvironment

    component = {"team": TeamTrainingEnvironment, "bucket": StagingBucket, "account": TrainingServiceAccount}[renamed]
    config = team_config(resnet=a_job())
    before = {key: own for key, (own, _) in engine_urns(render(config)).items() if key.split("::")[0].endswith(KEPT)}
    assert len(before) == 3

    monkeypatch.setattr(component, "FORMER_TYPES", (component.TYPE,))
    monkeypatch.setattr(component, "TYPE", component.TYPE + "Renamed")
    after = engine_urns(render(config))
    for key, old_urn in before.items():
        assert old_urn in after[key][1], f"{key} would be replaced"
    assert any(own != before[key] for key, (own, _) in after.items() if key in before)  # the rename is real


def test_without_the_alias_a_renamed_type_would_replace_the_bucket(monkeypatch):
    """The check above has teeth: the engine would not find the old bucket."""
    from components.staging_bucket import StagingBucket

    config = team_config(resnet=a_job())
    old_urn, _ = engine_urns(render(config))["gcp:storage/bucket:Bucket::vision-staging"]
    monkeypatch.setattr(StagingBucket, "TYPE", StagingBucket.TYPE + "Renamed")
    assert old_urn not in engine_urns(render(config))["gcp:storage/bucket:Bucket::vision-staging"][1]
