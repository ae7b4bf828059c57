"""Every job of a stack as the CustomJob request the provider will submit, offline.

    uv run python -m offline.render dev             # a summary table, each job's settings, then each request body
    uv run python -m offline.render dev --out out/  # one <team>-<job>.json per job (to read, not to submit)
    uv run spot-training render dev                # the same (cli/render.py)

No credentials, no Pulumi CLI: the real program runs under OfflineMocks, and
each job's body comes from request.create_request, the function the provider submits
with, so what is printed is what Vertex AI receives. Values only Google Cloud
knows are marked: a team image (`${images.NAME}`) already pushed appears by its
tag (the deploy pins it to the digest that tag points to), one the stack builds
by a zero digest; an image URI written literally is submitted as written.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import date
from pathlib import Path
from typing import Any

import pulumi

from components.pricing.table import PriceTable
from components.spot_job.model import defaults, values
from components.spot_job.model.job_name import split_parent
from offline import table
from offline.mocks import UNBUILT_DIGEST, OfflineMocks
from offline.program import SECRET_PLACEHOLDER, UnknownStack, engine_view, run, secure_keys, stack_config
from stack_config import prices as stack_prices

JOB_TYPE_SUFFIX = "SpotTrainingJob"
ENDPOINT = "https://{location}-aiplatform.googleapis.com/v1/{parent}/customJobs"
# What `--out`'s files are for: reading, diffing, reviewing. No command that submits them is printed:
# they hold placeholders, and a job submitted by hand is one the stack's exactly-once protocol never made.
NOT_FOR_SUBMISSION = (
    "not for submission: these files are a render, to read and diff. A value only a deploy knows is a placeholder "
    "in them (the notes on stderr: a zero digest, a tag the deploy pins, [secret]), and a job submitted by hand is "
    "outside the stack; `pulumi up` submits the jobs, each once."
)


@dataclass(frozen=True)
class RenderedJob:
    team: str
    job: str
    parent: str
    body: dict[str, Any]  # the CreateCustomJob request body, submission label included
    secret_paths: Sequence[str] = ()  # values shown as SECRET_PLACEHOLDER: set at deploy time from the encrypted config
    # Images shown by their tag that the deploy resolves to a digest: those written `${images.NAME}`.
    pinned_images: frozenset[str] = frozenset()
    # The provider's knobs as the program passes them (spec.KNOB_FIELDS, rerun): unset ones are absent.
    knobs: dict[str, Any] = field(default_factory=dict)

    @property
    def url(self) -> str:
        return ENDPOINT.format(location=split_parent(self.parent)[1], parent=self.parent)


def provider_inputs(stack: str) -> tuple[dict[tuple[str, str], dict[str, Any]], OfflineMocks]:
    """Each job's inputs as the provider receives them, by (team, job), and the mocks that
    rendered them: the real program run under OfflineMocks with the stack's config."""
    mocks = run(stack_config(stack), stack, OfflineMocks(), secret_keys=secure_keys(stack))
    jobs = {}
    for resource in mocks.of_type(JOB_TYPE_SUFFIX):
        inputs = {k: v for k, v in engine_view(resource.inputs).items() if not k.startswith("__")}
        team = (inputs.get("labels") or {}).get("team", "")
        jobs[(team, resource.name.removeprefix(f"{team}-"))] = inputs
    return jobs, mocks


def render(stack: str) -> list[RenderedJob]:
    """The stack's jobs, sorted by team, then job.

    Not in the order the mocks saw them: a resource reaches the mocks once its
    inputs resolve (an image's digest look-up, a package's build in a
    subprocess, the SDK's registration threads), so that order changes from
    run to run.
    """
    from components.spot_job.model import (
        request,
        spec,  # after the mocks exist: it is the program's own module
    )
    from components.spot_job.model.job_inputs import JobInputs

    jobs, mocks = provider_inputs(stack)
    rendered = []
    for (team, job), inputs in sorted(jobs.items()):
        parent, _, body = request.create_request(JobInputs.of(inputs))
        knobs = {k: inputs[k] for k in (*spec.TRIGGER_FIELDS, *spec.KNOB_FIELDS) if inputs.get(k) is not None}
        rendered.append(
            RenderedJob(team, job, parent, body, inputs.get("secretPaths") or [], frozenset(mocks.pinned), knobs)
        )
    return rendered


@dataclass(frozen=True)
class Section:
    """One table of the render: printed as plain columns (piped, `python -m offline.render`), or by
    the caller's own printer (the CLI's rich table, wrapped to a terminal's width)."""

    title: str | None
    header: tuple[str, ...]
    rows: Sequence[tuple[str, ...]]
    after: tuple[str, ...] = ()  # lines under the table

    def plain(self) -> str:
        return "\n".join([*([self.title] if self.title else []), table.plain(self.header, self.rows), *self.after])


