"""`spot-training report`: run as a user runs it, against the Vertex AI emulator, with
start and end times set as Vertex records them. Every expected figure is worked out by
hand below, from the prices this test's stack sets (stand-ins: test data, not Google's).

The stack is dev with `spot-training:prices` and a region ladder for vision/resnet-smoke:

    n1-standard-8    us-central1  onDemand 0.40  spot 0.10
    NVIDIA_TESLA_T4  us-central1  onDemand 0.30  spot 0.12
    n1-standard-8    us-east1     onDemand 0.44  spot 0.11
    NVIDIA_TESLA_T4  us-east1     onDemand 0.33  spot 0.13
    n1-standard-4    us-central1  spot 0.05 (onDemand 0.21849885: the shipped table's row)
"""

from __future__ import annotations

import json
from datetime import datetime, timedelta, timezone

import pytest
import yaml

from components.spot_job.client import job_service
from components.spot_job.model import submission_labels
from tests.cli_runner import spot_training, spot_training_in_process
from tests.module_emulator import _emulator, bodies, emulator  # noqa: F401 (fixtures)
from tests.program import STACKS

CENTRAL = "projects/acme-ml-dev/locations/us-central1"
EAST = "projects/acme-ml-dev/locations/us-east1"
TOKEN = "hf_" + "R8y" * 12  # the shape of a Hugging Face token; made up
PRICES = {
    "machines": {
        "n1-standard-8": {"us-central1": {"onDemand": 0.40, "spot": 0.10}, "us-east1": {"onDemand": 0.44, "spot": 0.11}},
        "n1-standard-4": {"us-central1": {"spot": 0.05}},
    },
    "accelerators": {"NVIDIA_TESLA_T4": {"us-central1": {"onDemand": 0.30, "spot": 0.12}, "us-east1": {"onDemand": 0.33, "spot": 0.13}}},
}




@pytest.fixture
def stacks(tmp_path):
    stack = yaml.safe_load((STACKS / "Pulumi.dev.yaml").read_text())
    stack["config"]["spot-training:prices"] = PRICES
    stack["config"]["spot-training:teams"]["vision"]["jobs"]["resnet-smoke"]["resubmission"] = {
        "fallback": [{"afterStockouts": 1, "location": "us-east1"}]
    }
    (tmp_path / "Pulumi.dev.yaml").write_text(yaml.safe_dump(stack, allow_unicode=True))
    return tmp_path


def submit(parent: str, body: dict, key: str = "", **changes) -> str:
    body = json.loads(json.dumps(body))
    if key:
        body["labels"][submission_labels.SUBMISSION_LABEL] = key
    for pool in body["jobSpec"]["workerPoolSpecs"]:
        pool["machineSpec"].update(changes)
    return job_service.JobService(parent.rsplit("/", 1)[1]).create(parent, body)["name"]


def env(emulator) -> dict[str, str]:
    return {"AIPLATFORM_EMULATOR_HOST": emulator.address}


@pytest.fixture
def scene(emulator, bodies):
    # vision/resnet-smoke attempt 1: SPOT in us-central1, 10:00 to 12:30 (2.5 h), preempted for good (STOCKOUT).
    first = submit(CENTRAL, bodies["vision/resnet-smoke"])
    emulator.preempt(first)
    emulator.set_times(first, create="2026-12-01T09:55:00Z", start="2026-12-01T10:00:00Z", end="2026-12-01T12:30:00Z")
    # attempt 2: the ladder moved it to us-east1, SPOT, 13:00 to 14:30 (1.5 h), succeeded.
    second = submit(EAST, bodies["vision/resnet-smoke"], key="attempt-2")
    for _ in range(3):
        emulator.advance(second)
    emulator.set_times(second, create="2026-12-01T12:35:00Z", start="2026-12-01T13:00:00Z", end="2026-12-01T14:30:00Z")
    # vision/eval: a machine no table prices (c3-standard-4: no source read prices C3), one hour, succeeded: its cost is unknown.
    evaluation = submit(CENTRAL, bodies["vision/eval"], machineType="c3-standard-4")
    for _ in range(3):
        emulator.advance(evaluation)
    emulator.set_times(evaluation, start="2026-12-02T08:00:00Z", end="2026-12-02T09:00:00Z")
    # tabular/baseline: running for two hours now, a secret in its env (as a deployed job holds it, decrypted).
    baseline_body = json.loads(json.dumps(bodies["tabular/baseline"]))
    baseline_body["jobSpec"]["workerPoolSpecs"][0].setdefault("pythonPackageSpec", {})["env"] = [{"name": "HF_TOKEN", "value": TOKEN}]
    baseline = submit(CENTRAL, baseline_body)
    emulator.advance(baseline)
    emulator.advance(baseline)  # RUNNING
    started = datetime.now(timezone.utc) - timedelta(hours=2)
    emulator.set_times(baseline, start=started.isoformat().replace("+00:00", "Z"))
    return {"first": first, "second": second, "eval": evaluation, "baseline": baseline}


