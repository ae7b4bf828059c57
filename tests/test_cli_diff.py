"""`spot-training diff`: the render at a git ref beside the working tree's, run as a user
runs it, in a throwaway clone of this repository where the tests commit and edit."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

from tests.cli_runner import ROOT, spot_training, spot_training_in_process

NIGHTLY = """
        nightly:
          workerPoolSpecs:
            - machineSpec: {machineType: n1-standard-4}
              pythonPackageSpec:
                executorImageUri: us-docker.pkg.dev/vertex-ai/training/sklearn-cpu.1-6:latest
                packageUris: ["${packages.trainer}"]
                pythonModule: tabular_trainer.task
"""


def git(repo: Path, *args: str) -> str:
    done = subprocess.run(["git", "-C", str(repo), *args], capture_output=True, text=True, check=True)
    return done.stdout.strip()


@pytest.fixture(scope="module")
def origin(tmp_path_factory) -> Path:
    """This repository's committed tree, on `main`."""
    repo = tmp_path_factory.mktemp("origin") / "repo"
    subprocess.run(["git", "clone", "-q", "--no-hardlinks", str(ROOT), str(repo)], check=True)
    git(repo, "checkout", "-q", "-B", "main")
    return repo


@pytest.fixture
def repo(origin, tmp_path) -> Path:
    """A clone on branch `feature`, one commit-free branch off `main`: edit its stacks, then diff."""
    clone = tmp_path / "repo"
    subprocess.run(["git", "clone", "-q", "--no-hardlinks", "-b", "main", str(origin), str(clone)], check=True)
    git(clone, "config", "user.email", "t@example.com")
    git(clone, "config", "user.name", "t")
    git(clone, "checkout", "-q", "-b", "feature")
    return clone


def diff(repo: Path, *args: str):
    """`spot-training diff` in the clone, in this process (typer's runner, the clone as the working
    directory): what is checked is its output and exit code. The tests of where diff is run
    from (a subdirectory, elsewhere, no checkout) go through the entry point, in a process of
    their own, as a user runs it."""
    return spot_training_in_process("diff", *args, stacks_dir=repo / "stacks", cwd=repo)


def edit(repo: Path, old: str, new: str, stack: str = "dev") -> None:
    path = repo / "stacks" / f"Pulumi.{stack}.yaml"
    text = path.read_text()
    assert old in text
    path.write_text(text.replace(old, new, 1))


def test_a_job_changed_and_one_added_are_listed_field_by_field_against_the_merge_base(repo):
    edit(repo, "machineSpec: {machineType: n1-standard-4}\n              containerSpec", "machineSpec: {machineType: n1-standard-8}\n              containerSpec")
    (repo / "stacks" / "Pulumi.dev.yaml").write_text((repo / "stacks" / "Pulumi.dev.yaml").read_text().rstrip("\n") + "\n" + NIGHTLY.lstrip("\n"))
    git(repo, "commit", "-qam", "a bigger eval, a nightly job")
    edit(repo, "waitTimeout: 900s", "waitTimeout: 1200s")  # uncommitted: the working tree is what is diffed
    done = diff(repo, "dev")
    assert done.returncode == 0, done.stderr
    out = done.stdout
    assert "~ vision/eval: resubmits" in out
    assert '    ~ jobSpec.workerPoolSpecs[0].machineSpec.machineType: "n1-standard-4" => "n1-standard-8"' in out
    assert "+ tabular/nightly" in out
    assert "~ vision/resnet-smoke: updates in place" in out
    assert '    ~ waitTimeout: "900s" => "1200s"' in out
    assert "tabular/baseline" not in out.split("\n\n")[0] or "= tabular/baseline" not in out
    assert "1 to add, 2 to change (1 resubmits), 0 to remove, 1 unchanged" in out
    assert "Traceback" not in done.stderr


def test_replica_count_trigger_and_removal(repo):
    edit(repo, "args: [\"--epochs=1\"]", "args: [\"--epochs=1\"]\n            - machineSpec: {machineType: n1-standard-8}\n              replicaCount: 1\n              containerSpec: {imageUri: \"${images.trainer}\"}")
    git(repo, "commit", "-qam", "a worker pool")
    base = git(repo, "rev-parse", "HEAD")
    edit(repo, "replicaCount: 1\n              containerSpec: {imageUri", "replicaCount: 2\n              containerSpec: {imageUri")
    edit(repo, 'rerun: "1"', 'rerun: "2"')
    text = (repo / "stacks" / "Pulumi.dev.yaml").read_text()
    (repo / "stacks" / "Pulumi.dev.yaml").write_text(text.split("    tabular:")[0])  # tabular's team gone
    done = diff(repo, "dev", "--against", base)
    assert done.returncode == 0, done.stderr
    assert "~ vision/resnet-smoke: resubmits" in done.stdout
    assert "    ~ jobSpec.workerPoolSpecs[1].replicaCount: 1 => 2" in done.stdout
    assert '    ~ rerun: "1" => "2"' in done.stdout
    assert "- tabular/baseline" in done.stdout
    assert "0 to add, 1 to change (1 resubmits), 1 to remove, 1 unchanged" in done.stdout


