"""Prices before merge: the table's rows, a stack's own prices and their errors, the PRICES
section of `render` and the price change `diff` shows. Figures worked out by hand from the
stand-in prices below (test data, not Google's)."""

from __future__ import annotations

import json

import pytest
import yaml

from components.pricing import table as prices
from tests.cli_runner import spot_training_in_process
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


def test_every_shipped_row_cites_a_source_a_date_and_its_basis():
    import csv
    from datetime import date

    with prices.PRICES_FILE.open(newline="") as file:
        rows = list(csv.DictReader(file))
    assert {row["basis"] for row in rows} <= set(prices.BASES)
    for row in rows:
        assert row["source"] and row["copy"], row
        date.fromisoformat(row["read"])
        assert float(row["usdPerHour"]) > 0, row  # an unknown price has no row; it is never 0
        if row["basis"] == "cited":
            assert row["source"].startswith("https://cloud.google.com/"), row
        else:  # derived: the Compute Engine figure it rests on, SKU ids where the copy gives them, and the rule
            assert "Compute Engine" in row["copy"] and "1.15 ×" in row["copy"], row
            assert ("SKU " in row["copy"]) == row["source"].startswith("apache-libcloud"), row


def test_a_price_the_table_lacks_is_unknown_never_zero():
    from components.pricing.hourly import hourly

    spec = {"workerPoolSpecs": [{"machineSpec": {"machineType": "n1-standard-4"}, "replicaCount": 1}]}
    on_demand = hourly(spec, "us-central1", "STANDARD", prices.load())
    assert (on_demand.usd, on_demand.text()) == (0.21849885, "$0.2185/h")  # the cited row, exact
    spot = hourly(spec, "us-central1", "SPOT", prices.load())
    assert (spot.usd, spot.text()) == (0.046, "~$0.046/h")  # 1.15 × the Spot SKUs' 0.04: derived, marked
    # libcloud's copy has no SKU for us-east1: unknown, with the reason the refresh recorded.
    east = hourly(spec, "us-east1", "SPOT", prices.load())
    assert east.usd is None and east.text() == "unknown"
    assert east.missing == ("machine n1-standard-4 in us-east1 (spot): libcloud's copy has no preemptible cpu SKU for us-east1",)


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
    done = spot_training_in_process("render", "dev", stacks_dir=tmp_path)
    assert done.returncode == 0, done.stderr
    lines = section(done.stdout, "PRICES")
    smoke = next(line for line in lines if line.startswith("vision") and "resnet-smoke" in line).split(None, 6)
    # 0.10 + 0.12; on-demand 0.40 + 0.30; saving 0.70 - 0.22: the stack's own prices, exact
    assert smoke[2:6] == ["SPOT", "$0.2200/h", "$0.7000/h", "$0.4800/h"]
    # us-east1: SPOT 0.11 + 0.13 = 0.24; STANDARD 0.44 + 0.33 = 0.77
    assert smoke[6] == "after 1 stockout SPOT in us-east1 $0.2400/h → after 2 stockouts STANDARD in us-east1 $0.7700/h"
    baseline = next(line for line in lines if line.startswith("tabular")).split()
    # The stack's spot price; the table's cited on-demand row; the saving 0.21849885 - 0.05, both exact.
    assert baseline[2:6] == ["SPOT", "$0.0500/h", "$0.2185/h", "$0.1685/h"]
    assert "  vision/eval" not in lines  # priced
    assert "Traceback" not in done.stderr


def test_render_says_what_has_no_price_and_why(tmp_path):
    def change(config):  # a machine of a series the rules accept but no source prices
        pool = config["spot-training:teams"]["vision"]["jobs"]["resnet-smoke"]["workerPoolSpecs"][0]
        pool["machineSpec"] = {"machineType": "c3-standard-8"}

    write(tmp_path, change)
    done = spot_training_in_process("render", "dev", stacks_dir=tmp_path)
    lines = section(done.stdout, "PRICES")
    assert any(line.startswith("vision") and "resnet-smoke" in line and line.split()[3:6] == ["unknown"] * 3 for line in lines)
    assert "  vision/resnet-smoke: no price for machine c3-standard-8 in us-central1 (spot); machine c3-standard-8 in us-central1 (onDemand)" in lines


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
    assert "  vision/eval: $0.0500/h → $0.1000/h (+$0.0500/h)" in lines  # n1-standard-4 → n1-standard-8, SPOT
    assert "  tabular/nightly: none → $0.0500/h (+$0.0500/h)" in lines  # added
    assert not any("resnet-smoke" in line for line in lines)  # its price does not change
    # before: baseline 0.05 + eval 0.05 + resnet-smoke (0.10 + 0.12) = 0.32
    # after:  baseline 0.05 + eval 0.10 + resnet-smoke 0.22 + nightly 0.05 = 0.42
    assert "  total of the jobs priced on both sides: $0.3200/h → $0.4200/h (+$0.1000/h)" in lines
    assert not any(line.startswith("  unknown") for line in lines)
    assert not any("~" in line for line in lines)  # the stack's own prices are exact: no mark, no legend


def test_diff_marks_derived_prices_and_names_the_jobs_whose_price_is_unknown(repo):  # noqa: F811 - the fixture
    edit(repo, "machineSpec: {machineType: n1-standard-4}\n              containerSpec", "machineSpec: {machineType: n1-standard-8}\n              containerSpec")
    done = diff(repo, "dev")
    assert done.returncode == 0, done.stderr
    lines = section(done.stdout, "price per hour")
    # The shipped table's derived Spot prices: 1.15 × 0.04 and 1.15 × 0.080001 (the SKUs), marked.
    assert "  vision/eval: ~$0.046/h → ~$0.092/h (+~$0.046/h)" in lines
    assert "  ~: rests on a derived price or a Spot snapshot, to 3 significant figures (docs/costs.md)" in lines
    assert "  prices as of 2025-03-02 (the table's oldest row, docs/costs.md)" in lines
    edit(repo, "machineSpec: {machineType: n1-standard-8}\n              containerSpec", "machineSpec: {machineType: c3-standard-8}\n              containerSpec")
    lines = section(diff(repo, "dev").stdout, "price per hour")
    assert "  vision/eval: ~$0.046/h → unknown" in lines  # no source prices C3
    assert any(line.startswith("  unknown, not in the total: vision/eval") for line in lines)


def test_diff_with_no_job_priced_on_both_sides_says_so_not_a_total_of_nothing():
    from cli.diff import price_change

    job = {"location": "us-central1", "jobSpec": {"workerPoolSpecs": [{"machineSpec": {"machineType": "c3-standard-8"}, "replicaCount": 1}]}}
    lines = price_change({"a/x": job}, {"a/x": job, "a/y": job}, prices.load()).splitlines()
    assert "  total: no job's price is known on both sides" in lines
    assert not any("$0.0000/h" in line for line in lines)
    assert "  unknown, not in the total: a/x, a/y (docs/costs.md: set prices in spot-training:prices)" in lines
