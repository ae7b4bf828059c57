"""TrainingServiceAccount under Pulumi's mocks, with the real pulumi_gcp classes."""

import pytest

from components.service_account import TrainingServiceAccount, TrainingServiceAccountArgs
from tests.program import render_components

DEPLOYER = "serviceAccount:ci@acme-ml-dev.iam.gserviceaccount.com"
TEAM = "group:vision-ml@acme.example"


def render(**overrides):
    args = TrainingServiceAccountArgs(**{"project": "acme-ml-dev", "team": "vision", "environment": "dev", **overrides})
    return render_components(lambda: TrainingServiceAccount("vision-trainer", args).email)


def test_one_account_per_team_and_environment_and_never_a_key():
    recorder = render()
    [account] = recorder.of_type("serviceaccount/account:Account")
    assert account.inputs["accountId"] == "vision-train-dev"
    assert recorder.of_type("serviceaccount/key:Key") == []


def test_project_level_grants_are_only_log_and_metric_writing():
    recorder = render(users={"ci": DEPLOYER, "vision": TEAM})
    project_roles = sorted(g.inputs["role"] for g in recorder.of_type("projects/iAMMember:IAMMember"))
    assert project_roles == ["roles/logging.logWriter", "roles/monitoring.metricWriter"]


def test_act_as_is_granted_on_the_account_to_deployers_and_members_only():
    recorder = render(users={"ci": DEPLOYER, "vision": TEAM})
    act_as = recorder.of_type("serviceaccount/iAMMember:IAMMember")
    assert sorted(g.inputs["member"] for g in act_as) == sorted([DEPLOYER, TEAM])
    assert {g.inputs["role"] for g in act_as} == {"roles/iam.serviceAccountUser"}
    assert {g.name for g in act_as} == {"vision-trainer-iam-serviceaccountuser-ci", "vision-trainer-iam-serviceaccountuser-vision"}


def test_an_account_id_gcp_would_refuse_is_named_before_anything_is_registered():
    with pytest.raises(ValueError, match="account_id 'computer-vision-research-train-dev'"):
        render(team="computer-vision-research")


def test_the_email_output_is_the_accounts_once_its_grants_exist():
    seen = {}

    def build():
        account = TrainingServiceAccount(
            "vision-trainer", TrainingServiceAccountArgs(project="acme-ml-dev", team="vision", environment="dev")
        )
        return account.email.apply(lambda email: seen.setdefault("email", email))

    render_components(build)
    assert seen["email"] == "vision-train-dev@acme-ml-dev.iam.gserviceaccount.com"
