"""What a stack's jobs cost on Vertex AI and what Spot saved: every attempt of every
job, priced from Vertex's own times (startTime to endTime; a running job up to now),
on the strategy it ran on and on STANDARD (on-demand) for the same run time.

Pure over the jobs as Vertex returns them (REST-shaped dicts) and a price table:
cli/report.py lists the jobs (by the stack's labels, as `status` does) and prints.
Vertex bills a Spot job by its duration and machine type and nothing while it is
queued or preempted; the run time here is the attempt's startTime to endTime, so
the time a job waited in the queue is not counted. An attempt with no startTime
ran nothing. An attempt whose price or times are not known is listed as unknown
and counted apart in the totals, never as zero.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import datetime, timezone
from typing import Any

from components.pricing.hourly import Hourly, hourly, pools
from components.pricing.table import PriceTable
from components.spot_job.decision import resubmission_policy
from components.spot_job.model import states
from components.spot_job.model.job_name import JobName

# Started and not yet ended: billed until now (a CANCELLING job bills until it has stopped).
RUNNING = frozenset({states.RUNNING, states.CANCELLING, states.UPDATING})
STANDARD = "STANDARD"


@dataclass(frozen=True)
class Attempt:
    name: str  # team/job
    attempt: int
    job: str  # the CustomJob's resource name
    state: str
    strategy: str
    region: str
    machines: str  # "1x n1-standard-8 + 2x n1-standard-4"
    accelerators: str
    hours: float | None  # None: times missing
    cost: float | None  # on its strategy; None: unknown
    standard_cost: float | None  # on STANDARD for the same hours
    stockout: bool
    why_unknown: tuple[str, ...] = ()
    approximate: bool = False  # a figure rests on a derived price or a Spot snapshot (components/pricing/table.py)

    @property
    def team(self) -> str:
        return self.name.split("/", 1)[0]

    @property
    def saving(self) -> float | None:
        return None if self.cost is None or self.standard_cost is None else round(self.standard_cost - self.cost, 6)

    def as_json(self) -> dict[str, Any]:
        return {
            "job": self.name, "attempt": self.attempt, "name": self.job, "state": self.state, "strategy": self.strategy,
            "region": self.region, "machines": self.machines, "accelerators": self.accelerators, "hours": self.hours,
            "costUsd": self.cost, "standardCostUsd": self.standard_cost, "savingUsd": self.saving,
            "stockout": self.stockout, "unknown": list(self.why_unknown), "approximate": self.approximate,
        }


@dataclass
class Total:
    cost: float = 0.0
    standard_cost: float = 0.0
    saving: float = 0.0
    stockout_cost: float = 0.0
    attempts: int = 0
    unknown: list[str] = field(default_factory=list)  # "team/job attempt N" whose figures are not in the sums
    approximate: bool = False  # some figure in the sums is approximate

    def add(self, a: Attempt) -> None:
        self.attempts += 1
        if a.cost is None or a.standard_cost is None:
            self.unknown.append(f"{a.name} attempt {a.attempt}")
            return
        self.approximate = self.approximate or a.approximate
        self.cost += a.cost
        self.standard_cost += a.standard_cost
        self.saving += a.standard_cost - a.cost
        if a.stockout:
            self.stockout_cost += a.cost

    def as_json(self) -> dict[str, Any]:
        return {
            "costUsd": round(self.cost, 6), "standardCostUsd": round(self.standard_cost, 6), "savingUsd": round(self.saving, 6),
            "stockoutCostUsd": round(self.stockout_cost, 6), "attempts": self.attempts, "unknown": self.unknown,
            "approximate": self.approximate,
        }


@dataclass
class Report:
    attempts: list[Attempt]
    teams: dict[str, Total]
    stack: Total
    since: datetime | None
    now: datetime

    def as_json(self) -> dict[str, Any]:
        return {
            "currency": "USD", "now": _iso(self.now), "since": _iso(self.since) if self.since else None,
            "attempts": [a.as_json() for a in self.attempts],
            "teams": {team: t.as_json() for team, t in sorted(self.teams.items())}, "stack": self.stack.as_json(),
        }


def report(found: Iterable[tuple[str, int, dict[str, Any]]], table: PriceTable, now: datetime, since: datetime | None = None) -> Report:
    """`found`: (team/job, attempt, the CustomJob) for every submission; each is priced, and
    those that ran nothing after `since` are left out (their run time is counted from `since`)."""
    attempts = [a for name, n, job in found if (a := attempt(name, n, job, table, now, since)) is not None]
    teams: dict[str, Total] = {}
    stack = Total()
    for a in attempts:
        teams.setdefault(a.team, Total()).add(a)
        stack.add(a)
    return Report(attempts, teams, stack, since, now)


def attempt(name: str, n: int, job: dict[str, Any], table: PriceTable, now: datetime, since: datetime | None) -> Attempt | None:
    spec = job.get("jobSpec") or {}
    strategy = (spec.get("scheduling") or {}).get("strategy") or "STRATEGY_UNSPECIFIED"
    region = JobName.parse(job["name"]).location
    state = job.get("state") or "JOB_STATE_UNSPECIFIED"
    hours, why = run_hours(job, now, since)
    if hours is None and why == ():
        return None  # ran nothing in the window
    unknown = list(why)
    on_strategy, on_standard = hourly(spec, region, strategy, table), hourly(spec, region, STANDARD, table)
    unknown += [f"no price: {m}" for m in (*on_strategy.missing, *on_standard.missing)]
    return Attempt(
        name, n, job["name"], state, strategy, region, _machines(spec), _accelerators(spec), hours,
        _cost(on_strategy, hours), _cost(on_standard, hours),
        state == states.FAILED and resubmission_policy.is_stockout(job.get("error")), tuple(dict.fromkeys(unknown)),
        on_strategy.approximate or on_standard.approximate,
    )


def run_hours(job: dict[str, Any], now: datetime, since: datetime | None) -> tuple[float | None, tuple[str, ...]]:
    """The attempt's billed hours, from startTime to endTime (a running one: to now), from
    `since` if it started before; (None, reasons) when they cannot be known, (None, ()) when
    it ran nothing in the window."""
    state = job.get("state") or ""
    start, end = _time(job.get("startTime")), _time(job.get("endTime"))
    if start is None:
        if state in RUNNING or state == states.SUCCEEDED:  # it ran: its run time is not known
            return None, ("no startTime from Vertex",)
        return 0.0, ()  # queued, or ended before it ran: nothing billed
    if end is None:
        if states.has_ended(state):
            return None, ("no endTime from Vertex",)
        end = now
    if since is not None:
        if end < since:
            return None, ()
        start = max(start, since)
    return round(max((end - start).total_seconds(), 0.0) / 3600, 6), ()


def parse_time(text: str) -> datetime:
    """An RFC 3339 time or a date (YYYY-MM-DD, midnight UTC); ValueError otherwise."""
    value = datetime.fromisoformat(text.replace("Z", "+00:00"))
    return value if value.tzinfo else value.replace(tzinfo=timezone.utc)


def _time(text: Any) -> datetime | None:
    if not text:
        return None
    try:
        return parse_time(str(text))
    except ValueError:
        return None


def _iso(value: datetime) -> str:
    return value.astimezone(timezone.utc).isoformat().replace("+00:00", "Z")


def _cost(price: Hourly, hours: float | None) -> float | None:
    return None if price.usd is None or hours is None else round(price.usd * hours, 6)


def _machines(spec: dict[str, Any]) -> str:
    return " + ".join(f"{r}x {m}" for r, m, _, _ in pools(spec)) or "-"


def _accelerators(spec: dict[str, Any]) -> str:
    return " + ".join(f"{r * c}x {a}" for r, _, a, c in pools(spec) if a and c) or "-"