def summary_section(jobs: list[RenderedJob]) -> Section:
    header = ("TEAM", "JOB", "MACHINES", "ACCELERATORS", "STRATEGY", "IMAGE")
    return Section(None, header, [
        (j.team, j.job, _machines(j.body), _accelerators(j.body), j.body["jobSpec"]["scheduling"]["strategy"], _image(j.body))
        for j in jobs
    ])


def summary(jobs: list[RenderedJob]) -> str:
    return summary_section(jobs).plain()


SETTINGS_TITLE = "SETTINGS (what `up` does with each job, and what it may cost; (default) where the stack leaves it unset)"
ON_DEMAND = "on-demand price"


def settings(jobs: list[RenderedJob]) -> str:
    return settings_section(jobs).plain()


def settings_section(jobs: list[RenderedJob]) -> Section:
    """The provider's knobs that change what runs or what it costs, one row per job."""

    header = ("TEAM", "JOB", "WAIT_FOR", "RERUN", "ON_DELETE", "REPLACE_ORDER", "RESUBMISSIONS", "STRATEGY_LADDER")
    rows = []
    for j in jobs:
        k = j.knobs
        wait = _or_default(k.get("waitFor"), defaults.DEFAULT_WAIT_FOR)
        if k.get("waitFor") not in (None, defaults.WaitFor.NONE):
            wait += f" ({k['waitTimeout']})" if k.get("waitTimeout") else f" ({defaults.DEFAULT_WAIT_TIMEOUT} default)"
        rerun = json.dumps(k["rerun"]) if "rerun" in k else "- (default)"
        rows.append(
            (
                j.team,
                j.job,
                wait,
                rerun,
                _or_default(k.get("onDelete"), defaults.DEFAULT_ON_DELETE),
                _or_default(k.get("replaceOrder"), defaults.DEFAULT_REPLACE_ORDER),
                _resubmissions(k.get("resubmission") or {}),
                ladder(j),
            )
        )
    return Section(SETTINGS_TITLE, header, rows)


def ladder(job: RenderedJob) -> str:
    """The strategy of each submission: the job's own, then each fallback rung
    as components/spot_job/decision/resubmission_policy.py resolves it for this job (auto
    included), and which of them is billed at the on-demand price."""
    from components.spot_job.decision import resubmission_policy
    from components.spot_job.model.job_inputs import JobInputs

    location = split_parent(job.parent)[1]
    inputs = JobInputs.of({"jobSpec": job.body["jobSpec"], "location": location, **job.knobs})
    own = job.body["jobSpec"]["scheduling"].get("strategy") or defaults.DEFAULT_STRATEGY
    rungs = (job.knobs.get("resubmission") or {}).get("fallback") or []
    if own != "SPOT":
        return _priced(own)
    if not rungs:
        return "SPOT, no fallback (default)"
    limit = values.as_int((job.knobs.get("resubmission") or {}).get("maxResubmissions"))
    limit = defaults.DEFAULT_MAX_RESUBMISSIONS if limit is None else limit
    # Where each step runs, once a rung of the ladder moves the job to another region.
    moves = any(isinstance(r, dict) and r.get("location") for r in rungs)
    steps = [f"SPOT in {location}" if moves else "SPOT"]
    for rung in rungs:
        after = values.as_int(rung.get("afterStockouts")) or 0
        if after > limit:  # the submission after the Nth stockout is resubmission N
            what = " in ".join(str(v) for v in (rung.get("strategy"), rung.get("location")) if v)
            steps.append(f"after {after} stockouts {what} (never reached: at most {limit} resubmissions)")
            continue
        place = resubmission_policy.placement_after(after, inputs)
        strategy = place.strategy
        step = f"after {after} stockout{'s' if after != 1 else ''} {strategy}" + (f" in {place.location}" if moves else "")
        why = ["auto"] if rung.get("strategy") == "auto" else []
        if strategy == "STANDARD":
            why.append(ON_DEMAND)
        steps.append(f"{step} ({'; '.join(why)})" if why else step)
    return " → ".join(steps)


PRICES_TITLE = (
    "PRICES (USD per hour, every replica of every worker pool; the table of components/pricing/ with the "
    "stack's spot-training:prices over it, docs/costs.md; unknown where no price is known, never 0)"
)


