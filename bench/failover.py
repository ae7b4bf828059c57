"""Failover: what moving a preempted job costs in JobService calls, and what the
fallback ladders buy over a month of Spot stockouts (issue 14 item 7).

Part 1, API calls (counts, not timings). Through the running dynamic provider
host (`python -m pulumi.dynamic`, the program's `__provider` blob) against the
emulator, which serves every region on one address, the emulator's counters
zeroed before each step. A job the program registers (vision/resnet, dev,
us-central1) is created, its attempt preempted (`emulator.preempt`: FAILED with
STOCKOUT), then one scheduled `up` resubmits it as the engine drives it: Check,
Read (refresh), Diff (announces the resubmission), Update (submits); the create
of its first attempt is counted too. Four policies: no ladder (the next attempt
stays in us-central1, on SPOT; the baseline), a location rung (moves to
us-east1, still SPOT), a strategy-only rung (stays, on STANDARD), and a
location rung not reached yet (afterStockouts 2: stays, on SPOT). Then a destroy (Delete) of a job whose 3 attempts ran
in 2 regions (us-central1 SPOT, us-east1 SPOT, us-east1 STANDARD: the ladder of
tests/test_region_failover.py), against one whose 3 attempts all ran at home
and one with a single attempt, the current attempt running and finished.

Part 2, a simulated month (a model, not measurements, and not Google's data).
Spot capacity per region is a two-state Markov chain per hour (capacity /
stockout) with region-specific rates; a stockout period starts at a random
minute of its first hour. A SPOT attempt running when a stockout starts is
preempted; one submitted into a stockout fails at once (as the emulator's
`spot_stockout` does: "each live SPOT job there ends FAILED with STOCKOUT at its
next GetCustomJob"); a variant instead leaves it queued, unbilled, until
capacity returns. STANDARD is never preempted. A job needs H hours of compute;
work is kept up to its last checkpoint (AIP_CHECKPOINT_DIR survives
resubmission); each attempt first spends a start-up (billed, no progress). A
failed attempt is resubmitted only by the next scheduled `up` (every 30
minutes, .github/workflows/resubmit.yml), and where and on what strategy is
decided by the project's own `resubmission.next_submission` and
`placement_after` on the inputs the program renders for each policy (checked by
the provider's `check`), with the state the provider would keep (attempt,
error, history from `JobState.ended_attempt`). Every policy sees the same
months, the same jobs and the same stockouts (common random numbers); baseline:
STANDARD from the start. Same seed, same tables.

Run: .venv/bin/python -m bench.failover [--quick] [--seed N]
"""

from __future__ import annotations

import argparse
import math
import random
import statistics
from dataclasses import dataclass, field
from typing import Any

from pulumi.runtime.proto import provider_pb2

from bench.emulated import RPCS, URN, Host, calls_of, checked, scoped, serialize, table
from components.spot_job.decision import resubmission_policy
from components.spot_job.model import states as job_states
from components.spot_job.model.job_inputs import JobInputs
from components.spot_job.model.job_state import JobState
from components.spot_job.provider import SpotTrainingJobProvider
from sandbox.jobservice.lifecycle import STOCKOUT_ERROR
from tests.emulator import JobServiceEmulator
from tests.fixtures import docs_request_body
from tests.program import render
from tests.provider_host import deserialize

HOME, AWAY = "us-central1", "us-east1"  # the team's bucket is in HOME (gcp:region)

# --- policies (each a job's `resubmission` in the stack config) ---------------------------------
MAX = 10  # the most the rules allow (components/spot_job/rules/resubmission.py, MAX_RESUBMISSIONS)
POLICIES: dict[str, dict | None] = {
    "STANDARD from the start (baseline)": None,
    "same-region SPOT retries": {"maxResubmissions": MAX},
    "strategy ladder": {"maxResubmissions": MAX, "fallback": [{"afterStockouts": 3, "strategy": "STANDARD"}]},
    "region ladder": {
        "maxResubmissions": MAX,
        "fallback": [{"afterStockouts": 1, "location": AWAY}, {"afterStockouts": 3, "strategy": "STANDARD"}],
    },
    "region ladder, STANDARD home": {
        "maxResubmissions": MAX,
        "fallback": [{"afterStockouts": 1, "location": AWAY}, {"afterStockouts": 3, "strategy": "STANDARD", "location": HOME}],
    },
}

