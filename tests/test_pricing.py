"""Prices before merge: the table's rows, a stack's own prices and their errors, the PRICES
section of `render` and the price change `diff` shows. Figures worked out by hand from the
stand-in prices below (test data, not Google's)."""

from __future__ import annotations

import json

import pytest
import yaml

from components.pricing import table as prices
from tests.cli_runner import spot_training, spot_training_in_process
from tests.program import STACKS
from tests.test_cli_diff import NIGHTLY, diff, edit, git, origin, repo  # noqa: F401 - the diff fixtures

PRICES = {
    "machines": {
        "n1-standard-8": {"us-central1": {"onDemand": 0.40, "spot": 0.10}, "us-east1": {"onDemand": 0.44, "spot": 0.11}},
        "n1-standard-4": {"us-central1": {"spot": 0.05}},
    },
    "accelerators": {"NVIDIA_TESLA_T4": {"us-central1": {"onDemand": 0.30, "spot": 0.12}, "us-east1": {"onDemand": 0.33, "spot": 0.13}}},
}


def write(directory, changes) -> None:
    stack = yaml.safe_load((STACKS / "Pulumi.dev.yaml").read_text())
    changes(stack["config"])
    (directory / "Pulumi.dev.yaml").write_text(yaml.safe_dump(stack, allow_unicode=True))


def section(stdout: str, title: str) -> list[str]:
    return next(block for block in stdout.split("\n\n") if block.startswith(title)).splitlines()


def test_every_shipped_row_cites_a_source_and_a_date():
    document = json.loads(prices.PRICES_FILE.read_text())
    for row in document["rows"]:
        assert row["source"].startswith("https://cloud.google.com/"), row
        assert len(row["read"]) == 10 and row["copy"], row
        assert row["usdPerHour"] > 0, row  # an unknown price has no row; it is never 0


def test_a_price_the_table_lacks_is_unknown_never_zero():
    from components.pricing.hourly import hourly

    spec = {"workerPoolSpecs": [{"machineSpec": {"machineType": "n1-standard-4"}, "replicaCount": 1}]}
    assert hourly(spec, "us-central1", "STANDARD", prices.load()).usd == 0.21849885  # the cited row
    spot = hourly(spec, "us-central1", "SPOT", prices.load())
    assert spot.usd is None and spot.text() == "unknown"
    assert spot.missing == ("machine n1-standard-4 in us-central1 (spot)",)


def test_every_replica_of_every_pool_is_priced():
    from components.pricing.hourly import hourly

    table = prices.load().with_overrides(PRICES)
    spec = {"workerPoolSpecs": [
        {"machineSpec": {"machineType": "n1-standard-8", "acceleratorType": "NVIDIA_TESLA_T4", "acceleratorCount": 2}, "replicaCount": 1},
        {"machineSpec": {"machineType": "n1-standard-8"}, "replicaCount": "3"},  # int64 as Vertex's JSON writes it
    ]}
    # 1 x (0.10 + 2 x 0.12) + 3 x 0.10 = 0.34 + 0.30 = 0.64
    assert hourly(spec, "us-central1", "SPOT", table).usd == pytest.approx(0.64)


def test_render_shows_the_price_on_the_strategy_on_demand_and_on_each_rung(tmp_path):
    def change(config):
        config["spot-training:prices"] = PRICES
        config["spot-training:teams"]["vision"]["jobs"]["resnet-smoke"]["resubmission"] = {
            "fallback": [{"afterStockouts": 1, "location": "us-east1"}, {"afterStockouts": 2, "strategy": "STANDARD"}]
        }

    write(tmp_path, change)
    done = spot_training("render", "dev", stacks_dir=tmp_path)
    assert done.returncode == 0, done.stderr
    lines = section(done.stdout, "PRICES")
    smoke = next(line for line in lines if line.startswith("vision") and "resnet-smoke" in line).split(None, 5)
    assert smoke[2:5] == ["SPOT", "$0.2200/h", "$0.7000/h"]  # 0.10 + 0.12; on-demand 0.40 + 0.30
    # us-east1: SPOT 0.11 + 0.13 = 0.24; STANDARD 0.44 + 0.33 = 0.77
    assert smoke[5] == "after 1 stockout SPOT in us-east1 $0.2400/h → after 2 stockouts STANDARD in us-east1 $0.7700/h"
    baseline = next(line for line in lines if line.startswith("tabular")).split()
    assert baseline[2:5] == ["SPOT", "$0.0500/h", "$0.2185/h"]  # the stack's spot price; the table's cited on-demand row
    assert "  vision/eval" not in lines  # priced
    assert "Traceback" not in done.stderr


