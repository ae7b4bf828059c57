"""Issue 30.4: a credential written into a job's env or args is refused by `spot-training validate`,
by the config path, as the policy pack's job-env-no-credentials refuses it; `render` warns of it,
and `policy` names the config path too. One detector (policy/credentials.py) for all of them."""

from __future__ import annotations

import json

import pytest

from tests.cli_runner import spot_training, spot_training_in_process
from tests.test_render import fixed_stack

HF_TOKEN = "hf_" + "Q7x" * 12  # the shape of a Hugging Face token; made up
OPENAI_KEY = "sk-proj-" + "x9Y8" * 6
JOB = "spot-training:teams.vision.jobs.smoke"
CONTAINER = f"{JOB}.workerPoolSpecs[0].containerSpec"


def stack_with(**container: object) -> str:
    image = fixed_stack().split('imageUri: "')[1].split('"')[0]
    spec = json.dumps({"imageUri": image, **container})
    return fixed_stack().replace(f'containerSpec: {{imageUri: "{image}"}}', f"containerSpec: {spec}")


REFUSED = [
    ("a literal under a credential's name", {"env": [{"name": "LOG_LEVEL", "value": "info"}, {"name": "WANDB_API_KEY", "value": "0123456789abcdef0123"}]}, f"{CONTAINER}.env[1]", "0123456789abcdef0123"),
    ("a Hugging Face token under any name", {"env": [{"name": "MODEL", "value": HF_TOKEN}]}, f"{CONTAINER}.env[0]", HF_TOKEN),
    ("an API key in a flag of args", {"args": ["--epochs=1", f"--api-key={OPENAI_KEY}"]}, f"{CONTAINER}.args[1]", OPENAI_KEY),
    ("a literal after a credential flag", {"args": ["--password", "hunter22"]}, f"{CONTAINER}.args[1]", "hunter22"),
    ("a token in the command", {"command": ["sh", "-c", f"HF_TOKEN={HF_TOKEN} python -m trainer"]}, f"{CONTAINER}.command[2]", HF_TOKEN),
]

ACCEPTED = [
    ("words that only contain token", {"env": [{"name": "TOKENIZER", "value": "bert-base-uncased"}], "args": ["--max-tokens=512", "--tokenizer", "bert"]}),
    ("a Secret Manager name", {"env": [{"name": "HF_TOKEN", "value": "projects/acme/secrets/hf-token/versions/latest"}], "args": ["--hf-token=projects/acme/secrets/hf-token"]}),
    ("an env reference in args", {"args": ["--api-key=$(WANDB_API_KEY_SECRET)"]}),
]


@pytest.mark.parametrize("container, path, value", [c[1:] for c in REFUSED], ids=[c[0] for c in REFUSED])
def test_validate_refuses_a_credential_by_its_config_path_without_quoting_it(tmp_path, container, path, value):
    (tmp_path / "Pulumi.dev.yaml").write_text(stack_with(**container))
    done = spot_training_in_process("validate", "dev", stacks_dir=tmp_path)
    assert done.returncode == 1, done.stdout + done.stderr
    assert "Traceback" not in done.stderr and "valid (" not in done.stdout
    line = next((x for x in done.stderr.splitlines() if f"{path} " in x or f"{path}:" in x), None)
    assert line is not None, done.stderr
    assert "job-env-no-credentials" in done.stderr and "${secrets." in done.stderr
    assert value not in done.stdout + done.stderr


@pytest.mark.parametrize("container", [c[1] for c in ACCEPTED], ids=[c[0] for c in ACCEPTED])
def test_validate_accepts_what_is_no_credential(tmp_path, container):
    (tmp_path / "Pulumi.dev.yaml").write_text(stack_with(**container))
    done = spot_training_in_process("validate", "dev", stacks_dir=tmp_path)
    assert done.returncode == 0, done.stderr
    assert "job-env-no-credentials" not in done.stderr


def test_render_warns_of_a_credential_by_its_config_path(tmp_path):
    (tmp_path / "Pulumi.dev.yaml").write_text(stack_with(args=[f"--api-key={OPENAI_KEY}"]))
    done = spot_training_in_process("render", "dev", stacks_dir=tmp_path)
    assert done.returncode == 0, done.stderr
    assert f"warning: {CONTAINER}.args[0]" in done.stderr, done.stderr


@pytest.mark.parametrize("container, path, value", [c[1:] for c in REFUSED], ids=[c[0] for c in REFUSED])
def test_the_pack_refuses_the_same_naming_the_config_path(tmp_path, container, path, value):
    (tmp_path / "Pulumi.dev.yaml").write_text(stack_with(**container))
    done = spot_training_in_process("policy", "dev", stacks_dir=tmp_path)
    assert done.returncode == 1, done.stdout + done.stderr
    assert "job-env-no-credentials (mandatory)" in done.stdout
    assert path in done.stdout, done.stdout
    assert value not in done.stdout + done.stderr


def test_validate_and_the_pack_as_a_user_runs_them_agree(tmp_path):
    (tmp_path / "Pulumi.dev.yaml").write_text(stack_with(env=[{"name": "WANDB_API_KEY", "value": "0123456789abcdef0123"}]))
    validated = spot_training("validate", "dev", stacks_dir=tmp_path)
    checked = spot_training("policy", "dev", stacks_dir=tmp_path)
    assert validated.returncode == checked.returncode == 1
    assert f"{CONTAINER}.env[0]" in validated.stderr and f"{CONTAINER}.env[0]" in checked.stdout


def test_a_credential_set_as_a_config_secret_is_refused_by_its_name_never_shown(tmp_path):
    secure = {"secure": "v1:c2VjcmV0LWNpcGhlcnRleHQ="}
    (tmp_path / "Pulumi.dev.yaml").write_text(stack_with(env=[{"name": "HF_TOKEN", "value": secure}]))
    done = spot_training_in_process("validate", "dev", stacks_dir=tmp_path)
    assert done.returncode == 1, done.stderr
    assert f"{CONTAINER}.env[0] (HF_TOKEN) is a literal value" in done.stderr
    assert "v1:c2Vj" not in done.stderr


def test_validate_lists_a_credential_beside_the_configs_other_errors(tmp_path):
    stack = stack_with(args=[f"--api-key={OPENAI_KEY}"]).replace("strategy: SPOT", "strategy: SOMETIMES")
    (tmp_path / "Pulumi.dev.yaml").write_text(stack)
    done = spot_training_in_process("validate", "dev", stacks_dir=tmp_path)
    assert done.returncode == 1
    assert f"{JOB}.scheduling.strategy: unknown value 'SOMETIMES'" in done.stderr
    assert f"{CONTAINER}.args[0] holds what looks like an OpenAI-style API key" in done.stderr, done.stderr
    assert OPENAI_KEY not in done.stderr


def test_a_secret_reference_is_no_credential(tmp_path):
    stack = stack_with(env=[{"name": "HF_TOKEN", "value": "${secrets.hf-token}"}]).replace(
        "      jobs:\n", "      secrets:\n        hf-token: {secret: projects/acme-secrets/secrets/hf-token}\n      jobs:\n"
    )
    (tmp_path / "Pulumi.dev.yaml").write_text(stack)
    done = spot_training_in_process("validate", "dev", stacks_dir=tmp_path)
    assert done.returncode == 0, done.stderr
