"""The pack's per-stack settings: `spot-training:policy` in the stack's own config file.

The stack is the one in the resource's URN (`urn:pulumi:<stack>::<project>::...`);
its file is `<stacks dir>/Pulumi.<stack>.yaml`, the stacks dir being
$SPOT_TRAINING_STACKS_DIR or `../stacks` beside this pack (the project's
`stackConfigDir`). The value:

    spot-training:policy:
      allowedStrategies: [SPOT, FLEX_START]   # the default; STANDARD is on-demand
      requireCmek: false                      # the default
      allowedLocations: [europe-west4, us-east1]  # absent (the default): every region
      teamHourlyBudget: 25.0                  # USD per hour per team; absent (the default): no budget
      budgetEnforcement: advisory             # the default; mandatory blocks a preview over budget

allowedLocations is data residency: the regions a job may run in (its own
location and every fallback rung's), and its team's staging bucket and image
repository may be in, compared case-insensitively (a bucket's is upper-case).
A missing file or key means the defaults. A malformed value is reported, naming
`spot-training:policy.<key>`, by each policy that reads the key, and that key's
default applies. Each stack's file is read once per run of the pack.
"""

from __future__ import annotations

import dataclasses
import functools
import os
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

KEY = "spot-training:policy"
PRICES_KEY = "spot-training:prices"
TEAMS_KEY = "spot-training:teams"
KEYS = ("allowedStrategies", "requireCmek", "allowedLocations", "teamHourlyBudget", "budgetEnforcement")
BUDGET_LEVELS = ("advisory", "mandatory")
STRATEGIES = ("SPOT", "FLEX_START", "STANDARD")
DEFAULT_ALLOWED_STRATEGIES = ("SPOT", "FLEX_START")
STACKS_DIR_ENV = "SPOT_TRAINING_STACKS_DIR"
PACK_DIR = Path(__file__).resolve().parent
PROJECT_DIR = PACK_DIR.parent

_STACK_NAME = re.compile(r"^[A-Za-z0-9_.-]+$")
# A region id as Google writes them (stack_config/place.py REGION_ID), in either case.
_REGION_ID = re.compile(r"^[a-z]+(-[a-z]+)+[0-9]+$", re.I)


@dataclass(frozen=True)
class StackSettings:
    stack: str
    source: str  # the stack file, as messages show it
    allowed_strategies: tuple[str, ...] = DEFAULT_ALLOWED_STRATEGIES
    require_cmek: bool = False
    allowed_locations: tuple[str, ...] | None = None  # lower-case region ids; None: every region
    errors: tuple[tuple[str, str], ...] = ()  # (key, message); key "" concerns every key
    team_hourly_budget: float | None = None  # USD per hour, each team's jobs together; None: no budget
    budget_enforcement: str = "advisory"
    prices: Any = None  # the stack's spot-training:prices as written (budget.py reads it)
    jobs: frozenset[tuple[str, str]] = frozenset()  # (team, job key) of each job entry of spot-training:teams

    def config_path(self, team: str, resource_name: str) -> str | None:
        """`spot-training:teams.<team>.jobs.<job>` when the resource is a job entry of this stack's
        file (the program names it `<team>-<job>`); None for one built otherwise (in code)."""
        job = resource_name.removeprefix(f"{team}-") if team and resource_name.startswith(f"{team}-") else None
        return f"{TEAMS_KEY}.{team}.jobs.{job}" if job is not None and (team, job) in self.jobs else None

    def errors_for(self, key: str) -> list[str]:
        """What is wrong with `key` (or with the whole value), each message naming the config path."""
        return [message for k, message in self.errors if k in ("", key)]

    def location_allowed(self, location: str) -> bool:
        return self.allowed_locations is None or location.lower() in self.allowed_locations


def stack_of(urn: str) -> str:
    """`dev` of `urn:pulumi:dev::spot-training::<type>::<name>`."""
    head = urn.split("::", 1)[0]
    return head.removeprefix("urn:pulumi:") if head.startswith("urn:pulumi:") else ""


def stacks_dir() -> Path:
    configured = os.environ.get(STACKS_DIR_ENV)
    return PACK_DIR / configured if configured else PROJECT_DIR / "stacks"  # an absolute value replaces PACK_DIR


def for_urn(urn: str) -> StackSettings:
    return load(stack_of(urn) or os.environ.get("PULUMI_STACK", ""), str(stacks_dir()))