# --- prices (USD) -------------------------------------------------------------------------------
MACHINE = "n1-standard-4"  # the docs' request body, which the program renders
# Vertex AI custom training, n1-standard-4, on demand, per hour: https://cloud.google.com/vertex-ai/pricing
# ("$0.21849885 / 1 hour", as transcribed verbatim from that page on 2026-10-07 in
# github.com/api-evangelist/google-vertex-ai plans/google-vertex-ai-plans-pricing.yml).
ON_DEMAND_PER_HOUR = 0.21849885
# Spot: "available at a discount of up to 91% off of the on-demand price of standard VMs"
# (https://docs.cloud.google.com/compute/docs/instances/create-use-spot), "60-91%" in the Japanese edition
# (https://cloud.google.com/compute/docs/instances/create-manage-spot?hl=ja). Vertex's own Spot row for training
# was not retrieved: both ends of the range are shown.
SPOT_DISCOUNTS = (0.60, 0.91)
# Cloud Storage, data moving between regions of the same continent, per GiB: ASSUMED $0.02. The stored copies of
# https://cloud.google.com/storage/pricing end before its network table; Google's 2015 notice of the charge
# said "$0.01 per GB of data transferred between buckets located in different regions of the same continent"
# (copy: https://pastebin.com/Zya6Wivp). Egress GiB are printed, so the figure can be repriced.
EGRESS_PER_GIB = 0.02
CHECKPOINT_GIB = 10.0  # read once by each attempt that starts away from the bucket with work to resume

# --- the model ----------------------------------------------------------------------------------
MONTH_H = 30 * 24
START_WITHIN_H = 20 * 24  # jobs are submitted in the month's first 20 days (at a scheduled `up`)
TICK_MIN = 30  # a scheduled `up` every 30 minutes
STARTUP_MIN = 10  # provisioning, image pull, checkpoint restore: billed, no progress
CHECKPOINT_EVERY_MIN = 30  # of compute
# Per hour: P(capacity -> stockout), P(stockout -> capacity). A MODEL, not Google's data.
RATES = {HOME: (0.03, 0.20), AWAY: (0.015, 0.25)}
HOURS = (8, 24, 72)


@dataclass
class Capacity:
    """One region's month: stockout periods as [start, end) minutes."""

    periods: list[tuple[int, int]]

    def out_at(self, minute: int) -> tuple[int, int] | None:
        for start, end in self.periods:
            if start <= minute < end:
                return start, end
            if start > minute:
                return None
        return None

    def next_onset(self, minute: int) -> int:
        for start, _ in self.periods:
            if start > minute:
                return start
        return 10**9


def month(rng: random.Random) -> dict[str, Capacity]:
    regions = {}
    for region, (p_out, p_back) in RATES.items():
        out = rng.random() < p_out / (p_out + p_back)  # start from the chain's stationary share
        periods, start = [], 0 if out else None
        for hour in range(1, MONTH_H + 24 * 5):  # a few days past the month, so late jobs see weather too
            if out and rng.random() < p_back:
                periods.append((start, hour * 60))
                out = False
            elif not out and rng.random() < p_out:
                out, start = True, hour * 60 + rng.randrange(60)
        if out:
            periods.append((start, 10**9))
        regions[region] = Capacity(periods)
    return regions


