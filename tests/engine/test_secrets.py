"""A secret env value under the real CLI: set with `pulumi config set --secret --path`, it is ciphertext in
`pulumi stack export`, the outputs derived from it are secret, and no command prints it."""

from __future__ import annotations

import json
import subprocess

import pytest
import yaml

from tests.cli_runner import spot_training
from tests.engine.stack import STACK

pytestmark = pytest.mark.engine

SECRET = "s3cr3t-engine-value-7f1c"
PATH = "spot-training:teams.vision.jobs.resnet.workerPoolSpecs[0].containerSpec.env[1].value"


def _commit_the_project(project) -> None:
    """The project directory as a git repository with one commit, as a user's checkout is."""
    def git(*args: str) -> None:
        subprocess.run(["git", "-c", "user.name=t", "-c", "user.email=t@example.com", *args], cwd=project.dir, check=True, capture_output=True)
    git("init", "-q", "-b", "main")
    git("add", "-A")
    git("commit", "-q", "-m", "the stack before its secret")


def test_a_secret_env_value_is_never_printed_nor_stored_in_plain_text(engine_project):
    project, emulator = engine_project, engine_project.emulator
    stack = project.stack()  # `pulumi stack init`, which writes the stack's encryption salt into its file
    _commit_the_project(project)  # the stack file before the secret: what `spot-training diff` compares with
    project.cli("config", "set", "--secret", "--path", PATH, SECRET)
    assert SECRET not in project.stack_file.read_text()

    lines: list[str] = []
    up = stack.up(diff=True, color="never", on_output=lines.append, on_error=lines.append)
    stack.preview(diff=True, color="never", on_output=lines.append, on_error=lines.append)
    assert up.summary.result == "succeeded"
    printed = "\n".join(lines)
    assert SECRET not in printed

    # The job got it (Vertex AI holds the env as submitted) ...
    resnet = next(j for j in emulator.jobs() if "resnet" in j.display_name)
    assert SECRET in [e.value for e in resnet.job_spec.worker_pool_specs[0].container_spec.env]
    # ... the state holds it only as ciphertext, and the CLI prints the outputs as [secret].
    exported = project.cli("stack", "export").stdout
    assert SECRET not in exported
    state = json.loads(exported)
    job = next(r for r in state["deployment"]["resources"] if r["type"].endswith("SpotTrainingJob") and "resnet" in r["urn"])
    # Exactly the leaf set with --secret --path is secret (secret_leaves() read it from the stack file):
    # the rest of the spec stays readable in state, and the program did not fall back to every env value.
    assert "every env value of every job is kept secret" not in printed
    assert "ciphertext" in json.dumps(job["outputs"]["jobSpec"])  # the engine keeps the output derived from it secret
    assert SECRET not in project.cli("stack", "output", "--json").stdout

    # The verbs that read the stack file and Vertex AI do not print it either, and each of them shows the
    # job (or it could not have printed the value): `diff` the leaf that became the secret, `render` the
    # job's body, `status` the job Vertex AI runs.
    shows = {
        "diff": ("~ vision/resnet", "containerSpec.env[1].value"),
        "render": ("# vision/resnet", "HF_TOKEN_SECRET"),
        "status": (resnet.name.rsplit("/", 1)[1],),
    }
    for verb, args in (("diff", ("--against", "HEAD")), ("render", ()), ("status", ())):
        done = spot_training(verb, STACK, *args, env=project.env, cwd=project.dir)
        printed = done.stdout + done.stderr
        assert done.returncode == 0, (verb, printed)
        assert all(text in printed for text in shows[verb]), (verb, printed)
        assert SECRET not in printed, verb


def test_a_secret_leaf_hides_its_whole_list_in_the_engine_and_the_providers_lines_name_the_rest(engine_project):
    """What docs/secrets.md says a reviewer sees: the engine hides the whole workerPoolSpecs list (it restores
    secretness around a provider that takes none, a list as a whole), and the provider's own lines in the
    preview name each changed path with only the secret leaf redacted."""
    project = engine_project
    stack = project.stack()
    project.cli("config", "set", "--secret", "--path", PATH, SECRET)
    stack.up(color="never")
    state = project.export()
    job = next(r for r in state["deployment"]["resources"] if r["type"].endswith("SpotTrainingJob") and "resnet" in r["urn"])
    assert "ciphertext" in json.dumps(job["inputs"]["jobSpec"]["workerPoolSpecs"])  # the whole list, as documented

    # The spec edited in the stack file, as a pull request would (its secure leaf left as it is).
    config = yaml.safe_load(project.stack_file.read_text())
    config["config"]["spot-training:teams"]["vision"]["jobs"]["resnet"]["workerPoolSpecs"][0]["containerSpec"]["args"] = ["--epochs=2"]
    project.stack_file.write_text(yaml.safe_dump(config, sort_keys=False))
    lines: list[str] = []
    stack.preview(diff=True, color="never", on_output=lines.append, on_error=lines.append)
    printed = "\n".join(lines)
    assert "jobSpec.workerPoolSpecs[0].containerSpec.args[0]: --epochs=1 -> --epochs=2" in printed, printed
    assert SECRET not in printed
