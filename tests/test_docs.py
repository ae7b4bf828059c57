"""docs/ stays true: every rule module has its row, with the pages it cites."""

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
RULES = ROOT / "components" / "spot_job" / "rules"
HELPERS = {"__init__.py", "known.py", "tpu_machines.py"}  # not rules: the list, the reader, the table


def test_every_rule_module_is_in_docs_rules_with_every_page_it_cites():
    table = (ROOT / "docs" / "rules.md").read_text()
    for module in sorted(RULES.glob("*.py")):
        if module.name in HELPERS:
            continue
        assert f"`rules/{module.name}`" in table, f"docs/rules.md has no row for rules/{module.name}"
        row = next(line for line in table.splitlines() if f"`rules/{module.name}`" in line)
        for url in set(re.findall(r"https://[^\s)\"'`,]+", module.read_text())):
            assert url in row, f"rules/{module.name} cites {url}, its row in docs/rules.md does not"


def test_docs_rules_names_only_modules_that_exist():
    table = (ROOT / "docs" / "rules.md").read_text()
    for name in re.findall(r"`rules/([a-z_]+\.py)`", table):
        assert (RULES / name).is_file(), f"docs/rules.md names rules/{name}, which does not exist"