@dataclass
class Outcome:
    finished: bool
    minutes: float  # to completion (math.inf if never)
    spot_min: float = 0.0
    standard_min: float = 0.0
    egress_gib: float = 0.0
    attempts: int = 0
    last_strategy: str = ""
    gave_up: bool = False
    regions: set = field(default_factory=set)

    def cost(self, discount: float) -> float:
        return (self.spot_min * (1 - discount) + self.standard_min) / 60 * ON_DEMAND_PER_HOUR + self.egress_gib * EGRESS_PER_GIB


def simulate(news: dict[str, Any], weather: dict[str, Capacity], start: int, work_min: int, queue: bool) -> Outcome:
    """One job under one policy: attempts placed by the project's resubmission module."""
    horizon = MONTH_H * 60
    job = JobInputs.of(news)
    place = resubmission_policy.placement_after(0, job)
    strategy, location = place.strategy, place.location
    state: dict[str, Any] = {"attempt": 1, "history": []}
    remaining, done, t = work_min, 0, start
    out = Outcome(False, math.inf)
    while True:
        out.attempts += 1
        out.last_strategy = strategy
        out.regions.add(location)
        begin, ended, failed_at = t, None, None
        stocked = weather[location].out_at(t) if strategy == "SPOT" else None
        if stocked and not queue:
            failed_at = t  # never got a VM: nothing billed, nothing done
        else:
            if stocked:
                begin = stocked[1]  # queued, unbilled, until capacity returns
            if location != HOME and done > 0 and begin < horizon:
                out.egress_gib += CHECKPOINT_GIB
            finish = begin + STARTUP_MIN + remaining
            preempt = weather[location].next_onset(begin) if strategy == "SPOT" else math.inf
            stop = min(finish, preempt)
            billed = max(0, min(stop, horizon) - begin)  # billed within the month
            if strategy == "SPOT":
                out.spot_min += billed
            else:
                out.standard_min += billed
            if finish <= preempt:
                ended = finish
            else:
                kept = (max(0, preempt - begin - STARTUP_MIN) // CHECKPOINT_EVERY_MIN) * CHECKPOINT_EVERY_MIN
                done, remaining = done + kept, remaining - kept
                failed_at = preempt
        if ended is not None:
            if ended <= horizon:
                out.finished, out.minutes = True, ended - start
            return out
        # FAILED with STOCKOUT; the next scheduled `up` reads it and asks the policy.
        state.update({
            "state": job_states.FAILED, "error": {"code": STOCKOUT_ERROR[0], "message": STOCKOUT_ERROR[1]},
            "jobName": f"projects/p/locations/{location}/customJobs/{out.attempts}", "strategy": strategy,
        })
        t = (failed_at // TICK_MIN + 1) * TICK_MIN
        if t >= horizon:
            return out
        due = resubmission_policy.next_submission(JobState.of({**news, **state}), job)
        if due is None:
            out.gave_up = True
            return out
        ended = JobState.of(state).ended_attempt()
        state = {"attempt": due.attempt, "history": state["history"] + [ended]}
        strategy, location = due.strategy, due.location


def policy_inputs(policy: dict | None) -> dict[str, Any]:
    """What the program registers for vision/resnet with this resubmission policy (STANDARD if None), checked."""
    job = docs_request_body()["jobSpec"]
    if policy is None:
        job = {**job, "scheduling": {"strategy": "STANDARD"}}
    else:
        job = {**job, "resubmission": policy}
    config = {
        "gcp:project": "acme-ml-dev", "gcp:region": HOME, "spot-training:environment": "dev",
        "spot-training:teams": {"vision": {"jobs": {"resnet": job}}},
    }
    [registered] = render(config).of_type("SpotTrainingJob")
    inputs = dict(registered.inputs)
    failures = SpotTrainingJobProvider().check({}, inputs).failures
    if failures:
        raise RuntimeError(f"policy {policy} refused by check: {[(f.property, f.reason) for f in failures]}")
    return inputs


# --- part 1 -------------------------------------------------------------------------------------
HEADERS = ["step", *RPCS, "total"]


def counted(emu: JobServiceEmulator, fn):
    emu.reset_calls()
    result = fn()
    return result, calls_of(emu.calls)


def row(name: str, counts: dict[str, int]) -> list:
    return [name, *(counts.get(r, 0) for r in RPCS), sum(counts.values())]


def total(*counts: dict[str, int]) -> dict[str, int]:
    return {r: sum(c.get(r, 0) for c in counts) for r in {k for c in counts for k in c}}


def region(name: str) -> str:
    return name.split("/")[3]


def one_up(host: Host, emu: JobServiceEmulator, id_: str, state: dict, props: dict) -> tuple[dict, list[dict[str, int]]]:
    """One `pulumi up` of a preempted job, as the engine drives it: Check, Read, Diff, Update."""
    _, check = counted(emu, lambda: host.check(URN, state, props))
    read_response, read = counted(emu, lambda: host.read(URN, id_, state))
    state = deserialize(read_response[0].properties)
    assert state["state"] == job_states.FAILED, state["state"]
    diff_response, diff = counted(emu, lambda: host.diff(URN, id_, state, props))
    assert diff_response[0].changes == provider_pb2.DiffResponse.DIFF_SOME and not list(diff_response[0].replaces)
    update_response, update = counted(emu, lambda: host.call("Update", provider_pb2.UpdateRequest(
        urn=URN, id=id_, olds=serialize(state), news=serialize(props))))
    return deserialize(update_response[0].properties), [check, read, diff, update]


def api_calls(quick: bool) -> None:
    rows: list[list] = []
    summary: list[tuple[str, int]] = []
    moves: list[str] = []
    with JobServiceEmulator() as emu:
        with Host({"AIPLATFORM_EMULATOR_HOST": emu.address}) as host:
            cases = [
                ("stays: no ladder (baseline)", {"maxResubmissions": 3}),
                ("moves region: location rung", {"maxResubmissions": 3, "fallback": [{"afterStockouts": 1, "location": AWAY}]}),
                ("strategy-only rung (STANDARD)", {"maxResubmissions": 3, "fallback": [{"afterStockouts": 1, "strategy": "STANDARD"}]}),
                ("location rung not reached yet", {"maxResubmissions": 3, "fallback": [{"afterStockouts": 2, "location": AWAY}]}),
            ]
            for label, policy in cases:
                props = checked(host, scoped(policy_inputs(policy), f"spot-training/dev/failover-{len(summary)}"))
                (response, _), create = counted(emu, lambda: host.create(URN, props))
                id_, state = response.id, deserialize(response.properties)
                emu.preempt(state["jobName"])
                after, steps = one_up(host, emu, id_, state, props)
                where = f"{region(state['jobName'])} {state['strategy']} -> {region(after['jobName'])} {after['strategy']}"
                rows.append([label, *[""] * (len(RPCS) + 1)])
                rows.append(row("  create (the first attempt)", create))
                moves.append(f"  {label}: {where}")
                for name, counts in zip(("  Check", "  Read (refresh)", "  Diff", "  Update (submits)"), steps):
                    rows.append(row(name, counts))
                whole = total(*steps)
                rows.append(row("  the whole up", whole))
                summary.append((label, sum(whole.values()), sum(create.values())))

            ladder = {"maxResubmissions": 3, "fallback": [{"afterStockouts": 1, "location": AWAY}, {"afterStockouts": 2, "strategy": "STANDARD"}]}
            destroys, attempts = [], {}
            for label, policy, preemptions in (
                ("3 attempts in 2 regions (region ladder)", ladder, 2),
                ("3 attempts in 1 region (no ladder)", {"maxResubmissions": 3}, 2),
                ("1 attempt", {"maxResubmissions": 3}, 0),
            ):
                for current in ("JOB_STATE_RUNNING", "JOB_STATE_SUCCEEDED"):
                    props = checked(host, scoped(policy_inputs(policy), f"spot-training/dev/destroy-{len(destroys)}"))
                    response, _ = host.create(URN, props)
                    id_, state = response.id, deserialize(response.properties)
                    for _ in range(preemptions):
                        emu.preempt(state["jobName"])
                        state, _ = one_up(host, emu, id_, state, props)
                    emu.set_state(state["jobName"], current)
                    names = [h["jobName"] for h in state["history"]] + [state["jobName"]]
                    strategies = [h["strategy"] for h in state["history"]] + [state["strategy"]]
                    attempts[label] = ", ".join(f"{region(n)} {s}" for n, s in zip(names, strategies))
                    before = len(emu.jobs())
                    _, counts = counted(emu, lambda: host.delete(URN, id_, state))
                    assert len(emu.jobs()) == before - len(names), "every attempt's record deleted"
                    state_word = "running" if current.endswith("RUNNING") else "finished"
                    destroys.append((f"{label}, current {state_word}", counts))
            rows.append(["destroy (Delete)", *[""] * (len(RPCS) + 1)])
            for label, counts in destroys:
                rows.append(row(f"  {label}", counts))

    print("Part 1. JobService calls of one resubmission and of a destroy, through the dynamic provider host (emulator)")
    print(table(HEADERS, rows))
    print()
    print("\n".join(moves))
    base, base_create = summary[0][1], summary[0][2]
    for label, calls, create in summary:
        print(f"  {label}: {calls} calls for the up ({calls / base:.2f}x the baseline's {base}); "
              f"create {create} ({create / base_create:.2f}x)")
    print("  (the extra ListCustomJobs of a ladder naming another region: the provider looks there for an attempt an "
          "interrupted up may have left, at every create and resubmission, moved or not)")
    for label, where in attempts.items():
        print(f"  destroy, {label}: {where}")
    d = {label: sum(c.values()) for label, c in destroys}
    two, one, single = (d[f"{x}, current running"] for x in (
        "3 attempts in 2 regions (region ladder)", "3 attempts in 1 region (no ladder)", "1 attempt"))
    print(f"  destroy, current running: 3 attempts in 2 regions {two} calls, in 1 region {one} "
          f"({two / one:.2f}x), 1 attempt {single}; every attempt's record deleted (asserted)")
    print()


# --- part 2 -------------------------------------------------------------------------------------
def fmt_hours(minutes: float) -> str:
    return ">month" if math.isinf(minutes) else f"{minutes / 60:.1f}"


def percentile(samples: list[float], q: float) -> float:
    ordered = sorted(samples)
    return ordered[math.ceil(q * len(ordered)) - 1]


def per_finished(outcomes: list[Outcome]) -> str:
    finished = sum(o.finished for o in outcomes)
    return f"{sum(o.cost(SPOT_DISCOUNTS[0]) for o in outcomes) / finished:.2f}" if finished else "-"


def month_model(quick: bool, seed: int) -> None:
    months, jobs_per_month = (2, 30) if quick else (20, 200)
    rng = random.Random(seed)
    weathers = [month(rng) for _ in range(months)]
    jobs = [(m, rng.randrange(START_WITHIN_H * 60 // TICK_MIN) * TICK_MIN) for m in range(months) for _ in range(jobs_per_month)]
    inputs = {name: policy_inputs(policy) for name, policy in POLICIES.items()}

    print("Part 2. A simulated month of Spot stockouts (a MODEL: the rates below are assumptions, not Google's data)")
    print(f"  seed {seed}; {months} simulated months x {jobs_per_month} jobs, each run at H = {', '.join(map(str, HOURS))} h of compute")
    for reg, (p_out, p_back) in RATES.items():
        share = sum(min(e, MONTH_H * 60) - s for w in weathers for s, e in w[reg].periods if s < MONTH_H * 60) / (months * MONTH_H * 60)
        print(f"  {reg}: P(stockout starts) {p_out}/h, P(it ends) {p_back}/h: mean stockout {1 / p_back:.0f} h, "
              f"mean capacity spell {1 / p_out:.0f} h, {p_out / (p_out + p_back):.1%} of hours out in the long run "
              f"({share:.1%} in these months)")
    print(f"  a scheduled up every {TICK_MIN} min; start-up {STARTUP_MIN} min billed; checkpoint every {CHECKPOINT_EVERY_MIN} min "
          f"of compute; jobs start in the first {START_WITHIN_H // 24} days of a {MONTH_H // 24}-day month; bucket in {HOME}")
    print(f"  prices: {MACHINE} on demand ${ON_DEMAND_PER_HOUR}/h (Vertex AI pricing page); Spot at "
          f"{' and '.join(f'{d:.0%}' for d in SPOT_DISCOUNTS)} off; checkpoint {CHECKPOINT_GIB:g} GiB read per attempt "
          f"started away from {HOME}, at ${EGRESS_PER_GIB}/GiB (assumed)")
    for name, policy in POLICIES.items():
        print(f"  {name}: {policy if policy is not None else 'scheduling.strategy STANDARD, no resubmission needed'}")
    print()

    headers = ["policy", "H h", "median h", "p90 h", f"mean $ ({SPOT_DISCOUNTS[0]:.0%} off)", f"mean $ ({SPOT_DISCOUNTS[1]:.0%} off)",
               f"$ per finished ({SPOT_DISCOUNTS[0]:.0%} off)", "egress $", "attempts", "ended STANDARD", "gave up", "unfinished", "ran away"]
    for queue in (False, True):
        rows = []
        for hours in HOURS:
            for name in POLICIES:
                outcomes = [simulate(inputs[name], weathers[m], start, hours * 60, queue) for m, start in jobs]
                n = len(outcomes)
                times = [o.minutes for o in outcomes]
                rows.append([
                    name, hours, fmt_hours(statistics.median(times)), fmt_hours(percentile(times, 0.9)),
                    f"{statistics.fmean(o.cost(SPOT_DISCOUNTS[0]) for o in outcomes):.2f}",
                    f"{statistics.fmean(o.cost(SPOT_DISCOUNTS[1]) for o in outcomes):.2f}",
                    per_finished(outcomes),
                    f"{statistics.fmean(o.egress_gib * EGRESS_PER_GIB for o in outcomes):.3f}",
                    f"{statistics.fmean(o.attempts for o in outcomes):.1f}",
                    f"{sum(o.last_strategy == 'STANDARD' for o in outcomes) / n:.0%}",
                    f"{sum(o.gave_up for o in outcomes) / n:.0%}",
                    f"{sum(not o.finished for o in outcomes) / n:.0%}",
                    f"{sum(AWAY in o.regions for o in outcomes) / n:.0%}",
                ])
        title = ("a SPOT submission into a stockout waits, queued and unbilled, until capacity returns" if queue else
                 "a SPOT submission into a stockout fails at once with STOCKOUT (the emulator's model)")
        print(f"{'Variant B' if queue else 'Variant A'}: {title}")
        print(table(headers, rows))
        print()
    print("  times: submission to completion, over all jobs (one never finished counts as >month); cost: mean per job, "
          "billed compute (within the month) + egress, jobs never finished included with what they spent; $ per finished: all jobs' spend over the jobs finished; gave up: maxResubmissions "
          f"({MAX}) reached; unfinished: gave up or still running at the month's end; ran away: any attempt in {AWAY}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="a reduced smoke run (fewer simulated months and jobs)")
    parser.add_argument("--seed", type=int, default=14)
    args = parser.parse_args()
    print(f"failover: JobService calls of a resubmission through the host, and a seeded month model (seed {args.seed})\n")
    api_calls(args.quick)
    month_model(args.quick, args.seed)


if __name__ == "__main__":
    main()
