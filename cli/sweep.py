"""`spot-training sweep STACK`: the orphan sweep (operations.sweep) as a verb: the stack's
active jobs that no resource of its state points to, and with --cancel, cancelled.
`python -m operations.sweep` keeps working; this is the same code.

Needs Google credentials, and the state: `pulumi stack export` (the Pulumi CLI,
logged in to the state backend) or --state FILE. Exit 0 nothing orphaned (or all
cancelled), 1 orphans found and not cancelled, 2 an error.
"""

from __future__ import annotations

from pathlib import Path
from typing import Optional

import typer

from cli import arguments, deployed, output

COMMAND = ("uv", "run", "spot-training", "sweep")


def register(app: typer.Typer) -> None:
    app.command(name="sweep")(sweep)


def sweep(
    stack: str = arguments.STACK,
    state: Optional[Path] = typer.Option(None, "--state", metavar="FILE", help="the stack's state, as `pulumi stack export` prints it (default: run that command)"),
    location: list[str] = arguments.LOCATIONS,
    cancel: bool = typer.Option(False, "--cancel", help="cancel the orphaned jobs"),
    include_released: bool = typer.Option(False, "--include-released", help="with --cancel: cancel the released ones (onDelete: keep) too"),
) -> None:
    """List (and with --cancel, cancel) the stack's active jobs its state does not point to. Needs Google credentials."""
    from operations import sweep as orphan_sweep

    if include_released and not cancel:
        output.error("--include-released only goes with --cancel")
        raise typer.Exit(2)
    argv = [stack]
    argv += ["--state", str(state)] if state else []
    for where in location:
        argv += ["--location", where]
    argv += ["--cancel"] * cancel + ["--include-released"] * include_released
    with deployed.google_errors():
        code = orphan_sweep.main(argv, command=COMMAND)
    raise typer.Exit(code)