def placements(job: RenderedJob) -> list[tuple[str, str, str]]:
    """(what, strategy, location) of the job's own submission, then of each fallback rung the
    resubmission limit lets it reach, as components/spot_job/decision/resubmission_policy.py places it."""
    from components.spot_job.decision import resubmission_policy
    from components.spot_job.model.job_inputs import JobInputs

    location = split_parent(job.parent)[1]
    inputs = JobInputs.of({"jobSpec": job.body["jobSpec"], "location": location, **job.knobs})
    own = job.body["jobSpec"]["scheduling"].get("strategy") or defaults.DEFAULT_STRATEGY
    found = [("own", own, location)]
    if own != "SPOT":
        return found
    limit = values.as_int((job.knobs.get("resubmission") or {}).get("maxResubmissions"))
    limit = defaults.DEFAULT_MAX_RESUBMISSIONS if limit is None else limit
    for rung in (job.knobs.get("resubmission") or {}).get("fallback") or []:
        after = values.as_int(rung.get("afterStockouts")) or 0
        if after <= limit:
            place = resubmission_policy.placement_after(after, inputs)
            found.append((f"after {after} stockout{'s' if after != 1 else ''}", place.strategy, place.location))
    return found


def prices(jobs: list[RenderedJob], price_table: PriceTable) -> str:
    return prices_section(jobs, price_table).plain()


def prices_section(jobs: list[RenderedJob], price_table: PriceTable, today: date | None = None) -> Section:
    """Each job's price per hour on its strategy, on-demand (STANDARD) in its region, what its
    strategy saves per hour, and its price on each rung of its fallback ladder; then the
    table's date (and a warning when it is stale), the mark's legend, and what has no price,
    with the table's reason where it has one, so it can be set in spot-training:prices."""
    from components.pricing import money
    from components.pricing.hourly import hourly

    header = ("TEAM", "JOB", "STRATEGY", "PER_HOUR", "ON_DEMAND_PER_HOUR", "SAVING_PER_HOUR", "LADDER_PER_HOUR")
    rows, missing, marked = [], [], False
    for j in jobs:
        spec = j.body["jobSpec"]
        steps = [(what, strategy, where, hourly(spec, where, strategy, price_table)) for what, strategy, where in placements(j)]
        _, own, location, price = steps[0]
        on_demand = hourly(spec, location, "STANDARD", price_table)
        saving = "unknown"
        if price.usd is not None and on_demand.usd is not None:
            saving = money.per_hour(on_demand.usd - price.usd, price.approximate or on_demand.approximate)
        ladder_text = " → ".join(f"{what} {strategy} in {where} {h.text()}" for what, strategy, where, h in steps[1:]) or "-"
        rows.append((j.team, j.job, own, price.text(), on_demand.text(), saving, ladder_text))
        marked = marked or any(h.approximate for *_, h in steps) or on_demand.approximate
        gaps = dict.fromkeys(m for *_, h in steps for m in h.missing)
        gaps.update(dict.fromkeys(on_demand.missing))
        if gaps:
            missing.append(f"  {j.team}/{j.job}: no price for {'; '.join(gaps)}")
    after = [*dated(price_table, today or date.today())]
    if marked:
        after.append(money.LEGEND)
    if missing:
        after += ["unknown (set them in spot-training:prices, docs/config.md):", *missing]
    return Section(PRICES_TITLE, header, rows, tuple(after))


def dated(price_table: PriceTable, today: date) -> list[str]:
    """The table's date, and a warning when it is older than the table allows (table.STALE_AFTER_DAYS)."""
    from components.pricing.table import STALE_AFTER_DAYS

    if price_table.as_of is None:
        return []
    line = f"prices as of {price_table.as_of.isoformat()} (the table's oldest row, docs/costs.md)"
    if price_table.stale(today):
        return [
            line,
            f"warning: the price table is older than {STALE_AFTER_DAYS} days; Spot prices can change daily: "
            "refresh it (docs/costs.md, \"Refreshing the table\")",
        ]
    return [line]


def _priced(strategy: str) -> str:
    return f"{strategy} ({ON_DEMAND})" if strategy == "STANDARD" else strategy


def _or_default(value: Any, default: Any) -> str:
    return f"{default} (default)" if value is None else str(value)


def _resubmissions(policy: dict[str, Any]) -> str:
    limit = policy.get("maxResubmissions")
    count = str(defaults.DEFAULT_MAX_RESUBMISSIONS) if limit is None else str(values.as_int(limit))
    on = "any failure" if policy.get("onOtherFailures") else "STOCKOUT"
    text = f"{count} on {on}"
    stop = values.as_int(policy.get("stopWithoutProgress"))
    if stop is not None:  # the default (progress.DEFAULT_STOP_WITHOUT_PROGRESS) is docs/config.md's to say
        text += f", stop after {stop} without progress" if stop else ", never stopped for lack of progress"
    return f"{text} (default)" if limit is None and not policy.get("onOtherFailures") and stop is None else text


