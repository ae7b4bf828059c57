"""The names a stack is placed in and derives, checked when the config is read (issue 11, points 13 and 15).

Through the program under Pulumi's mocks, as `pulumi preview` runs it.
"""

import re

import pytest

from stack_config import ConfigError
from tests.fixtures import docs_request_body
from tests.program import Recorder, render

# IAM's account-id rule: https://cloud.google.com/iam/docs/service-accounts-create
ACCOUNT_ID = re.compile(r"^[a-z][a-z0-9-]{4,28}[a-z0-9]$")


def config(teams=None, environment="dev", **keys) -> dict:
    return {
        "gcp:project": "acme-ml-dev",
        "gcp:region": "us-central1",
        "spot-training:environment": environment,
        "spot-training:teams": teams or {"vision": {"jobs": {"resnet": docs_request_body()["jobSpec"]}}},
        **keys,
    }


def failures_of(cfg: dict) -> str:
    recorder = Recorder()
    with pytest.raises(ConfigError) as raised:
        render(cfg, recorder=recorder)
    assert [r for r in recorder.resources if r.typ != "pulumi:pulumi:Stack"] == []  # nothing registered first
    return str(raised.value)


def account_ids(recorder) -> dict[str, str]:
    return {r.name: r.inputs["accountId"] for r in recorder.resources if r.typ == "gcp:serviceaccount/account:Account"}


# --- gcp:project and gcp:region (point 13) ---


@pytest.mark.parametrize("project", ["Acme_ML", "acme", "1acme-ml-dev", "acme-ml-dev-", "a" * 31])
def test_a_project_id_google_would_refuse_is_an_error_naming_gcp_project(project):
    # https://cloud.google.com/resource-manager/docs/creating-managing-projects: 6-30 characters of
    # lowercase letters, digits and hyphens, starting with a letter, not ending with a hyphen.
    message = failures_of({**config(), "gcp:project": project})
    assert f"gcp:project: {project!r} is not a project id" in message


def test_a_legacy_domain_scoped_project_id_is_accepted():
    cfg = {**config(), "gcp:project": "example.com:acme-ml"}
    cfg["spot-training:teams"]["vision"]["bucket"] = {"name": "acme-ml-vision-staging"}  # ':' is no bucket character
    recorder = render(cfg)
    # What the preview shows: the job and every project-level resource in that project, as written.
    projects = {(r.typ, r.name): r.inputs["project"] for r in recorder.resources if "project" in r.inputs}
    assert projects[("pulumi-python:dynamic/spot-training:SpotTrainingJob", "vision-resnet")] == "example.com:acme-ml"
    assert set(projects.values()) == {"example.com:acme-ml"}
    buckets = [r.inputs["name"] for r in recorder.resources if r.typ == "gcp:storage/bucket:Bucket"]
    assert buckets == ["acme-ml-vision-staging"]


def test_an_unknown_region_is_an_error_with_a_did_you_mean_and_the_way_to_allow_it():
    message = failures_of({**config(), "gcp:region": "us central"})
    assert "gcp:region: 'us central' is not a region Vertex AI custom training runs in; did you mean us-central1?" in message
    assert "spot-training:extraRegions" in message


def test_a_region_google_lists_renders_and_one_not_yet_listed_renders_once_allowed():
    # The table: https://cloud.google.com/vertex-ai/docs/general/locations
    render({**config(), "gcp:region": "europe-west4"})
    assert "gcp:region" in failures_of({**config(), "gcp:region": "us-central9"})
    render({**config(), "gcp:region": "us-central9", "spot-training:extraRegions": ["us-central9"]})


def test_extra_regions_are_region_ids():
    message = failures_of({**config(), "spot-training:extraRegions": ["us-central9", "US Central"]})
    assert "spot-training:extraRegions[1]: 'US Central' is not a region id" in message
    assert "spot-training:extraRegions: must be a list" in failures_of({**config(), "spot-training:extraRegions": "us-central9"})


# --- names the stack derives (point 15) ---


