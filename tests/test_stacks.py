"""Every stack under stacks/: its plan against its inventory, and the security
properties that must hold of any stack, asserted over what it registers."""

import pytest

from tests import inventory
from tests.program import STACKS, render, stack_config

STACK_NAMES = sorted(p.name.split(".")[1] for p in STACKS.glob("Pulumi.*.yaml"))
BASIC_ROLES = {"roles/owner", "roles/editor", "roles/viewer"}
PUBLIC = {"allUsers", "allAuthenticatedUsers"}


@pytest.fixture(scope="module", params=STACK_NAMES)
def stack(request):
    env = request.param
    return env, render(stack_config(env), stack=env)


def test_the_plan_holds_its_inventory(stack):
    env, recorder = stack
    actual = {(e["type"], e["name"]): e["inputs"] for e in inventory.plan(recorder.resources)}
    problems = []
    for entry in inventory.load(env):
        key = (entry["type"], entry["name"])
        if key not in actual:
            problems.append(f"{key}: not registered")
        else:
            problems += [f"{key}{m}" for m in inventory.missing(entry["inputs"], actual[key])]
    assert problems == []


def test_every_stack_covers_the_job_kinds(stack):
    _, recorder = stack
    pools = [job.inputs["jobSpec"]["workerPoolSpecs"] for job in recorder.of_type("SpotTrainingJob")]
    assert any(p[0].get("pythonPackageSpec") for p in pools) and any(p[0].get("containerSpec") for p in pools)


def test_no_project_level_storage_registry_basic_or_act_as_role(stack):
    _, recorder = stack
    roles = {g.inputs["role"] for g in recorder.of_type("gcp:projects/iAMMember:IAMMember")}
    assert not {r for r in roles if r.startswith(("roles/storage.", "roles/artifactregistry."))}
    assert not roles & BASIC_ROLES
    assert "roles/iam.serviceAccountUser" not in roles


def test_no_basic_role_anywhere_and_no_public_member(stack):
    _, recorder = stack
    grants = [r for r in recorder.resources if "IAMMember" in r.typ or "IamMember" in r.typ]
    assert grants
    assert not {g.inputs["role"] for g in grants} & BASIC_ROLES
    assert not {g.inputs["member"] for g in grants} & PUBLIC


def test_no_service_account_key(stack):
    _, recorder = stack
    assert recorder.of_type("serviceaccount/key:Key") == []


def test_every_bucket_is_uniform_and_never_public(stack):
    _, recorder = stack
    for bucket in recorder.of_type("storage/bucket:Bucket"):
        assert bucket.inputs["uniformBucketLevelAccess"] is True, bucket.name
        assert bucket.inputs["publicAccessPrevention"] == "enforced", bucket.name


def test_prod_buckets_are_protected_and_kept(stack):
    env, recorder = stack
    for bucket in recorder.of_type("storage/bucket:Bucket"):
        assert recorder.protects(bucket) == (env == "prod")
        assert bucket.inputs["forceDestroy"] == (env != "prod")


def test_every_job_runs_as_its_teams_service_account(stack):
    env, recorder = stack
    project = stack_config(env)["gcp:project"]
    for job in recorder.of_type("SpotTrainingJob"):
        team = job.inputs["labels"]["team"]
        assert job.inputs["jobSpec"]["serviceAccount"] == f"{team}-train-{env}@{project}.iam.gserviceaccount.com", job.name


def test_regenerating_an_inventory_says_what_it_changed(tmp_path, monkeypatch, capsys):
    import shutil

    shutil.copy(inventory.INVENTORIES / "dev.yaml", tmp_path / "dev.yaml")
    monkeypatch.setattr(inventory, "INVENTORIES", tmp_path / "tests" / "inventories")
    inventory.INVENTORIES.mkdir(parents=True)
    entries = inventory.yaml.safe_load((tmp_path / "dev.yaml").read_text())
    account = next(e for e in entries if e["type"] == "gcp:serviceaccount/account:Account")
    account["inputs"]["accountId"] = "renamed-account"
    dropped = entries.pop(0)
    inventory.write("dev", entries)

    assert inventory.main(["dev"]) == 0
    said = capsys.readouterr().out
    assert said.startswith("tests/inventories/dev.yaml: 2 resources changed")
    assert f"+ {dropped['type']} {dropped['name']}" in said
    assert f"~ gcp:serviceaccount/account:Account {account['name']}: accountId" in said

    assert inventory.main(["dev"]) == 0
    assert capsys.readouterr().out.strip() == "tests/inventories/dev.yaml: unchanged"
