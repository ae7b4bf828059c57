"""The budget policies of the pack: a team's jobs' estimated price per hour against the
stack's `spot-training:policy.teamHourlyBudget`, advisory unless the stack makes it
mandatory. Prices are stand-ins set in each test stack (test data, not Google's):

    n1-standard-8 us-central1 spot 0.10;  NVIDIA_TESLA_T4 us-central1 spot 0.12

except the stack "shipped", which sets none: the shipped table's rows (components/pricing/prices.csv),
    n1-standard-8 us-central1 spot 0.092 (1.15 × 0.08);  NVIDIA_TESLA_T4 us-central1 spot 0.161 (1.15 × 0.14)
"""

from __future__ import annotations

import copy
import json

import pytest

from tests.policy_pack import STACKS_DIR_ENV, PolicyPackHost, urn
from tests.test_policy import COMPLIANT, DEFAULT_LEVELS, JOB

PRICES = {"machines": {"n1-standard-8": {"us-central1": {"spot": 0.10}}}, "accelerators": {"NVIDIA_TESLA_T4": {"us-central1": {"spot": 0.12}}}}


@pytest.fixture(scope="module")
def pack(tmp_path_factory):
    stacks = tmp_path_factory.mktemp("stacks")
    files = {
        "advisory": {"spot-training:policy": {"teamHourlyBudget": 0.5}, "spot-training:prices": PRICES},
        "mandatory": {"spot-training:policy": {"teamHourlyBudget": 0.5, "budgetEnforcement": "mandatory"}, "spot-training:prices": PRICES},
        "nobudget": {"spot-training:prices": PRICES},
        "noprices": {"spot-training:policy": {"teamHourlyBudget": 0.5}},
        "shipped": {"spot-training:policy": {"teamHourlyBudget": 0.5}},
        "broken": {"spot-training:policy": {"teamHourlyBudget": "lots", "budgetEnforcement": "strict"}},
    }
    for name, config in files.items():
        (stacks / f"Pulumi.{name}.yaml").write_text(json.dumps({"config": config}))
    with PolicyPackHost({STACKS_DIR_ENV: str(stacks)}) as host:
        yield host


def jobs(stack: str, count: int, team: str = "vision", machine: str | None = None) -> list[tuple[str, str, str, dict]]:
    found = []
    for i in range(count):
        props = copy.deepcopy(COMPLIANT[JOB])
        props["labels"] = {**props.get("labels", {}), "team": team}
        if machine:  # one no table prices, and no accelerator
            props["jobSpec"]["workerPoolSpecs"][0]["machineSpec"] = {"machineType": machine}
        name = f"{team}-job{i}"
        found.append((JOB, name, urn(JOB, name, stack), props))
    return found


def budget(diagnostics):
    return [(d[0], d[2]) for d in diagnostics if d[0].startswith("team-hourly-budget")]


def test_the_budget_policies_are_advisory_and_mandatory_by_default(pack):
    levels = pack.levels()
    assert levels["team-hourly-budget"] == "advisory" and levels["team-hourly-budget-mandatory"] == "mandatory"
    assert levels == DEFAULT_LEVELS


def test_a_team_within_its_budget_passes(pack):
    # 2 jobs x (0.10 + 0.12) = 0.44 <= 0.5
    assert budget(pack.analyze_stack(jobs("advisory", 2))) == []


def test_a_team_over_its_budget_is_advisory_by_default(pack):
    # 3 jobs x 0.22 = 0.66 > 0.5
    diagnostics = [d for d in pack.analyze_stack(jobs("advisory", 3)) if d[0].startswith("team-hourly-budget")]
    assert [(d[0], d[2]) for d in diagnostics] == [("team-hourly-budget", "advisory")]
    assert "team vision's jobs cost an estimated $0.6600/h together, over its budget of $0.5000/h" in diagnostics[0][1]
    assert "spot-training:policy.teamHourlyBudget in " in diagnostics[0][1]


def test_a_stack_makes_the_budget_mandatory(pack):
    assert budget(pack.analyze_stack(jobs("mandatory", 3))) == [("team-hourly-budget-mandatory", "mandatory")]
    assert budget(pack.analyze_stack(jobs("mandatory", 2))) == []


def test_each_team_has_its_own_budget(pack):
    # vision 2 x 0.22 = 0.44, tabular 2 x 0.22 = 0.44: each within 0.5, though 0.88 together
    assert budget(pack.analyze_stack(jobs("advisory", 2) + jobs("advisory", 2, team="tabular"))) == []


def test_no_budget_no_check(pack):
    assert budget(pack.analyze_stack(jobs("nobudget", 10))) == []


def test_an_unknown_price_is_reported_not_counted_as_free(pack):
    diagnostics = [d for d in pack.analyze_stack(jobs("noprices", 1, machine="c3-standard-8")) if d[0].startswith("team-hourly-budget")]
    assert [(d[0], d[2]) for d in diagnostics] == [("team-hourly-budget", "advisory")]
    assert "cannot be checked" in diagnostics[0][1] and "c3-standard-8 in us-central1 (spot)" in diagnostics[0][1]


def test_the_shipped_tables_rows_hold_a_team_to_its_budget(pack):
    # 1 job × (0.092 + 0.161) = 0.253 <= 0.5: within
    assert budget(pack.analyze_stack(jobs("shipped", 1))) == []
    # 2 jobs × 0.253 = 0.506 > 0.5: over, the estimate marked as resting on derived Spot prices
    diagnostics = [d for d in pack.analyze_stack(jobs("shipped", 2)) if d[0].startswith("team-hourly-budget")]
    assert [(d[0], d[2]) for d in diagnostics] == [("team-hourly-budget", "advisory")]
    assert "team vision's jobs cost an estimated ~$0.506/h together, over its budget of $0.5000/h" in diagnostics[0][1]


def test_malformed_budget_settings_name_the_key(pack):
    messages = " | ".join(d[1] for d in pack.analyze_stack(jobs("broken", 1)) if d[0] == "team-hourly-budget")
    assert "spot-training:policy.teamHourlyBudget in " in messages and "must be USD per hour" in messages
    assert "spot-training:policy.budgetEnforcement in " in messages and "must be advisory or mandatory" in messages
