"""Secrets in the stack config, through the program under mocks and the offline render.

A value set with `pulumi config set --secret --path ...` is stored in the
stack file as a `secure:` leaf; the CLI hands the program the whole key
decrypted and lists it as secret. What the engine must get is that one leaf
marked secret (it shows as [secret] in a preview and is encrypted in state),
and the rest of the job readable.
"""

from __future__ import annotations

import copy
import json
import logging
import os
import subprocess
import sys

import pytest
import yaml

from stack_config import ConfigError
from tests.fixtures import docs_request_body
from tests.program import ROOT, Recorder, render, render_components

# How the SDK marks a secret on the wire (pulumi.runtime.rpc).
SIG_KEY, SECRET_SIG = "4dabf18193072939515e22adb298388d", "1b47061264138c4ac30d75fd1eb44270"
TOKEN = "hf_" + "Q7x" * 12  # the shape of a Hugging Face token; made up
CIPHERTEXT = "v1:Zm9vYmFy:c2VjcmV0IGNpcGhlcnRleHQ="
ENV_LEAF = "workerPoolSpecs[0].containerSpec.env[0].value"
STACKS_DIR_ENV = "SPOT_TRAINING_STACKS_DIR"


def job(**container) -> dict:
    body = copy.deepcopy(docs_request_body()["jobSpec"])
    body["workerPoolSpecs"][0]["containerSpec"].update(container)
    return body


def stack(jobs: dict, **team) -> dict:
    return {
        "gcp:project": "acme-ml-dev",
        "gcp:region": "us-central1",
        "spot-training:environment": "dev",
        "spot-training:teams": {"vision": {"members": ["group:vision-ml@acme.example"], **team, "jobs": jobs}},
    }


def with_env(value) -> dict:
    return stack({"resnet": job(env=[{"name": "HF_TOKEN", "value": value}, {"name": "LOG_LEVEL", "value": "info"}])})


@pytest.fixture
def stacks_dir(tmp_path, monkeypatch):
    """Where the program (and the render) read the stack file; empty until a test writes one."""
    monkeypatch.setenv(STACKS_DIR_ENV, str(tmp_path))
    return tmp_path


def write_stack_file(directory, config: dict, name: str = "dev") -> None:
    (directory / f"Pulumi.{name}.yaml").write_text(yaml.safe_dump({"config": config}))


def on_the_wire(recorder: Recorder, name: str = "vision-resnet") -> dict:
    return recorder.wire[name]


def is_secret(value) -> bool:
    return isinstance(value, dict) and value.get(SIG_KEY) == SECRET_SIG


def test_a_secret_env_value_reaches_the_engine_as_a_secret_and_the_rest_of_the_job_stays_readable(stacks_dir):
    write_stack_file(stacks_dir, with_env({"secure": CIPHERTEXT}))  # as `pulumi config set --secret --path` leaves it
    recorder = render(with_env(TOKEN), secret_keys=("spot-training:teams",))
    wire = on_the_wire(recorder)
    pool = wire["jobSpec"]["workerPoolSpecs"][0]
    token, level = pool["containerSpec"]["env"]
    assert token["name"] == "HF_TOKEN" and is_secret(token["value"]) and token["value"]["value"] == TOKEN
    assert level == {"name": "LOG_LEVEL", "value": "info"}
    assert pool["containerSpec"]["imageUri"].startswith("us-central1-docker.pkg.dev/")
    assert pool["machineSpec"] == {"machineType": "n1-standard-4"}
    assert not is_secret(wire["jobSpec"]) and not is_secret(wire["displayName"])
    assert wire["secretPaths"] == [f"jobSpec.{ENV_LEAF}"]  # for the provider, which sees no secrets


def test_a_config_without_secrets_registers_no_secret_paths(stacks_dir):
    recorder = render(with_env("plain"))
    assert "secretPaths" not in on_the_wire(recorder)  # existing jobs see no change at all