def test_report_prices_every_attempt_and_totals_by_hand(emulator, scene, stacks):
    done = spot_training_in_process("report", "dev", "--json", stacks_dir=stacks, env=env(emulator))
    assert done.returncode == 0, done.stderr
    got = json.loads(done.stdout)
    by = {(a["job"], a["attempt"]): a for a in got["attempts"]}

    first = by[("vision/resnet-smoke", 1)]
    assert (first["region"], first["strategy"], first["stockout"]) == ("us-central1", "SPOT", True)
    assert (first["machines"], first["accelerators"]) == ("1x n1-standard-8", "1x NVIDIA_TESLA_T4")
    assert first["hours"] == 2.5
    assert first["costUsd"] == pytest.approx(0.55)  # 2.5 h x (0.10 + 0.12)
    assert first["standardCostUsd"] == pytest.approx(1.75)  # 2.5 h x (0.40 + 0.30)
    assert first["savingUsd"] == pytest.approx(1.20)  # 1.75 - 0.55

    second = by[("vision/resnet-smoke", 2)]
    assert (second["region"], second["stockout"], second["hours"]) == ("us-east1", False, 1.5)
    assert second["costUsd"] == pytest.approx(0.36)  # 1.5 h x (0.11 + 0.13)
    assert second["standardCostUsd"] == pytest.approx(1.155)  # 1.5 h x (0.44 + 0.33)

    evaluation = by[("vision/eval", 1)]
    assert evaluation["hours"] == 1.0
    assert evaluation["costUsd"] is None and evaluation["standardCostUsd"] is None and evaluation["savingUsd"] is None
    assert any("c3-standard-4" in why for why in evaluation["unknown"])

    baseline = by[("tabular/baseline", 1)]
    assert baseline["state"] == "JOB_STATE_RUNNING"
    assert baseline["hours"] == pytest.approx(2.0, abs=0.01)  # started two hours ago, priced up to now
    assert baseline["costUsd"] == pytest.approx(0.10, abs=0.001)  # 2 h x 0.05
    assert baseline["standardCostUsd"] == pytest.approx(0.4369977, abs=0.003)  # 2 h x 0.21849885

    vision = got["teams"]["vision"]
    assert vision["costUsd"] == pytest.approx(0.91)  # 0.55 + 0.36; eval unknown, not 0
    assert vision["standardCostUsd"] == pytest.approx(2.905)  # 1.75 + 1.155
    assert vision["savingUsd"] == pytest.approx(1.995)  # 2.905 - 0.91
    assert vision["stockoutCostUsd"] == pytest.approx(0.55)  # attempt 1 only
    assert vision["unknown"] == ["vision/eval attempt 1"]
    assert got["teams"]["tabular"]["costUsd"] == pytest.approx(0.10, abs=0.001)

    stack = got["stack"]
    assert stack["attempts"] == 4
    assert stack["costUsd"] == pytest.approx(1.01, abs=0.001)  # 0.91 + 0.10
    assert stack["standardCostUsd"] == pytest.approx(3.3419977, abs=0.003)  # 2.905 + 0.4369977
    assert stack["savingUsd"] == pytest.approx(2.3319977, abs=0.003)  # 3.3419977 - 1.01
    assert stack["stockoutCostUsd"] == pytest.approx(0.55)
    assert stack["unknown"] == ["vision/eval attempt 1"]


