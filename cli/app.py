"""The `spot-training` command: one verb per module of cli/, each working
without the Pulumi CLI unless its help says otherwise.

    uv run spot-training validate dev
    uv run spot-training --help
"""

from __future__ import annotations

import typer

from cli import cancel, diff, logs, status, sweep, validate

app = typer.Typer(
    name="spot-training",
    help="Day-two commands for spot-training stacks.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)


@app.callback()
def _verbs() -> None:
    """Validate, render, check policy, diff, and watch the Spot training jobs of a stack."""


# Each verb module registers its own command; add a module here to add a verb.
for verb in (validate, diff, status, cancel, logs, sweep):
    verb.register(app)


def main() -> None:
    # typer's standalone mode: a usage error is one message and exit 2; a verb exits with its own code.
    app()
