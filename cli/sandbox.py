"""`spot-training sandbox up | down | preempt STACK ...`: the stack on this machine, no Google Cloud.

The stack's own program under the real Pulumi engine, against local services:
the project's JobService emulator, which runs a pythonPackageSpec job's code
(and simulates a containerSpec job's), Cloud Storage (fake-gcs-server) and a
stand-in for the `gcp` and `docker-build` plugins. Nothing reaches Google and
no credential is read. docs/sandbox.md has the whole walk.

Exit codes: 0 done, 1 the update failed or a preemption was refused, 2 bad
input (an unknown stack or job, a taken port, no engine, Go missing).
"""

from __future__ import annotations

import typer

from cli import arguments, output

sandbox_app = typer.Typer(
    name="sandbox", no_args_is_help=True, add_completion=False, pretty_exceptions_enable=False, rich_markup_mode=None,
    help="The stack on this machine: the real engine, local services, jobs that train, Spot preemptions on demand.",
)


def register(app: typer.Typer) -> None:
    app.add_typer(sandbox_app, name="sandbox")


def _fail(message: str, code: int = 2) -> typer.Exit:
    output.error(message)
    return typer.Exit(code)


class _Said:
    """Prints what the engine says, and keeps it: an error the engine did not stream is printed once, after."""

    def __init__(self) -> None:
        self.lines: list[str] = []

    def __call__(self, line: str) -> None:
        self.lines.append(line)
        print(line)

    def failed(self, problem: Exception, what: str) -> typer.Exit:
        # The Automation API's error holds the command's whole output; a command run without callbacks
        # (selecting the stack, clearing a lock) streamed none of it, so its stderr is shown here.
        stderr = str(problem).rpartition("\n stderr: ")[2].strip()
        streamed = "\n".join(self.lines)
        for line in stderr.splitlines():
            if line.strip() and line.strip() not in streamed:
                output.error(line.strip().removeprefix("error: "))
        return _fail(f"the {what} in the sandbox failed (its output is above)", 1)


def _duration(text: str | None, option: str) -> float:
    """30, 30s, 5m, 1h -> seconds; exit 2 naming the option otherwise."""
    if text is None:
        return 0.0
    units = {"s": 1, "m": 60, "h": 3600}
    number, unit = (text[:-1], text[-1]) if text and text[-1] in units else (text, "s")
    try:
        seconds = float(number) * units[unit]
    except ValueError:
        raise _fail(f"{option} {text!r} is not a duration: write seconds (90, 90s), minutes (5m) or hours (1h)") from None
    if seconds <= 0:
        raise _fail(f"{option} must be more than 0, got {text!r}")
    return seconds


def _known_stack(stack: str) -> None:
    """Exit 2 naming the stacks there are, as every verb does for an unknown one (cli/deployed.py)."""
    from cli import deployed

    deployed.load(stack)


def _known_job(stack: str, job: str) -> None:
    from cli import deployed
    from stack_config import stack_file

    teams = ((stack_file.read(stack) or {}).get("spot-training:teams")) or {}
    jobs = sorted(f"{t}/{j}" for t, body in teams.items() for j in ((body or {}).get("jobs") or {}))
    if job not in jobs:
        raise _fail(deployed.not_a_job(job, stack, jobs))


@sandbox_app.command(name="up")
def up(
    stack: str = arguments.STACK,
    port: int = typer.Option(0, "--port", metavar="PORT", help="the JobService's port (default: any free one)"),
    storage_port: int = typer.Option(0, "--storage-port", metavar="PORT", help="Cloud Storage's port (default: any free one)"),
    run_for: str = typer.Option("30s", "--run-for", metavar="DURATION", help="how long a simulated (containerSpec) job runs"),
    preempt_every: str = typer.Option(None, "--preempt-every", metavar="DURATION", help="chaos: preempt each running SPOT job about this often"),
    seed: int = typer.Option(0, "--seed", metavar="N", help="the chaos mode's random seed"),
    grace: str = typer.Option("30s", "--grace", metavar="DURATION", help="the chaos mode's grace period between SIGTERM and SIGKILL"),
) -> None:
    """Run the stack's program under the real engine against local services; its jobs train here.

    \b
    Examples:
      spot-training sandbox up dev
      spot-training sandbox up dev --preempt-every 2m --seed 7
    """
    from sandbox import commands, engine, services
    from sandbox.jobservice.developer_api import DeveloperError
    from sandbox.stack import SandboxRefused

    _known_stack(stack)
    said = _Said()
    try:
        done = commands.up(
            stack, said, port, storage_port, _duration(run_for, "--run-for"), _duration(preempt_every, "--preempt-every"),
            seed, _duration(grace, "--grace"),
        )
    except (engine.EngineMissing, services.ServiceError, SandboxRefused, DeveloperError) as problem:
        raise _fail(str(problem)) from None
    except Exception as problem:  # the Automation API's errors carry the engine's whole output, printed already
        if type(problem).__module__.startswith("pulumi.automation"):
            raise said.failed(problem, f"update of stack {stack}") from None
        raise
    print()
    print(f"In the sandbox ({done.engine.describe()}):")
    for job, about in sorted(done.jobs.items()):
        how = "simulated: its image is not run (docs/sandbox.md)" if about["simulated"] else "runs its code here"
        print(f"  {job}: {about['name'] or 'not submitted'} {about['state'].removeprefix('JOB_STATE_')}, {how}")
    if preempt_every:
        print(f"  chaos: every running SPOT job preempted about every {preempt_every} (seed {seed})")
    print(f"Watch: spot-training status {stack} --sandbox; logs: spot-training logs {stack} TEAM/JOB --sandbox --follow")
    if done.result != "succeeded":
        raise typer.Exit(1)