def test_report_table_as_a_user_runs_it_never_shows_a_secret(emulator, scene, stacks):
    done = spot_training("report", "dev", stacks_dir=stacks, env=env(emulator))
    assert done.returncode == 0, done.stderr
    assert "Traceback" not in done.stderr
    assert TOKEN not in done.stdout + done.stderr
    lines = done.stdout.splitlines()
    first = next(line.split() for line in lines if line.startswith("vision/resnet-smoke") and " 1 " in line)
    assert first[-4:] == ["$0.5500", "$1.7500", "$1.2000", "yes"]
    assert any(line.split()[:2] == ["team", "vision"] and "$0.9100" in line.split() for line in lines)
    assert "unknown" in next(line for line in lines if line.startswith("vision/eval"))
    assert "vision/eval attempt 1: unknown, not counted in the totals" in done.stderr
    json_done = spot_training_in_process("report", "dev", "--json", stacks_dir=stacks, env=env(emulator))
    assert TOKEN not in json_done.stdout + json_done.stderr


def test_since_counts_only_the_run_time_after_it(emulator, scene, stacks):
    done = spot_training_in_process("report", "dev", "--json", "--since", "2026-12-01T12:00:00Z", stacks_dir=stacks, env=env(emulator))
    assert done.returncode == 0, done.stderr
    by = {(a["job"], a["attempt"]): a for a in json.loads(done.stdout)["attempts"]}
    assert by[("vision/resnet-smoke", 1)]["hours"] == 0.5  # 12:00 to 12:30
    assert by[("vision/resnet-smoke", 1)]["costUsd"] == pytest.approx(0.11)  # 0.5 h x 0.22
    done = spot_training_in_process("report", "dev", "--json", "--since", "2026-12-01T13:00:00Z", stacks_dir=stacks, env=env(emulator))
    assert ("vision/resnet-smoke", 1) not in {(a["job"], a["attempt"]) for a in json.loads(done.stdout)["attempts"]}  # ended before


def test_a_job_whose_times_are_missing_is_unknown_not_zero(emulator, bodies, stacks):
    name = submit(CENTRAL, bodies["tabular/baseline"])
    for _ in range(3):
        emulator.advance(name)
    emulator.set_times(name, start="")  # SUCCEEDED, but Vertex gave no startTime
    done = spot_training_in_process("report", "dev", "--json", stacks_dir=stacks, env=env(emulator))
    assert done.returncode == 0, done.stderr
    [attempt] = json.loads(done.stdout)["attempts"]
    assert attempt["hours"] is None and attempt["costUsd"] is None
    assert attempt["unknown"] == ["no startTime from Vertex"]


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (("--since", "last tuesday"), "--since 'last tuesday' is not a date"),
    ],
)
def test_a_bad_since_is_one_error_naming_the_flag(emulator, stacks, args, message):
    done = spot_training_in_process("report", "dev", *args, stacks_dir=stacks, env=env(emulator))
    assert done.returncode == 2
    assert message in done.stderr and "Traceback" not in done.stderr


def test_bad_prices_are_one_error_naming_the_config_path(emulator, stacks):
    stack = yaml.safe_load((stacks / "Pulumi.dev.yaml").read_text())
    stack["config"]["spot-training:prices"]["machines"]["n1-standard-8"]["us-central1"]["spot"] = "cheap"
    (stacks / "Pulumi.dev.yaml").write_text(yaml.safe_dump(stack))
    done = spot_training_in_process("report", "dev", stacks_dir=stacks, env=env(emulator))
    assert done.returncode == 2
    assert "spot-training:prices.machines.n1-standard-8.us-central1.spot: must be a price in USD per hour" in done.stderr
    assert "Traceback" not in done.stderr


@pytest.fixture
def shipped_stacks(tmp_path):
    """dev as it ships (no spot-training:prices: the shipped table's rows) with resnet-smoke's region ladder."""
    stack = yaml.safe_load((STACKS / "Pulumi.dev.yaml").read_text())
    stack["config"]["spot-training:teams"]["vision"]["jobs"]["resnet-smoke"]["resubmission"] = {
        "fallback": [{"afterStockouts": 1, "location": "us-east1"}]
    }
    (tmp_path / "Pulumi.dev.yaml").write_text(yaml.safe_dump(stack, allow_unicode=True))
    return tmp_path