def deploy_time_values(jobs: list[RenderedJob]) -> list[str]:
    """What the printed bodies show in place of a value only a deploy can know."""
    notes = []
    for j in jobs:
        for i, pool in enumerate(j.body["jobSpec"]["workerPoolSpecs"]):
            image = (pool.get("containerSpec") or {}).get("imageUri", "")
            if image.endswith("@" + UNBUILT_DIGEST):
                notes.append(f"{j.team}/{j.job} pool {i}: {image.split('@')[0]} is built and pushed by the deploy; its digest is known then")
            elif image in j.pinned_images:
                notes.append(f"{j.team}/{j.job} pool {i}: {image} is pinned by the deploy to the digest its tag points to")
            elif image and "@sha256:" not in image and "/vertex-ai/" not in image:
                notes.append(
                    f"{j.team}/{j.job} pool {i}: {image} is submitted as written, not pinned: only ${{images.NAME}} "
                    "references are resolved to a digest; add the image to the team's images: and write ${images.NAME}"
                )
        notes += [f"{j.team}/{j.job}: {path} is secret, shown as {SECRET_PLACEHOLDER}; the deploy decrypts it" for path in j.secret_paths]
    return notes


def print_plain(section: Section) -> None:
    print(section.plain())


def print_render(
    jobs: list[RenderedJob],
    out: Path | None = None,
    price_table: PriceTable | None = None,
    *,
    bodies: bool = True,
    show: Callable[[Section], None] = print_plain,
) -> list[str]:
    """Prints the summary, the settings, the prices (with `price_table`), each by `show`, then
    each request body (without `bodies`, none; with `out`, each body written there and its file
    named); returns the notes on values only a deploy knows, for the caller to print on stderr."""
    sections = [summary_section(jobs), settings_section(jobs)]
    if price_table is not None:
        sections.append(prices_section(jobs, price_table))
    for i, section in enumerate(sections):
        if i:
            print()
        show(section)
    if out:
        out.mkdir(parents=True, exist_ok=True)
        if bodies and jobs:
            print()
    for j in jobs:
        text = json.dumps(j.body, indent=2, sort_keys=True)
        if out:
            path = out / f"{j.team}-{j.job}.json"
            path.write_text(text + "\n")
            if bodies:
                print(f"# {j.team}/{j.job}: {path}")
        elif bodies:
            print(f"\n# {j.team}/{j.job}: POST {j.url}\n{text}")
    if out and jobs:
        print(f"\n{NOT_FOR_SUBMISSION}")
    return deploy_time_values(jobs)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m offline.render", description=__doc__.split("\n")[0])
    parser.add_argument("stack", help="a stack of stacks/, e.g. dev")
    parser.add_argument("--out", type=Path, help="write <team>-<job>.json request bodies into this directory")
    args = parser.parse_args(argv)
    try:
        jobs = render(args.stack)
    except UnknownStack as error:
        parser.error(str(error))
    except pulumi.RunError as error:  # ConfigError, StackFileError: the message lists every failure; a traceback adds nothing
        print(f"error: {error}", file=sys.stderr)
        return 1
    for note in print_render(jobs, args.out, stack_prices.table(args.stack)):
        print(f"note: {note}", file=sys.stderr)
    return 0


def _pools(body: dict[str, Any]) -> list[dict[str, Any]]:
    return [p for p in body["jobSpec"]["workerPoolSpecs"] if p]


def _machines(body: dict[str, Any]) -> str:
    return " + ".join(f"{p.get('replicaCount', 0)}x {p['machineSpec']['machineType']}" for p in _pools(body))


def _accelerators(body: dict[str, Any]) -> str:
    total: Counter = Counter()
    for p in _pools(body):
        machine = p["machineSpec"]
        if machine.get("acceleratorType"):
            total[machine["acceleratorType"]] += p.get("replicaCount", 0) * machine.get("acceleratorCount", 0)
    return ", ".join(f"{n}x {kind}" for kind, n in total.items()) or "-"


def _image(body: dict[str, Any]) -> str:
    chief = _pools(body)[0]
    if "containerSpec" in chief:
        image = chief["containerSpec"]["imageUri"].rsplit("/", 1)[-1]
        # The body needs a digest's shape; a reader needs to know there is none yet.
        return f"{image.removesuffix('@' + UNBUILT_DIGEST)} (built at deploy)" if image.endswith("@" + UNBUILT_DIGEST) else image
    package = chief["pythonPackageSpec"]
    return f"{package['executorImageUri'].rsplit('/', 1)[-1]} ({package['pythonModule']})"


if __name__ == "__main__":
    from offline.program import close_event_loops

    try:
        code = main()
    finally:
        close_event_loops()
    sys.exit(code)