def test_a_secret_key_whose_file_cannot_tell_which_leaf_makes_every_env_value_secret_and_says_so(stacks_dir, caplog):
    # No stack file to read (a value from an ESC environment, say): the CLI only says the key is secret.
    with caplog.at_level(logging.WARNING):
        recorder = render(with_env(TOKEN), secret_keys=("spot-training:teams",))
    env = on_the_wire(recorder)["jobSpec"]["workerPoolSpecs"][0]["containerSpec"]["env"]
    assert [is_secret(e["value"]) for e in env] == [True, True]
    assert [is_secret(e["name"]) for e in env] == [False, False]
    assert any("spot-training:teams is secret" in r.getMessage() and "every env value" in r.getMessage() for r in caplog.records)


def test_a_config_error_never_prints_the_secret_value_only_its_path(stacks_dir):
    bad = "Sup3r-s3cret-not-an-email"
    config = stack({"resnet": {**job(), "serviceAccount": bad}})
    write_stack_file(stacks_dir, stack({"resnet": {**job(), "serviceAccount": {"secure": CIPHERTEXT}}}))
    with pytest.raises(ConfigError) as raised:
        render(config, secret_keys=("spot-training:teams",))
    message = str(raised.value)
    assert "spot-training:teams.vision.jobs.resnet.serviceAccount: must be a service account email, got '[secret]'" in message
    assert bad not in message


def test_a_secret_outside_a_job_is_an_error_naming_it(stacks_dir):
    config = stack({"resnet": job()})
    config["spot-training:teams"]["vision"]["bucket"] = {"name": "acme-hidden-bucket"}
    on_disk = copy.deepcopy(config)
    on_disk["spot-training:teams"]["vision"]["bucket"]["name"] = {"secure": CIPHERTEXT}
    write_stack_file(stacks_dir, on_disk)
    with pytest.raises(ConfigError) as raised:
        render(config, secret_keys=("spot-training:teams",))
    message = str(raised.value)
    assert "spot-training:teams.vision.bucket.name: is secret" in message and "acme-hidden-bucket" not in message


# --- Secret Manager: `secrets:` and ${secrets.NAME} ---------------------------


def test_a_team_secret_is_granted_to_the_teams_account_and_a_job_gets_its_version_name():
    config = stack(
        {"resnet": job(env=[{"name": "HF_TOKEN_SECRET", "value": "${secrets.hf-token}"}, {"name": "DB", "value": "${secrets.db}"}])},
        secrets={
            "hf-token": {"secret": "projects/acme-secrets/secrets/hf-token"},
            "db": {"secret": "projects/acme-ml-dev/secrets/db-password", "version": 3},
        },
    )
    recorder = render(config)
    grants = {r.inputs["secretId"]: r.inputs for r in recorder.of_type("SecretIamMember")}
    assert set(grants) == {"projects/acme-secrets/secrets/hf-token", "projects/acme-ml-dev/secrets/db-password"}
    for grant in grants.values():
        assert grant["role"] == "roles/secretmanager.secretAccessor"
        assert grant["member"] == "serviceAccount:vision-train-dev@acme-ml-dev.iam.gserviceaccount.com"
    [resource] = recorder.of_type("SpotTrainingJob")
    env = resource.inputs["jobSpec"]["workerPoolSpecs"][0]["containerSpec"]["env"]
    assert env == [
        {"name": "HF_TOKEN_SECRET", "value": "projects/acme-secrets/secrets/hf-token/versions/latest"},
        {"name": "DB", "value": "projects/acme-ml-dev/secrets/db-password/versions/3"},
    ]


def test_no_secrets_no_secret_manager_grants():
    assert render(with_env("plain")).of_type("SecretIamMember") == []