def test_a_long_team_and_environment_get_a_valid_service_account_id():
    teams = {"recommendation": {"jobs": {"ranker": docs_request_body()["jobSpec"]}}}
    recorder = render(config(teams, environment="production"), stack="production")
    [account_id] = account_ids(recorder).values()
    assert ACCOUNT_ID.match(account_id) and len(account_id) <= 30
    assert account_id.startswith("recommendation-")
    [job] = recorder.of_type("SpotTrainingJob")
    assert job.inputs["jobSpec"]["serviceAccount"] == f"{account_id}@acme-ml-dev.iam.gserviceaccount.com"


def test_derived_account_ids_that_fit_are_unchanged_and_the_shortest_is_valid():
    # Part of every stack's state: the ids existing stacks have must not move.
    teams = {"vision": {}, "nlp": {}, "a": {}}
    assert account_ids(render(config(teams, environment="prod"), stack="prod")) == {
        "vision-trainer": "vision-train-prod", "nlp-trainer": "nlp-train-prod", "a-trainer": "a-train-prod",
    }
    # The shortest team and environment names: 9 characters, no padding needed.
    assert list(account_ids(render(config({"a": {}}, environment="x"))).values()) == ["a-train-x"]


def test_two_long_teams_never_derive_one_account_id():
    teams = {"recommendation-a": {}, "recommendation-b": {}}
    ids = account_ids(render(config(teams, environment="production"), stack="production"))
    assert len(set(ids.values())) == 2 and all(ACCOUNT_ID.match(i) for i in ids.values())


def test_the_service_account_id_can_be_set():
    teams = {"recommendation": {"serviceAccount": {"accountId": "reco-trainer-prod"}}}
    assert list(account_ids(render(config(teams, environment="production"))).values()) == ["reco-trainer-prod"]


@pytest.mark.parametrize("account_id", ["Reco_Trainer", "reco", "reco-trainer-", "r" * 31, 7])
def test_a_service_account_id_iam_would_refuse_is_an_error_naming_its_path(account_id):
    teams = {"recommendation": {"serviceAccount": {"accountId": account_id}}}
    message = failures_of(config(teams))
    assert "spot-training:teams.recommendation.serviceAccount.accountId: " in message


def test_an_unknown_service_account_key_is_an_error():
    message = failures_of(config({"vision": {"serviceAccount": {"acountId": "vision-trainer"}}}))
    assert "spot-training:teams.vision.serviceAccount.acountId: unknown key" in message


def test_two_teams_with_one_account_id_is_an_error_naming_both():
    teams = {"vision": {"serviceAccount": {"accountId": "nlp-train-dev"}}, "nlp": {}}
    message = failures_of(config(teams))
    assert "spot-training:teams.nlp.serviceAccount.accountId" in message
    assert "spot-training:teams.vision.serviceAccount.accountId" in message


def test_a_bad_team_name_is_reported_once_not_again_for_each_name_derived_from_it():
    message = failures_of(config({"Vision": {}}))
    assert "spot-training:teams.Vision: team names are" in message
    assert "repository" not in message and "bucket" not in message


def test_a_team_name_that_is_no_repository_id_needs_one_set():
    # https://cloud.google.com/artifact-registry/docs/repositories/create-repos: ends with a letter or digit.
    message = failures_of(config({"vision-": {}}))
    assert "spot-training:teams.vision-.repository.repositoryId: " in message
    render(config({"vision-": {"repository": {"repositoryId": "vision"}}}))


def test_a_repository_id_artifact_registry_would_refuse_is_an_error():
    message = failures_of(config({"vision": {"repository": {"repositoryId": "Vision_Images"}}}))
    assert "spot-training:teams.vision.repository.repositoryId: 'Vision_Images' is not" in message


def test_a_default_bucket_name_cloud_storage_would_refuse_names_the_key_that_sets_it():
    message = failures_of({**config({"google-ads": {}})})
    assert "spot-training:teams.google-ads.bucket.name: the default 'acme-ml-dev-google-ads-staging' is not" in message
    render(config({"google-ads": {"bucket": {"name": "acme-ml-dev-ads-staging"}}}))


