"""The price table's refresh and coverage (tools/prices/), run as a maintainer runs them:
the shipped table is exactly what its sources make, every figure traces to a SKU or a
saved catalog row by the stated rule, and every machine and accelerator the rules accept
is priced or listed with its reason. The figures checked by hand here are the issue's own:
n1-standard-4 in us-central1 is 4 × 0.031611 + 15 × 0.004237 = 0.189999 USD/h on Compute
Engine on demand, 0.04 on Spot (libcloud 3.9.1's copy of the SKUs)."""

from __future__ import annotations

import csv
import subprocess
import sys
from pathlib import Path

import pytest
import tomllib

from components.pricing import table as prices
from tools.prices import accepted, compute_engine, coverage, machine_shapes, refresh, skypilot, vertex_rule

ROOT = Path(__file__).resolve().parent.parent


def rows() -> dict[tuple[str, str, str, str], dict[str, str]]:
    with prices.PRICES_FILE.open(newline="") as file:
        return {(r["kind"], r["name"], r["region"], r["tier"]): r for r in csv.DictReader(file)}


def test_the_shipped_table_is_what_its_sources_make():
    done = subprocess.run([sys.executable, "-m", "tools.prices.refresh", "--check"], cwd=ROOT, capture_output=True, text=True)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "rule holds for cited machine n1-standard-4 us-central1 onDemand: 0.21849885 = 1.15 × 0.189999" in done.stdout


def test_a_hand_edited_table_is_caught(tmp_path, monkeypatch, capsys):
    edited = tmp_path / "prices.csv"
    edited.write_text(prices.PRICES_FILE.read_text().replace("0.21849885", "0.2", 1))
    monkeypatch.setattr(refresh, "PRICES", edited)
    assert refresh.main(["--check"]) == 1
    assert f"{edited} is not what the sources make" in capsys.readouterr().err
    assert "0.2," in edited.read_text()  # --check writes nothing


def test_n1_standard_4_from_its_skus_by_hand():
    skus = compute_engine.load()
    on_demand = skus.machine("n1-standard-4", "us-central1", "onDemand")
    spot = skus.machine("n1-standard-4", "us-central1", "spot")
    assert not isinstance(on_demand, str) and not isinstance(spot, str)
    assert on_demand.usd == pytest.approx(4 * 0.031611 + 15 * 0.004237) == 0.189999
    assert spot.usd == pytest.approx(0.04)
    assert "SKU " in on_demand.detail and "4 vCPU × 0.031611" in on_demand.detail
    table = rows()
    assert table[("machine", "n1-standard-4", "us-central1", "onDemand")]["basis"] == "cited"  # the cited row wins
    derived = table[("machine", "n1-standard-4", "us-central1", "spot")]
    assert (derived["basis"], float(derived["usdPerHour"])) == ("derived", 0.046)  # 1.15 × 0.04
    assert derived["read"] == skus.updated == "2025-03-02"


def test_the_rule_is_checked_against_every_cited_row_and_a_row_it_contradicts_is_kept_cited():
    assert vertex_rule.holds(0.21849885, 0.189999)
    h100 = rows()[("accelerator", "NVIDIA_H100_80GB", "us-central1", "onDemand")]
    assert (h100["basis"], h100["usdPerHour"]) == ("cited", "9.79655057")
    assert not vertex_rule.holds(9.79655057, skypilot.load().accelerators[("NVIDIA_H100_80GB", "us-central1", "onDemand")].usd)
    # ...and no other H100 figure is derived by a rule the cited row shows wrong.
    assert not [k for k, r in rows().items() if k[1] == "NVIDIA_H100_80GB" and r["basis"] == "derived"]
    why = prices.load().why_not("accelerator", "NVIDIA_H100_80GB", "us-east4", "spot")
    assert why is not None and "the rule does not hold for NVIDIA_H100_80GB" in why


def test_a_zero_sku_prices_nothing():
    # libcloud's copy gives europe-west6's C2 core SKU as 0.0: a gap in the copy, never a free machine.
    why = compute_engine.load().machine("c2-standard-4", "europe-west6", "onDemand")
    assert isinstance(why, str) and "a gap, not a price" in why
    assert ("machine", "c2-standard-4", "europe-west6", "onDemand") not in rows()


def test_zones_that_disagree_keep_the_highest_and_say_so(tmp_path):
    saved = tmp_path / "vms.csv"
    header = skypilot.FILE.read_text().splitlines()[0]
    saved.write_text(
        f"{header}\n"
        ",,,T4,1,{},us-east1,us-east1-c,0.35,0.14\n"
        ",,,T4,1,{},us-east1,us-east1-d,0.36,0.14\n"
        ",,,T4,2,{},us-east1,us-east1-c,0.70,0.28\n"  # the same price per GPU: agrees
    )
    catalog = skypilot.load(saved)
    on_demand = catalog.accelerators[("NVIDIA_TESLA_T4", "us-east1", "onDemand")]
    assert on_demand.usd == 0.36 and "zones differ" in on_demand.zones_differ and "us-east1-d ×1 0.36" in on_demand.zones_differ
    assert catalog.accelerators[("NVIDIA_TESLA_T4", "us-east1", "spot")].zones_differ == ""


def test_machine_shapes_agree_with_the_catalogs_own():
    catalog = skypilot.load()
    checked = 0
    for machine, (vcpus, memory) in catalog.shapes.items():
        shape = machine_shapes.shape(machine)
        if shape is None:
            continue
        assert shape.vcpus == vcpus and shape.memory_gib == pytest.approx(memory, abs=0.01), machine  # the catalog keeps GiB as float32
        checked += 1
    assert checked >= 10  # the cross-check rows of tools/prices/skypilot-vms.csv


def test_every_accepted_machine_and_accelerator_is_priced_or_listed_with_its_reason(capsys):
    assert coverage.main([]) == 0
    out = capsys.readouterr().out
    assert "all " in out and "priced (" in out
    table = prices.load()
    for item in accepted.items():
        assert table.price(item.kind, item.name, item.region, item.tier) or table.why_not(item.kind, item.name, item.region, item.tier), item


@pytest.mark.parametrize("stack", ["dev", "prod"])
def test_the_example_stacks_render_with_no_unknown_price(stack):
    from tests.cli_runner import spot_training_in_process

    done = spot_training_in_process("render", stack, "--summary")
    assert done.returncode == 0, done.stderr
    table_lines = done.stdout[done.stdout.index("PRICES (") :].split("\nprices as of")[0].splitlines()[1:]
    assert len(table_lines) > 2 and not [line for line in table_lines if "unknown" in line]
    assert "no price for" not in done.stdout


def test_libcloud_is_read_by_the_refresh_only():
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())
    assert not any(d.startswith("apache-libcloud") for d in project["project"]["dependencies"])
    assert "apache-libcloud==3.9.1" in project["dependency-groups"]["dev"]  # the locked version the table is made from
    for package in ("components", "cli", "offline", "operations", "stack_config", "policy", "sandbox"):
        for path in (ROOT / package).rglob("*.py"):
            if ".venv" in path.parts:
                continue
            text = path.read_text()
            assert "libcloud" not in text and "tools.prices" not in text, path
