"""The `spot-training` command: one verb per module of cli/, each working
without the Pulumi CLI unless its help says otherwise.

    uv run spot-training validate dev
    uv run spot-training --help
"""

from __future__ import annotations

import os
import sys

import typer

from cli import cancel, diff, logs, output, policy, render, report, status, sweep, validate

app = typer.Typer(
    name="spot-training",
    help="Day-two commands for spot-training stacks.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)


@app.callback()
def _verbs() -> None:
    """Validate, render, check policy, diff, watch and cost the Spot training jobs of a stack."""


# Each verb module registers its own command; add a module here to add a verb.
for verb in (validate, render, policy, diff, status, report, cancel, logs, sweep):
    verb.register(app)


# Set to see the traceback of an unexpected failure (a bug to report) instead of its one line.
DEBUG_ENV = "SPOT_TRAINING_DEBUG"


def main() -> None:
    # typer's standalone mode: a usage error is one message and exit 2; a verb exits with its own code.
    try:
        app()
    except KeyboardInterrupt:
        sys.exit(130)
    except Exception as problem:  # noqa: BLE001 - every expected error is handled by its verb; this is a bug
        if os.environ.get(DEBUG_ENV):
            raise
        output.error(f"unexpected {type(problem).__name__}: {problem} (a bug: {DEBUG_ENV}=1 shows its traceback)")
        sys.exit(3)
    finally:
        if "offline.program" in sys.modules:  # a verb rendered: close the mocks' loops, or their __del__ may print at exit
            sys.modules["offline.program"].close_event_loops()