def test_render_says_what_has_no_price():
    done = spot_training_in_process("render", "dev")
    lines = section(done.stdout, "PRICES")
    assert any(line.startswith("vision") and "resnet-smoke" in line and line.split()[3:5] == ["unknown", "unknown"] for line in lines)
    assert "  vision/resnet-smoke: no price for machine n1-standard-8 in us-central1 (spot)" in "\n".join(lines)


@pytest.mark.parametrize(
    ("prices_value", "message"),
    [
        ({"machines": {"n1-standard-8": {"us-central1": {"spot": -1}}}}, "spot-training:prices.machines.n1-standard-8.us-central1.spot: must be a price in USD per hour"),
        ({"machines": {"n1-standard-8": {"us-central1": {"preemptible": 0.1}}}}, "spot-training:prices.machines.n1-standard-8.us-central1.preemptible: unknown key"),
        ({"machines": {"n1-standard-8": {"Iowa": {"spot": 0.1}}}}, "spot-training:prices.machines.n1-standard-8.Iowa: 'Iowa' is not a region id"),
        ({"gpus": {}}, "spot-training:prices.gpus: unknown key"),
        ({"accelerators": {"nvidia-t4": {"us-central1": {"spot": 0.1}}}}, "spot-training:prices.accelerators.nvidia-t4: 'nvidia-t4' is not a accelerator type"),
        ([1, 2], "spot-training:prices: must be a map"),
    ],
)
def test_bad_prices_fail_validate_naming_the_config_path(tmp_path, prices_value, message):
    write(tmp_path, lambda config: config.__setitem__("spot-training:prices", prices_value))
    done = spot_training_in_process("validate", "dev", stacks_dir=tmp_path)
    assert done.returncode == 1
    assert message in done.stdout + done.stderr
    assert "Traceback" not in done.stderr


def test_diff_shows_the_change_in_price_per_hour_job_by_job(repo):  # noqa: F811 - the fixture
    path = repo / "stacks" / "Pulumi.dev.yaml"
    path.write_text(path.read_text().rstrip("\n") + "\n  spot-training:prices: " + json.dumps(PRICES) + "\n")
    git(repo, "commit", "-qam", "prices")
    edit(repo, "machineSpec: {machineType: n1-standard-4}\n              containerSpec", "machineSpec: {machineType: n1-standard-8}\n              containerSpec")
    text = path.read_text()
    at = text.index("  spot-training:prices:")
    path.write_text(text[:at].rstrip("\n") + "\n" + NIGHTLY.lstrip("\n") + text[at:])
    done = diff(repo, "dev")
    assert done.returncode == 0, done.stderr
    lines = section(done.stdout, "price per hour")
    assert "  vision/eval: $0.0500/h → $0.1000/h (+0.0500/h)" in lines  # n1-standard-4 → n1-standard-8, SPOT
    assert "  tabular/nightly: none → $0.0500/h (+0.0500/h)" in lines  # added
    assert not any("resnet-smoke" in line for line in lines)  # its price does not change
    # before: baseline 0.05 + eval 0.05 + resnet-smoke (0.10 + 0.12) = 0.32
    # after:  baseline 0.05 + eval 0.10 + resnet-smoke 0.22 + nightly 0.05 = 0.42
    assert "  total of the jobs priced on both sides: $0.3200/h → $0.4200/h (+0.1000/h)" in lines
    assert not any(line.startswith("  unknown") for line in lines)


def test_diff_names_the_jobs_whose_price_is_unknown(repo):  # noqa: F811 - the fixture
    edit(repo, "machineSpec: {machineType: n1-standard-4}\n              containerSpec", "machineSpec: {machineType: n1-standard-8}\n              containerSpec")
    done = diff(repo, "dev")
    assert done.returncode == 0, done.stderr
    lines = section(done.stdout, "price per hour")
    assert "  vision/eval: unknown → unknown" in lines  # no Spot price for either machine in the shipped table
    # No job priced on both sides: no total of nothing, said as what it is.
    assert "  total: no job's price is known on both sides" in lines
    assert not any("$0.0000/h → $0.0000/h" in line for line in lines)
    assert "  unknown, not in the total: tabular/baseline, vision/eval, vision/resnet-smoke" in "\n".join(lines)