def test_no_change_says_so(repo):
    done = diff(repo, "dev")
    assert done.returncode == 0, done.stderr
    assert "no changes" in done.stdout and "3 unchanged" in done.stdout


def test_the_merge_base_renders_from_its_own_tree_says_nothing_twice_and_leaves_the_process_as_it_was(repo):
    """REF is rendered in this process against its archive: a package's source is REF's own
    there (a change to the trainer's code here resubmits the job shipping it), what REF's
    render notes is not said again beside the working tree's, and the working directory and
    stacks directory are put back (a second diff in the same process says the same)."""
    # A machine type no table lists is warned of by either side's render: committed, both have it.
    edit(repo, "machineSpec: {machineType: n1-standard-4}\n              containerSpec", "machineSpec: {machineType: c3-standard-4}\n              containerSpec")
    git(repo, "commit", "-q", "-am", "eval on c3")  # and diff against this commit
    warned = "warning: spot-training:teams.vision.jobs.eval.workerPoolSpecs[0].machineSpec.machineType: c3-standard-4"
    model = repo / "training" / "tabular-trainer" / "src" / "tabular_trainer" / "model.py"
    model.write_text(model.read_text() + "\n# a change to the trainer's code, not committed\n")
    done = diff(repo, "dev", "--against", "HEAD")
    assert done.returncode == 0, done.stderr
    changed = [line for line in done.stdout.splitlines() if line.startswith("~ ")]
    assert changed and all("tabular/baseline" in line for line in changed), done.stdout
    assert "packageUris" in done.stdout and "resubmits" in done.stdout, done.stdout
    assert done.stderr.count(warned) == 1, done.stderr
    again = diff(repo, "dev", "--against", "HEAD")
    assert (again.returncode, again.stdout, again.stderr) == (0, done.stdout, done.stderr)


def test_the_render_in_refs_tree_puts_the_directory_the_variables_and_the_output_back_whatever_it_raised(tmp_path, monkeypatch, capsys):
    from cli.diff import _in_tree

    monkeypatch.setenv("SPOT_TRAINING_STACKS_DIR", "here")
    monkeypatch.delenv("SPOT_TRAINING_UNSET", raising=False)
    before = Path.cwd()
    with pytest.raises(RuntimeError), _in_tree(tmp_path, {"SPOT_TRAINING_STACKS_DIR": "there", "SPOT_TRAINING_UNSET": "set"}):
        assert Path.cwd() == tmp_path and os.environ["SPOT_TRAINING_STACKS_DIR"] == "there"
        print("REF's note")
        raise RuntimeError("a failing render")
    assert Path.cwd() == before and os.environ["SPOT_TRAINING_STACKS_DIR"] == "here" and "SPOT_TRAINING_UNSET" not in os.environ
    assert "REF's note" not in capsys.readouterr().out


def test_a_stack_absent_at_the_ref_is_all_added(repo):
    (repo / "stacks" / "Pulumi.qa.yaml").write_text((repo / "stacks" / "Pulumi.dev.yaml").read_text())
    done = diff(repo, "qa")
    assert done.returncode == 0, done.stderr
    for job in ("vision/resnet-smoke", "vision/eval", "tabular/baseline"):
        assert f"+ {job}" in done.stdout
    assert "3 to add" in done.stdout


def test_a_bad_ref_is_one_error_and_exit_2(repo):
    done = diff(repo, "dev", "--against", "no-such-ref")
    assert done.returncode == 2
    assert "no-such-ref" in done.stderr and "Traceback" not in done.stderr
    assert len(done.stderr.strip().splitlines()) == 1


def test_without_a_default_branch_the_error_says_what_was_looked_for_and_to_pass_against(repo):
    git(repo, "remote", "remove", "origin")
    git(repo, "branch", "-q", "-m", "main", "trunk")
    done = diff(repo, "dev")
    assert done.returncode == 2 and done.stdout == ""
    assert "--against" in done.stderr and "Traceback" not in done.stderr
    assert "no default branch" in done.stderr and "main" in done.stderr and "master" in done.stderr
    assert len(done.stderr.strip().splitlines()) == 1