@pytest.mark.parametrize(
    "secrets, value, path",
    [
        ({}, "${secrets.hf-token}", f"spot-training:teams.vision.jobs.resnet.{ENV_LEAF}: ${{secrets.hf-token}} names no secret of this team"),
        ({"hf-token": {"secret": "hf-token"}}, "x", "spot-training:teams.vision.secrets.hf-token.secret: must be a Secret Manager secret projects/<project>/secrets/<name>"),
        ({"hf-token": {"secret": "projects/p/secrets/hf-token/versions/1"}}, "x", "spot-training:teams.vision.secrets.hf-token.secret: must be"),
        ({"hf-token": {"secret": "projects/acme/secrets/hf-token", "version": "newest"}}, "x", "spot-training:teams.vision.secrets.hf-token.version: must be latest or a version number"),
        ({"hf-token": {"secret": "projects/acme/secrets/hf-token", "versoin": 2}}, "x", "spot-training:teams.vision.secrets.hf-token.versoin: unknown key"),
        ({"hf-token": "projects/acme/secrets/hf-token"}, "x", "spot-training:teams.vision.secrets.hf-token: must be {secret: projects/<project>/secrets/<name>"),
    ],
)
def test_secret_config_errors_name_their_path(secrets, value, path):
    config = stack({"resnet": job(env=[{"name": "HF_TOKEN_SECRET", "value": value}])}, secrets=secrets)
    recorder = Recorder()
    with pytest.raises(ConfigError) as raised:
        render(config, recorder=recorder)
    assert path in str(raised.value)
    assert [r for r in recorder.resources if r.typ != "pulumi:pulumi:Stack"] == []


# --- the typed API ------------------------------------------------------------


def test_a_typed_job_with_an_output_secret_env_value_derives_its_secret_paths():
    import pulumi

    from components.spot_job.model.typed_spec import ContainerSpec, JobSpec, MachineSpec, WorkerPoolSpec
    from components.spot_job.resource import SpotTrainingJob, SpotTrainingJobArgs
    from tests.fixtures import IMAGE

    def build():
        SpotTrainingJob("resnet", SpotTrainingJobArgs(
            project="acme-ml-dev",
            location="us-central1",
            job_spec=JobSpec(worker_pool_specs=[WorkerPoolSpec(
                machine_spec=MachineSpec("n1-standard-4"),
                container_spec=ContainerSpec(image_uri=IMAGE, env={"LOG_LEVEL": "info", "HF_TOKEN": pulumi.Output.secret(TOKEN)}),
            )]),
        ))

    recorder = render_components(build)
    wire = on_the_wire(recorder, "resnet")
    env = wire["jobSpec"]["workerPoolSpecs"][0]["containerSpec"]["env"]
    assert [(e["name"], is_secret(e["value"])) for e in env] == [("LOG_LEVEL", False), ("HF_TOKEN", True)]
    assert wire["secretPaths"] == ["jobSpec.workerPoolSpecs[0].containerSpec.env[1].value"]


# --- the offline render -----------------------------------------------------


def test_the_offline_render_shows_a_secret_leaf_as_a_placeholder_never_its_ciphertext(stacks_dir):
    write_stack_file(stacks_dir, with_env({"secure": CIPHERTEXT}), name="secretive")
    done = subprocess.run(
        [sys.executable, "-m", "offline.render", "secretive"],
        cwd=ROOT, env={**os.environ, STACKS_DIR_ENV: str(stacks_dir)}, capture_output=True, text=True,
    )
    assert done.returncode == 0, done.stderr
    body = json.loads(done.stdout[done.stdout.index("\n{") :])
    assert body["jobSpec"]["workerPoolSpecs"][0]["containerSpec"]["env"] == [
        {"name": "HF_TOKEN", "value": "[secret]"},
        {"name": "LOG_LEVEL", "value": "info"},
    ]
    assert CIPHERTEXT not in done.stdout + done.stderr
    assert "vision/resnet: jobSpec.workerPoolSpecs[0].containerSpec.env[0].value is secret" in done.stderr
