"""The pull-request workflow: what a reviewer relies on it to do, read from the file itself."""

import yaml

from tests.program import ROOT, STACKS

WORKFLOW = ROOT / ".github" / "workflows" / "infrastructure.yml"


def workflow() -> dict:
    document = yaml.safe_load(WORKFLOW.read_text())
    document["on"] = document.pop(True, document.get("on"))  # YAML 1.1 reads the key `on` as true
    return document


def pulumi_step(job: dict) -> dict:
    [step] = [s for s in job["steps"] if str(s.get("uses", "")).startswith("pulumi/actions@")]
    return step["with"]


def stacks_in_repo() -> list[str]:
    return sorted(p.name.split(".")[1] for p in STACKS.glob("Pulumi.*.yaml"))


def test_it_runs_on_pull_requests_and_on_merges_to_main():
    on = workflow()["on"]
    assert on["pull_request"]["branches"] == ["main"] and on["push"]["branches"] == ["main"]


def test_every_stack_in_stacks_is_previewed_and_deployed():
    jobs = workflow()["jobs"]
    assert sorted(jobs["preview"]["strategy"]["matrix"]["stack"]) == stacks_in_repo()
    assert sorted(jobs["up"]["strategy"]["matrix"]["stack"]) == stacks_in_repo()


def test_a_pr_gets_a_refreshed_diff_with_the_policy_pack_posted_as_a_comment():
    job = workflow()["jobs"]["preview"]
    step = pulumi_step(job)
    assert step["command"] == "preview" and step["stack-name"] == "${{ matrix.stack }}"
    assert step["diff"] is True and step["refresh"] is True
    assert step["policyPacks"] == "policy" and step["comment-on-pr"] is True
    assert job["permissions"]["pull-requests"] == "write"
    assert job["if"] == "github.event_name == 'pull_request'"


def test_up_runs_only_on_main_after_the_tests_and_one_stack_at_a_time():
    job = workflow()["jobs"]["up"]
    assert pulumi_step(job)["command"] == "up" and pulumi_step(job)["policyPacks"] == "policy"
    assert "refs/heads/main" in job["if"] and "push" in job["if"]
    assert job["needs"] == "test" and workflow()["jobs"]["preview"]["needs"] == "test"
    assert job["strategy"]["max-parallel"] == 1 and job["environment"] == "${{ matrix.stack }}"


def test_the_tests_job_runs_what_ci_runs():
    steps = workflow()["jobs"]["test"]["steps"]
    assert {"run": "bash .ci/run"} in steps


def test_state_secrets_and_credentials_come_from_repository_variables_and_no_key():
    text = WORKFLOW.read_text()
    assert "credentials_json" not in text and "secrets." not in text  # no key, no stored secret
    for name in ("preview", "up"):
        job = workflow()["jobs"][name]
        assert job["permissions"]["id-token"] == "write"
        [auth] = [s for s in job["steps"] if str(s.get("uses", "")).startswith("google-github-actions/auth@")]
        assert auth["with"] == {
            "workload_identity_provider": "${{ vars.GCP_WORKLOAD_IDENTITY_PROVIDER }}",
            "service_account": "${{ vars.GCP_DEPLOYER_SERVICE_ACCOUNT }}",
        }
        step = pulumi_step(job)
        assert step["cloud-url"] == "${{ vars.PULUMI_BACKEND_URL }}"
        assert step["secrets-provider"] == "${{ vars.PULUMI_SECRETS_PROVIDER }}"
    assert workflow()["env"]["PULUMI_BACKEND_URL"] == "${{ vars.PULUMI_BACKEND_URL }}"
