"""`spot-training sandbox drill` through what a user types, under the real engine (the CLI
tools/engine/build.sh builds) and the sandbox's services: it passes for the example trainer, and
fails, saying why, for a copy that never loads its checkpoint and for one whose training after a
resume is not the training without one (tests/sandbox/trainers/). Nothing here reaches Google."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
import yaml

from tests.cli_runner import ROOT
from tests.sandbox.walk import environment, left_running, spot_training, wait

pytestmark = pytest.mark.engine

STEPS = 60_000  # ~8 s alone on one core: room for three preemptions
TRAINERS = Path(__file__).parent / "trainers"


def _stack(stacks: Path, name: str) -> None:
    """dev as it is, with the tabular team's jobs: the example trainer and the two broken copies."""
    config = yaml.safe_load((ROOT / "stacks" / "Pulumi.dev.yaml").read_text())
    tabular = config["config"]["spot-training:teams"]["tabular"]
    baseline = tabular["jobs"]["baseline"]
    baseline["workerPoolSpecs"][0]["pythonPackageSpec"]["args"] = [f"--steps={STEPS}", "--checkpoint-interval=4000"]
    tabular["packages"] |= {
        "forgetful": {"source": str(TRAINERS / "forgetful")}, "drifting": {"source": str(TRAINERS / "drifting")},
    }
    uris = baseline["workerPoolSpecs"][0]["pythonPackageSpec"]["packageUris"]
    for broken in ("forgetful", "drifting"):
        job = yaml.safe_load(yaml.safe_dump(baseline))
        spec = job["workerPoolSpecs"][0]["pythonPackageSpec"]
        spec["pythonModule"] = f"{broken}_trainer.task"
        spec["packageUris"] = [*uris, f"${{packages.{broken}}}"]
        tabular["jobs"][broken] = job
    stacks.mkdir(parents=True, exist_ok=True)
    (stacks / f"Pulumi.{name}.yaml").write_text(yaml.safe_dump(config, sort_keys=False))


@pytest.fixture(scope="module")
def sandbox(tmp_path_factory):
    root = tmp_path_factory.mktemp("drill")
    stacks, home, stack = root / "stacks", root / "sandbox", "drill"
    _stack(stacks, stack)
    env = environment(stacks, home)
    up = spot_training(env, "sandbox", "up", stack)
    assert up.returncode == 0, up.stdout + up.stderr
    yield env, stack
    down = spot_training(env, "sandbox", "down", stack)
    assert down.returncode == 0, down.stdout + down.stderr
    wait(lambda: not left_running(home), "nothing left running", timeout=15)


def test_the_example_trainer_survives_gentle_and_hard_preemptions_restarts_and_a_resubmission(sandbox):
    env, stack = sandbox
    drill = spot_training(env, "sandbox", "drill", stack, "tabular/baseline", "--grace", "5s", "--seed", "3")
    assert drill.returncode == 0, drill.stdout + drill.stderr
    rows = re.findall(r"^(\d)\s+(gentle|hard)\s+(~?)(\d+)\s+(\d+)\s+~?(\d+)\s+~?[\d.]+\s+(restart|resubmit)$", drill.stdout, re.M)
    assert len(rows) == 3, drill.stdout
    assert {kind for _, kind, *_ in rows} == {"gentle", "hard"}, drill.stdout  # both kinds, mixed
    assert [then for *_, then in rows] == ["restart", "restart", "resubmit"]
    for _, kind, estimated, taken, resumed, lost, _ in rows:
        assert 0 < int(resumed) <= int(taken) < STEPS, drill.stdout  # each attempt resumed, none from step 0
        if kind == "gentle" and not estimated:
            assert taken == resumed and lost == "0", drill.stdout  # checkpointed on the notice: nothing lost
        else:
            assert int(taken) - int(resumed) <= 4000 + 2000, drill.stdout  # at most an interval, give or take the estimate
    assert re.search(r"uninterrupted: 60000 steps in [\d.]+ s of training; checkpoints took [\d.]+% of it", drill.stdout), drill.stdout
    assert "model: 2 files under AIP_MODEL_DIR, byte for byte the uninterrupted run's" in drill.stdout
    assert drill.stdout.rstrip().endswith("passed: the trainer survives Spot")


def test_a_trainer_that_never_loads_its_checkpoint_fails_the_drill_saying_so(sandbox):
    env, stack = sandbox
    drill = spot_training(env, "sandbox", "drill", stack, "tabular/forgetful", "--grace", "5s")
    assert drill.returncode == 1, drill.stdout + drill.stderr
    [line] = drill.stderr.strip().splitlines()
    assert re.fullmatch(
        r"error: drill failed: after the (gentle|hard) preemption at step ~?\d+, the next attempt of tabular/forgetful resumed from step 0 "
        r"although step \d+ was checkpointed: it does not load its checkpoint from AIP_CHECKPOINT_DIR \(docs/training.md\)",
        line,
    ), line


def test_a_trainer_whose_model_differs_after_a_resume_fails_the_drill_naming_the_file(sandbox):
    env, stack = sandbox
    drill = spot_training(env, "sandbox", "drill", stack, "tabular/drifting", "--grace", "5s", "--preemptions", "1")
    assert drill.returncode == 1, drill.stdout + drill.stderr
    [line] = drill.stderr.strip().splitlines()
    assert re.match(r"error: drill failed: model/(model\.npz|metrics\.json) differs from the uninterrupted run's from byte \d+ ", line), line
    assert "for a trainer that is not deterministic, compare its metrics with --tolerance" in line


def test_with_a_tolerance_the_drill_compares_the_numbers_the_trainer_declares_comparable(sandbox):
    env, stack = sandbox
    # The drifting copy's weights differ after a resume, its held-out accuracy hardly: metrics.json's numbers.
    drill = spot_training(env, "sandbox", "drill", stack, "tabular/drifting", "--grace", "5s", "--preemptions", "1", "--tolerance", "0.2")
    assert drill.returncode == 0, drill.stdout + drill.stderr
    assert "model: the 3 numbers of model/metrics.json within 0.2 of the uninterrupted run's" in drill.stdout, drill.stdout
