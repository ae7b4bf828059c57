"""Budget: a team's estimated price per hour, all its jobs running at once on their own
strategy and region, against `spot-training:policy.teamHourlyBudget` (USD per hour) in
the stack's own file. No budget there, no check.

Advisory unless the stack sets `budgetEnforcement: mandatory`: two policies, one per
level, and the stack's setting picks the one that reports (a pack's level is fixed
when it starts, a stack's file is read per run). The prices are the project's own
table and code (components/pricing/, pure: JSON and arithmetic), with the stack's
`spot-training:prices` over it, so the pack and `render` can never disagree. A job
with no known price is reported rather than counted as free.
"""

from __future__ import annotations

import sys
from collections import defaultdict

import stack_settings
from jobs import DEFAULT_STRATEGY, JOB
from pulumi_policy import EnforcementLevel, StackValidationPolicy
from support import mapping

if str(stack_settings.PROJECT_DIR) not in sys.path:
    sys.path.append(str(stack_settings.PROJECT_DIR))  # components/pricing, which imports nothing of Pulumi's

from components.pricing import hourly as hourly_prices  # noqa: E402
from components.pricing import money  # noqa: E402
from components.pricing import table as price_table  # noqa: E402


def _plain(value):
    """The props as plain dicts and lists, as components/pricing reads a job spec."""
    if isinstance(value, dict) or hasattr(value, "items"):
        return {k: _plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    return value


def _budget(level: str):
    def validate(args, report_violation) -> None:
        jobs = [r for r in args.resources if r.resource_type == JOB]
        if not jobs:
            return
        settings = stack_settings.for_urn(jobs[0].urn)
        if level == "advisory":  # the malformed-value messages once, whichever level applies
            for message in settings.errors_for("teamHourlyBudget"):
                report_violation(message)
        if settings.team_hourly_budget is None or settings.budget_enforcement != level:
            return
        try:
            table = price_table.load().with_overrides(mapping(settings.prices))
        except (AttributeError, TypeError, ValueError):
            report_violation(
                f"{stack_settings.PRICES_KEY} in {settings.source} is not valid: `spot-training validate "
                f"{settings.stack}` names what is wrong; the budget cannot be checked until it is"
            )
            return
        totals: dict[str, float] = defaultdict(float)
        approximate: dict[str, bool] = defaultdict(bool)  # some job's figure is derived or a Spot snapshot
        unknown: dict[str, list[str]] = defaultdict(list)
        for job in jobs:
            props = _plain(job.props)
            team = mapping(props.get("labels")).get("team") or "?"
            spec = mapping(props.get("jobSpec"))
            strategy = mapping(spec.get("scheduling")).get("strategy") or DEFAULT_STRATEGY
            price = hourly_prices.hourly(spec, str(props.get("location") or ""), strategy, table)
            if price.usd is None:
                unknown[team].append(f"{job.name} ({', '.join(price.missing)})")
            else:
                totals[team] += price.usd
                approximate[team] = approximate[team] or price.approximate
        limit = settings.team_hourly_budget
        where = f"{stack_settings.KEY}.teamHourlyBudget in {settings.source}"
        for team in sorted(set(totals) | set(unknown)):
            if totals[team] > limit:
                report_violation(
                    f"team {team}'s jobs cost an estimated {money.per_hour(totals[team], approximate[team])} together, over its budget of "
                    f"${limit:.4f}/h ({where}): run fewer or smaller jobs, or raise the budget"
                    + (f"; not counted, no price known: {'; '.join(unknown[team])}" if unknown[team] else "")
                )
            elif unknown[team]:
                report_violation(
                    f"team {team}'s price per hour cannot be checked against its budget of ${limit:.4f}/h ({where}): "
                    f"no price known for {'; '.join(unknown[team])}; set it in {stack_settings.PRICES_KEY} (docs/costs.md)"
                )

    return validate


POLICIES = [
    StackValidationPolicy(
        name="team-hourly-budget",
        description="A team's jobs together stay within the stack's teamHourlyBudget (USD per hour); advisory",
        enforcement_level=EnforcementLevel.ADVISORY,
        validate=_budget("advisory"),
    ),
    StackValidationPolicy(
        name="team-hourly-budget-mandatory",
        description="The same budget, for a stack that sets budgetEnforcement: mandatory",
        enforcement_level=EnforcementLevel.MANDATORY,
        validate=_budget("mandatory"),
    ),
]