def test_a_job_name_too_long_for_the_default_display_name_is_an_error_at_config_time():
    """Refused by the job-name rule (at most 63), which keeps the default displayName ({team}-{job},
    at most 20 + 1 + 63) within Vertex's 128: the name is the one cause, said once."""
    key = "j" * 122
    message = failures_of(config({"vision": {"jobs": {key: docs_request_body()["jobSpec"]}}}))
    assert f"spot-training:teams.vision.jobs.{key}: job names are 1-63" in message and "displayName" not in message


def test_two_teams_deriving_one_secret_grant_name_or_sharing_a_bucket_is_an_error_naming_both():
    secret = {"secret": "projects/acme-secrets/secrets/token"}
    teams = {"a": {"secrets": {"secrets-k": secret}}, "a-secrets": {"secrets": {"k": secret}}}
    message = failures_of(config(teams))
    assert "spot-training:teams.a-secrets.secrets.k: its resource name 'a-secrets-secrets-k' is also spot-training:teams.a.secrets.secrets-k's" in message
    teams = {"vision": {"bucket": {"name": "acme-shared"}}, "nlp": {"bucket": {"name": "acme-shared"}}}
    message = failures_of(config(teams))
    assert "spot-training:teams.nlp.bucket.name: 'acme-shared' is also spot-training:teams.vision.bucket.name's" in message


def test_the_account_id_rule_is_the_one_the_component_guards():
    from components import service_account

    assert service_account._ACCOUNT_ID.pattern == ACCOUNT_ID.pattern


def test_layers_point_one_way_components_never_import_the_config_layer():
    import ast
    from pathlib import Path

    root = Path(__file__).resolve().parent.parent
    for module in (root / "components").rglob("*.py"):
        for node in ast.walk(ast.parse(module.read_text())):
            names = [a.name for a in node.names] if isinstance(node, ast.Import) else [node.module or ""] if isinstance(node, ast.ImportFrom) else []
            assert not any(n.split(".")[0] in ("stack_config", "offline") for n in names), module


def test_two_members_of_one_team_deriving_one_grant_name_is_an_error_naming_both():
    # Both would be granted actAs under the resource name ...-group-a-b-acme-example: one grant silently lost.
    message = failures_of(config({"vision": {"members": ["group:a.b@acme.example", "group:a-b@acme.example"]}}))
    assert "spot-training:teams.vision.members[1]: " in message and "spot-training:teams.vision.members[0]" in message


# --- layers (issue 21, part 6) ---


def test_reading_the_config_imports_neither_the_google_sdk_nor_the_job_provider():
    """The CLI's `validate` and the policy pack read the config alone: what it imports they pay for, every run."""
    from tests.program import modules_imported_by

    heavy = ("pulumi_gcp", "components.spot_job.provider", "components.spot_job.resource", "components.team")
    assert modules_imported_by("import stack_config", heavy) == []


def test_each_job_is_validated_once_in_the_program_and_registered_as_validated(monkeypatch):
    """The loader validates the body the team registers (one function builds both); nothing validates it again
    before the provider's check, on the host's side."""
    from components.spot_job.model import spec
    from components.spot_job.model.spec import validate

    seen = []
    monkeypatch.setattr(spec, "validate", lambda inputs, **kw: seen.append(inputs["displayName"]) or validate(inputs, **kw))
    job = docs_request_body()["jobSpec"]
    recorder = render(config({"vision": {"jobs": {"resnet": job, "bert": {**job, "displayName": "bert-large"}}}}))
    assert sorted(seen) == ["bert-large", "vision-resnet"]
    registered = {r.inputs["displayName"]: r.inputs for r in recorder.of_type("SpotTrainingJob")}
    assert sorted(registered) == sorted(seen)
    for inputs in registered.values():  # with the team's values the loader stood in for
        assert inputs["labels"] == {"team": "vision", "environment": "dev"}
        assert inputs["jobSpec"]["serviceAccount"].endswith(".iam.gserviceaccount.com")
        assert inputs["jobSpec"]["baseOutputDirectory"]["outputUriPrefix"].startswith("gs://")