def test_an_invalid_stack_in_the_working_tree_exits_1(repo):
    edit(repo, "scheduling: {strategy: SPOT, timeout: 7200s}", "scheduling: {strategy: SPOTTY, timeout: 7200s}")
    done = diff(repo, "dev")
    assert done.returncode == 1
    assert "scheduling.strategy" in done.stderr and "Traceback" not in done.stderr


def test_an_invalid_stack_at_the_ref_exits_1_naming_the_ref(repo):
    edit(repo, "scheduling: {strategy: SPOT, timeout: 7200s}", "scheduling: {strategy: SPOTTY, timeout: 7200s}")
    git(repo, "commit", "-qam", "broken")
    bad = git(repo, "rev-parse", "--short", "HEAD")
    edit(repo, "strategy: SPOTTY", "strategy: SPOT")
    done = diff(repo, "dev", "--against", "HEAD")
    assert done.returncode == 1
    assert "scheduling.strategy" in done.stderr and "HEAD" in done.stderr and "Traceback" not in done.stderr
    assert bad  # named by the ref the user gave


def test_an_unknown_stack_exits_2(repo):
    done = diff(repo, "staging")
    assert done.returncode == 2 and "no stack 'staging'" in done.stderr


def test_a_stack_removed_from_the_working_tree_is_all_removed(repo):
    (repo / "stacks" / "Pulumi.dev.yaml").unlink()
    done = diff(repo, "dev")
    assert done.returncode == 0, done.stderr
    assert "is gone from the working tree" in done.stdout
    for job in ("vision/resnet-smoke", "vision/eval", "tabular/baseline"):
        assert f"- {job}" in done.stdout
    assert "0 to add, 0 to change (0 resubmits), 3 to remove, 0 unchanged" in done.stdout


def test_diff_from_a_subdirectory_renders_both_sides_against_the_project(repo):
    edit(repo, "waitTimeout: 900s", "waitTimeout: 1200s")
    done = spot_training("diff", "dev", stacks_dir=repo / "stacks", cwd=repo / "docs")
    assert done.returncode == 0, done.stderr
    assert '    ~ waitTimeout: "900s" => "1200s"' in done.stdout


def test_without_a_local_main_the_remotes_default_branch_is_the_base(repo):
    """A clone's origin/HEAD names the remote's default branch: the base a pull request merges into."""
    git(repo, "branch", "-q", "-D", "main")
    edit(repo, "waitTimeout: 900s", "waitTimeout: 1200s")
    done = diff(repo, "dev")
    assert done.returncode == 0, done.stderr
    assert "against the merge base with origin/main" in done.stdout
    assert '    ~ waitTimeout: "900s" => "1200s"' in done.stdout


def test_a_default_branch_named_otherwise_is_found_by_init_default_branch(repo):
    git(repo, "remote", "remove", "origin")
    git(repo, "branch", "-q", "-m", "main", "trunk")
    git(repo, "config", "init.defaultBranch", "trunk")
    done = diff(repo, "dev")
    assert done.returncode == 0, done.stderr
    assert "against the merge base with trunk" in done.stdout and "no changes" in done.stdout


def test_a_master_branch_is_the_base_when_there_is_no_main(repo):
    git(repo, "remote", "remove", "origin")
    git(repo, "branch", "-q", "-m", "main", "master")
    done = diff(repo, "dev")
    assert done.returncode == 0, done.stderr
    assert "against the merge base with master" in done.stdout


def test_a_remote_named_otherwise_gives_its_default_branch_too(repo):
    git(repo, "remote", "rename", "origin", "upstream")
    git(repo, "branch", "-q", "-D", "main")
    done = diff(repo, "dev")
    assert done.returncode == 0, done.stderr
    assert "against the merge base with upstream/main" in done.stdout


def test_diff_from_outside_the_checkout_diffs_the_stack_files_project(repo, tmp_path):
    """As validate and render do: the stack files say which project, wherever the command is run."""
    edit(repo, "waitTimeout: 900s", "waitTimeout: 1200s")
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    done = spot_training("diff", "dev", stacks_dir=repo / "stacks", cwd=elsewhere)
    assert done.returncode == 0, done.stderr
    assert '    ~ waitTimeout: "900s" => "1200s"' in done.stdout


def test_a_project_that_is_no_git_checkout_is_one_error_and_exit_2(tmp_path):
    project = tmp_path / "project"
    (project / "stacks").mkdir(parents=True)
    (project / "Pulumi.yaml").write_text((ROOT / "Pulumi.yaml").read_text())
    (project / "stacks" / "Pulumi.dev.yaml").write_text((ROOT / "stacks" / "Pulumi.dev.yaml").read_text())
    done = spot_training("diff", "dev", stacks_dir=project / "stacks", cwd=ROOT)
    assert done.returncode == 2 and done.stdout == ""
    assert f"{project} is not in a git repository" in done.stderr and "Traceback" not in done.stderr
