"""`spot-training sweep STACK`: the orphan sweep (operations.sweep) as a verb: the stack's
jobs that no resource of its state points to, the active ones (with --cancel, cancelled)
and the records of the ended ones (with --delete-ended, deleted).
`python -m operations.sweep` keeps working; this is the same code.

Needs Google credentials, and the state: `pulumi stack export` (the Pulumi CLI,
logged in to the state backend) or --state FILE. Exit 0 nothing left to do, 1 active
orphans found and not cancelled, 2 an error, 3 with --delete-ended: a job is still
stopping (CANCELLING), run the sweep again later to delete its record.
"""

from __future__ import annotations

from pathlib import Path

import typer

from cli import arguments, deployed, output

COMMAND = ("uv", "run", "spot-training", "sweep")


def register(app: typer.Typer) -> None:
    app.command(name="sweep")(sweep)


def sweep(
    stack: str = arguments.STACK,
    state: Path | None = typer.Option(None, "--state", metavar="FILE", help="the stack's state, as `pulumi stack export` prints it (default: run that command)"),
    location: list[str] = arguments.LOCATIONS,
    cancel: bool = typer.Option(False, "--cancel", help="cancel the orphaned jobs"),
    delete_ended: bool = typer.Option(False, "--delete-ended", help="delete the records of the ended jobs no state points to (a job still CANCELLING is left for a later sweep)"),
    include_released: bool = typer.Option(False, "--include-released", help="with --cancel or --delete-ended: the released ones (onDelete: keep) too"),
    sandbox: bool = arguments.SANDBOX,
) -> None:
    """List the stack's jobs its state does not point to: active ones (--cancel cancels them) and ended ones'
    records (--delete-ended deletes them). Needs Google credentials.

    \b
    Examples:
      spot-training sweep dev                     list what no state points to
      spot-training sweep dev --cancel --delete-ended
      spot-training sweep dev --state state.json  a state exported elsewhere
      spot-training sweep dev --sandbox           the sandbox's own state
    """
    from operations import sweep as orphan_sweep

    if include_released and not (cancel or delete_ended):
        output.error(orphan_sweep.INCLUDE_RELEASED_ALONE)
        raise typer.Exit(orphan_sweep.ERROR)
    deployed.load(stack)  # an unknown stack first, as every verb says it
    deployed.check_locations(stack, location)
    if sandbox:
        deployed.enter_sandbox(stack)
        if state is None:
            state = _sandbox_state(stack)
    argv = [stack]
    argv += ["--state", str(state)] if state else []
    for where in location:
        argv += ["--location", where]
    argv += ["--cancel"] * cancel + ["--delete-ended"] * delete_ended + ["--include-released"] * include_released
    with deployed.google_errors():
        code = orphan_sweep.main(argv, command=COMMAND, out=orphan_sweep.Output(table=output.table, line=output.line))
    raise typer.Exit(code)


def _sandbox_state(stack: str) -> Path:
    """The sandbox's state of the stack, exported to a file of the sandbox's workspace for the sweep to read."""
    import json

    from sandbox import commands
    from sandbox.engine import EngineMissing
    from sandbox.jobservice.developer_api import DeveloperError
    from sandbox.workspace import Workspace

    try:
        exported = commands.exported(stack)
    except (DeveloperError, EngineMissing) as problem:
        output.error(str(problem))
        raise typer.Exit(2) from None
    path = Workspace.of(stack).root / "state-export.json"
    path.write_text(json.dumps(exported))
    return path