@functools.cache
def load(stack: str, directory: str) -> StackSettings:
    path = Path(directory) / f"Pulumi.{stack}.yaml"
    source = _shown(path)
    if not _STACK_NAME.match(stack) or not path.is_file():
        return StackSettings(stack, source)
    try:
        document = yaml.safe_load(path.read_text())
    except (OSError, yaml.YAMLError) as error:
        return StackSettings(stack, source, errors=(("", f"{KEY}: {source} cannot be read: {error}"),))
    config = document.get("config") if isinstance(document, dict) else None
    raw = config.get(KEY) if isinstance(config, dict) else None
    prices = config.get(PRICES_KEY) if isinstance(config, dict) else None
    jobs = _jobs(config.get(TEAMS_KEY) if isinstance(config, dict) else None)
    if raw is None:
        return StackSettings(stack, source, prices=prices, jobs=jobs)
    return dataclasses.replace(_parse(stack, source, raw), prices=prices, jobs=jobs)


def _jobs(teams: Any) -> frozenset[tuple[str, str]]:
    """(team, job key) of each job entry the file writes (a malformed part is the program's to report)."""
    found = set()
    for team, entry in (teams if isinstance(teams, dict) else {}).items():
        jobs = entry.get("jobs") if isinstance(entry, dict) else None
        found |= {(str(team), str(job)) for job in (jobs if isinstance(jobs, dict) else {})}
    return frozenset(found)


def _parse(stack: str, source: str, raw: Any) -> StackSettings:
    if not isinstance(raw, dict):
        message = f"{KEY} in {source}: must be a map with any of {', '.join(KEYS)}; is {raw!r}"
        return StackSettings(stack, source, errors=(("", message),))
    errors: list[tuple[str, str]] = []
    for key in raw:
        if key not in KEYS:
            errors.append(("", f"{KEY}.{key} in {source}: unknown key; the keys are {', '.join(KEYS)}"))
    allowed = raw.get("allowedStrategies", list(DEFAULT_ALLOWED_STRATEGIES))
    if not (isinstance(allowed, list) and allowed and all(s in STRATEGIES for s in allowed)):
        errors.append((
            "allowedStrategies",
            f"{KEY}.allowedStrategies in {source}: must be a non-empty list of {', '.join(STRATEGIES)}; is {allowed!r}",
        ))
        allowed = list(DEFAULT_ALLOWED_STRATEGIES)
    require_cmek = raw.get("requireCmek", False)
    if not isinstance(require_cmek, bool):
        errors.append(("requireCmek", f"{KEY}.requireCmek in {source}: must be true or false; is {require_cmek!r}"))
        require_cmek = False
    locations = raw.get("allowedLocations")
    if locations is not None:
        if not (isinstance(locations, list) and locations):
            errors.append((
                "allowedLocations",
                f"{KEY}.allowedLocations in {source}: must be a non-empty list of region ids such as "
                f"[us-central1]; is {locations!r}",
            ))
            locations = None
        else:
            bad = [i for i, region in enumerate(locations) if not (isinstance(region, str) and _REGION_ID.match(region))]
            errors += [
                ("allowedLocations", f"{KEY}.allowedLocations[{i}] in {source}: {locations[i]!r} is not a region id such as us-central1")
                for i in bad
            ]
            locations = None if bad else tuple(dict.fromkeys(region.lower() for region in locations))
    budget = raw.get("teamHourlyBudget")
    if budget is not None and (isinstance(budget, bool) or not isinstance(budget, (int, float)) or budget < 0):
        errors.append(("teamHourlyBudget", f"{KEY}.teamHourlyBudget in {source}: must be USD per hour, a number >= 0; is {budget!r}"))
        budget = None
    enforcement = raw.get("budgetEnforcement", "advisory")
    if enforcement not in BUDGET_LEVELS:
        errors.append((
            "teamHourlyBudget",
            f"{KEY}.budgetEnforcement in {source}: must be {' or '.join(BUDGET_LEVELS)}; is {enforcement!r}",
        ))
        enforcement = "advisory"
    return StackSettings(
        stack, source, tuple(allowed), require_cmek, locations, tuple(errors),
        None if budget is None else float(budget), enforcement,
    )


def _shown(path: Path) -> str:
    try:
        return str(path.resolve().relative_to(PROJECT_DIR))
    except ValueError:
        return str(path)
