"""`spot-training report STACK [--json] [--since DATE]`: what the stack's jobs cost on
Vertex AI and what Spot saved, every attempt of every job (found by the stack's
labels, as `status` finds them), with totals per team and for the stack. The
figures are operations/report.py's; the prices components/pricing's, with the
stack's own `spot-training:prices` over them (docs/costs.md). Needs Google credentials.

Exit 0 with the table (or JSON), 2 for an unknown stack, a bad --since or price
config, or an error from Google.
"""

from __future__ import annotations

import json
from datetime import datetime, timezone
from typing import TYPE_CHECKING

import typer

from cli import arguments, deployed, output

if TYPE_CHECKING:
    from components.pricing.table import PriceTable


def register(app: typer.Typer) -> None:
    app.command(name="report")(report)


def report(
    stack: str = arguments.STACK,
    as_json: bool = typer.Option(False, "--json", help="print JSON instead of a table"),
    since: str = typer.Option(None, "--since", metavar="DATE", help="only run time from DATE (YYYY-MM-DD, UTC, or an RFC 3339 time)"),
    location: list[str] = arguments.LOCATIONS,
    sandbox: bool = arguments.SANDBOX,
) -> None:
    """What each job's attempts cost on their strategy, what STANDARD would have cost, the saving and the stockouts' cost; totals per team and stack. Needs Google credentials.

    \b
    Examples:
      spot-training report dev --since 2026-12-01
      spot-training report dev --json
    """
    if sandbox:
        deployed.enter_sandbox(stack)
    from components.spot_job.model import submission_labels
    from operations import report as costs
    from stack_config.prices import PricesError, table

    window = None
    if since is not None:
        try:
            window = costs.parse_time(since)
        except ValueError:
            output.error(f"--since {since!r} is not a date: write YYYY-MM-DD (midnight UTC) or an RFC 3339 time such as 2026-12-01T00:00:00Z")
            raise typer.Exit(2) from None
    target = deployed.load(stack)
    deployed.check_locations(stack, location)
    try:
        prices = table(stack)
    except PricesError as problem:
        output.error(str(problem))
        raise typer.Exit(2) from None
    jobs = deployed.rendered(target)
    names = {submission_labels.resource_value(f"{target.scope}/{team}-{job}"): f"{team}/{job}" for team, _, job in (n.partition("/") for n in jobs)}
    where = deployed.parents_of_jobs(target, jobs, location)
    with deployed.google_errors():
        found = deployed.with_attempts(deployed.labelled(where, submission_labels.STACK_LABEL, submission_labels.stack_value(target.scope)), names)
    result = costs.report(((f.name, f.attempt, f.job) for f in found), prices, datetime.now(timezone.utc), window)
    if as_json:
        print(json.dumps(result.as_json(), indent=2, sort_keys=True))
        return
    if not result.attempts:
        print(f"No job of stack {stack} ({target.project}) in: {', '.join(where)}" + (f" since {since}" if since else ""))
        return
    output.table(
        ("JOB", "ATTEMPT", "STATE", "STRATEGY", "REGION", "MACHINES", "ACCELERATORS", "HOURS", "COST", "STANDARD", "SAVING", "STOCKOUT"),
        [
            (
                a.name, str(a.attempt), a.state.removeprefix("JOB_STATE_"), a.strategy, a.region, a.machines, a.accelerators,
                "unknown" if a.hours is None else f"{a.hours:.4f}", _usd(a.cost, a.approximate), _usd(a.standard_cost, a.approximate),
                _usd(a.saving, a.approximate),
                "yes" if a.stockout else "-",
            )
            for a in result.attempts
        ],
        title=f"What stack {stack}'s jobs cost (USD)" + (f" since {since}" if since else ""),
    )
    print()
    output.table(
        ("TOTAL", "ATTEMPTS", "COST", "STANDARD", "SAVING", "STOCKOUT_COST", "UNKNOWN"),
        [
            (
                label, str(t.attempts), _usd(t.cost, t.approximate), _usd(t.standard_cost, t.approximate), _usd(t.saving, t.approximate),
                _usd(t.stockout_cost, t.approximate), str(len(t.unknown)),
            )
            for label, t in [*((f"team {team}", t) for team, t in sorted(result.teams.items())), (f"stack {stack}", result.stack)]
        ],
    )
    for a in result.attempts:
        if a.why_unknown:
            output.note(f"{a.name} attempt {a.attempt}: unknown, not counted in the totals: {'; '.join(a.why_unknown)}")
    _said_of_prices(prices, any(a.approximate for a in result.attempts))


def _said_of_prices(prices: PriceTable, marked: bool) -> None:
    """The mark's legend where a figure carries it, and the table's date (a warning when stale)."""
    from datetime import date

    from components.pricing import money
    from offline.render import dated

    for line in ([money.LEGEND] if marked else []) + dated(prices, date.today()):
        output.line(line)


def _usd(value: float | None, approximate: bool) -> str:
    from components.pricing import money

    return "unknown" if value is None else money.usd(value, approximate)