def test_report_totals_from_the_shipped_tables_rows_by_hand(emulator, scene, shipped_stacks):
    # The shipped rows (components/pricing/prices.csv), us-central1, derived unless said:
    #   n1-standard-8    onDemand 0.4369977 (1.15 × 0.379998)   spot 0.092 (1.15 × 0.08)
    #   NVIDIA_TESLA_T4  onDemand 0.4025    (1.15 × 0.35)       spot 0.161 (1.15 × 0.14)
    #   n1-standard-4    onDemand 0.21849885 (cited)            spot 0.046 (1.15 × 0.04)
    # and none in us-east1 (libcloud's copy has no SKU there): attempt 2 is unknown.
    done = spot_training_in_process("report", "dev", "--json", stacks_dir=shipped_stacks, env=env(emulator))
    assert done.returncode == 0, done.stderr
    got = json.loads(done.stdout)
    by = {(a["job"], a["attempt"]): a for a in got["attempts"]}
    first = by[("vision/resnet-smoke", 1)]
    assert first["costUsd"] == pytest.approx(0.6325)  # 2.5 h × (0.092 + 0.161)
    assert first["standardCostUsd"] == pytest.approx(2.09874425)  # 2.5 h × (0.4369977 + 0.4025)
    assert first["savingUsd"] == pytest.approx(1.46624425)
    assert first["approximate"] is True
    second = by[("vision/resnet-smoke", 2)]
    assert second["costUsd"] is None
    assert "no price: machine n1-standard-8 in us-east1 (spot): libcloud's copy has no preemptible cpu SKU for us-east1" in second["unknown"]
    baseline = by[("tabular/baseline", 1)]
    assert baseline["costUsd"] == pytest.approx(0.092, abs=0.001)  # 2 h × 0.046
    assert baseline["standardCostUsd"] == pytest.approx(0.4369977, abs=0.003)  # 2 h × 0.21849885, cited
    vision, stack = got["teams"]["vision"], got["stack"]
    assert vision["costUsd"] == pytest.approx(0.6325) and vision["stockoutCostUsd"] == pytest.approx(0.6325)
    assert sorted(vision["unknown"]) == ["vision/eval attempt 1", "vision/resnet-smoke attempt 2"]
    assert stack["costUsd"] == pytest.approx(0.7245, abs=0.001)  # 0.6325 + 0.092
    assert stack["standardCostUsd"] == pytest.approx(2.53574195, abs=0.003)  # 2.09874425 + 0.4369977
    assert stack["savingUsd"] == pytest.approx(1.81124195, abs=0.003)
    assert stack["approximate"] is True

    table = spot_training_in_process("report", "dev", stacks_dir=shipped_stacks, env=env(emulator))
    first_line = next(line.split() for line in table.stdout.splitlines() if line.startswith("vision/resnet-smoke") and " 1 " in line)
    assert first_line[-4:] == ["~$0.633", "~$2.1", "~$1.47", "yes"]  # three significant figures, marked
    assert "~: rests on a derived price or a Spot snapshot, to 3 significant figures (docs/costs.md)" in table.stdout
    assert "prices as of 2025-03-02 (the table's oldest row, docs/costs.md)" in table.stdout


def test_report_at_80_columns_folds_and_cuts_nothing(emulator, scene, shipped_stacks, monkeypatch):
    from tests.terminal import assert_fits_and_cuts_nothing, at_80_columns

    plain = spot_training_in_process("report", "dev", stacks_dir=shipped_stacks, env=env(emulator)).stdout
    at_80_columns(monkeypatch)
    shown = spot_training_in_process("report", "dev", stacks_dir=shipped_stacks, env=env(emulator)).stdout
    assert_fits_and_cuts_nothing(shown, plain, varies=r"2\.00\d\d|~\$0\.09\d|~\$0\.4\d\d|~\$0\.3\d\d|~\$0\.7\d\d|~\$2\.5\d|~\$1\.8\d")  # baseline runs on
    assert "~$0.633" in shown
