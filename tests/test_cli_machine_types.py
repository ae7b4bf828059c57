"""Issue 30.1 through the other offline verbs: `render` and `diff` refuse a machine type that
cannot exist by its config path, and warn of a well-formed one no table lists, as `validate` does
(tests/test_google_sources.py) and the provider's check does for the refusal."""

from __future__ import annotations

from tests.cli_runner import spot_training_in_process
from tests.test_cli_diff import diff, edit, origin, repo  # noqa: F401 (fixtures)
from tests.test_render import fixed_stack

PATH = "spot-training:teams.vision.jobs.smoke.workerPoolSpecs[0].machineSpec.machineType"


def test_render_refuses_a_machine_type_that_cannot_exist_by_its_path(tmp_path):
    (tmp_path / "Pulumi.dev.yaml").write_text(fixed_stack().replace("n1-standard-4", "n1-standrad-4"))
    done = spot_training_in_process("render", "dev", stacks_dir=tmp_path)
    assert done.returncode == 1 and done.stdout == ""
    assert f"{PATH}: 'n1-standrad-4' is not a machine type" in done.stderr and "did you mean 'n1-standard-4'?" in done.stderr


def test_render_warns_of_a_machine_type_no_table_lists_and_renders_it(tmp_path):
    (tmp_path / "Pulumi.dev.yaml").write_text(fixed_stack().replace("n1-standard-4", "c3-standard-4"))
    done = spot_training_in_process("render", "dev", stacks_dir=tmp_path)
    assert done.returncode == 0, done.stderr
    assert '"machineType": "c3-standard-4"' in done.stdout
    assert done.stderr.count(f"warning: {PATH}: c3-standard-4 is of Compute Engine's c3 series") == 1, done.stderr


def test_diff_warns_of_an_unlisted_machine_type_once_and_refuses_one_that_cannot_exist(repo):  # noqa: F811
    edit(repo, "machineSpec: {machineType: n1-standard-4}\n              containerSpec", "machineSpec: {machineType: c3-standard-4}\n              containerSpec")
    done = diff(repo, "dev")
    assert done.returncode == 0, done.stderr
    assert '"n1-standard-4" => "c3-standard-4"' in done.stdout
    assert done.stderr.count("warning: spot-training:teams.vision.jobs.eval.workerPoolSpecs[0].machineSpec.machineType: c3-standard-4") == 1, done.stderr
    edit(repo, "machineType: c3-standard-4", "machineType: banana")
    done = diff(repo, "dev")
    assert done.returncode == 1
    assert "spot-training:teams.vision.jobs.eval.workerPoolSpecs[0].machineSpec.machineType: 'banana' is not a machine type" in done.stderr