@sandbox_app.command(name="down")
def down(stack: str = arguments.STACK) -> None:
    """Destroy the stack in the sandbox (its jobs cancelled and deleted, as `pulumi destroy` does) and stop its services.

    \b
    Examples:
      spot-training sandbox down dev
    """
    from sandbox import commands, engine, services
    from sandbox.stack import SandboxRefused

    said = _Said()
    try:
        stopped = commands.down(stack, said)
    except (engine.EngineMissing, services.ServiceError, SandboxRefused) as problem:
        raise _fail(str(problem)) from None
    except Exception as problem:
        if type(problem).__module__.startswith("pulumi.automation"):
            raise said.failed(problem, f"destroy of stack {stack}") from None
        raise
    print(f"sandbox {stack}: down ({len(stopped)} services stopped)" if stopped else f"sandbox {stack}: nothing was running")


@sandbox_app.command(name="preempt")
def preempt(
    stack: str = arguments.STACK,
    job: str = arguments.TEAM_JOB,
    replica: str = typer.Option(None, "--replica", metavar="POOL:INDEX", help="the replica whose VM is reclaimed (default: every replica)"),
    grace: str = typer.Option("30s", "--grace", metavar="DURATION", help="between SIGTERM and SIGKILL (Compute Engine's Spot shutdown period: 30 s)"),
    for_good: bool = typer.Option(False, "--for-good", help="no restart: the job ends FAILED with STOCKOUT"),
    hard: bool = typer.Option(False, "--hard", help="SIGKILL at once, as when the grace period is not honoured"),
) -> None:
    """Reclaim a running SPOT job's VMs, as Compute Engine does: SIGTERM, then SIGKILL after the grace period; Vertex then restarts the job, up to six times.

    \b
    Examples:
      spot-training sandbox preempt dev tabular/baseline
      spot-training sandbox preempt dev tabular/baseline --for-good
      spot-training sandbox preempt dev tabular/baseline --hard --replica 0:0
    """
    from sandbox import commands
    from sandbox.jobservice.developer_api import DeveloperError
    from sandbox.jobservice.replicas import Place

    _known_stack(stack)
    _known_job(stack, job)
    if replica:
        try:
            Place.parse(replica)
        except ValueError as problem:
            raise _fail(str(problem)) from None
    try:
        print(commands.preempt(stack, job, replica, 0.0 if hard else _duration(grace, "--grace"), for_good))
    except DeveloperError as problem:
        raise _fail(str(problem), 1) from None


@sandbox_app.command(name="drill")
def drill(
    stack: str = arguments.STACK,
    job: str = arguments.TEAM_JOB,
    preemptions: int = typer.Option(3, "--preemptions", metavar="N", help="how many times the second run is preempted"),
    seed: int = typer.Option(0, "--seed", metavar="N", help="fixes where the preemptions fall and which kind each is"),
    grace: str = typer.Option("30s", "--grace", metavar="DURATION", help="a gentle preemption's time between SIGTERM and SIGKILL"),
    tolerance: float = typer.Option(None, "--tolerance", metavar="REL", help="compare the numbers of model/metrics.json within REL, not bytes"),
) -> None:
    """Does the trainer survive Spot? Run the job alone, then again preempted N times, and compare the models.

    The preemptions mix gentle ones (SIGTERM, then the grace period) and hard ones
    (SIGKILL at once), each followed by Vertex's restart, the last by a resubmission.
    Exit 0 only if the preempted run finished, resumed each time from its last
    checkpoint, and left the same model. docs/sandbox.md, "The drill".

    \b
    Examples:
      spot-training sandbox drill dev tabular/baseline
      spot-training sandbox drill dev tabular/baseline --preemptions 5 --seed 7
    """
    from sandbox import commands
    from sandbox.drill import DrillFailed
    from sandbox.jobservice.developer_api import DeveloperError

    _known_stack(stack)
    _known_job(stack, job)
    if preemptions < 1:
        raise _fail(f"--preemptions must be at least 1, got {preemptions}: a drill without a preemption proves nothing")
    if tolerance is not None and not 0 <= tolerance < 1:
        raise _fail(f"--tolerance is a relative difference between 0 and 1, e.g. 0.01; got {tolerance:g}")
    print(f"drill {stack} {job}: {preemptions} preemptions, seed {seed}")
    try:
        outcome = commands.drill(stack, job, print, preemptions, seed, _duration(grace, "--grace"), tolerance)
    except DrillFailed as problem:
        raise _fail(f"drill failed: {problem}", 1) from None
    except DeveloperError as problem:
        raise _fail(str(problem), 1) from None
    overhead = f"; checkpoints took {outcome.overhead:.1%} of it" if outcome.overhead is not None else ""
    print(f"uninterrupted: {outcome.steps} steps in {outcome.training_seconds:.1f} s of training{overhead}")
    rows = []
    for number, verdict in enumerate(outcome.verdicts, 1):
        mark = "" if verdict.exact else "~"
        lost_s = f"{mark}{verdict.lost_seconds:.1f}" if verdict.lost_seconds is not None else "?"
        rows.append((
            str(number), verdict.planned.kind, f"{mark}{verdict.taken_at}", str(verdict.resumed_from), f"{mark}{verdict.lost_steps}", lost_s,
            verdict.planned.then,
        ))
    output.table(("#", "kind", "taken at step", "resumed from", "steps lost", "seconds lost", "then"), rows)
    print("~: a hard preemption's step is estimated from the uninterrupted run's rate (the trainer had no time to say)")
    print(f"model: {outcome.compared}")
    print("passed: the trainer survives Spot")
