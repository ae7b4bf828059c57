"""The `spot-training` command: one verb per module of cli/, each working
without the Pulumi CLI unless its help says otherwise.

    uv run spot-training validate dev
    uv run spot-training --help
"""

from __future__ import annotations

import os
import sys

import typer

from cli import argument_names, cancel, diff, logs, output, policy, render, report, sandbox, status, sweep, validate

argument_names.install()

app = typer.Typer(
    name="spot-training",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
    # Click's plain help: a flag is a flag (rich's panels print `<bool>` beside each one), and
    # an example block (\b) keeps its lines; it reads the same on a terminal and in a pipe.
    rich_markup_mode=None,
    context_settings={"help_option_names": ["-h", "--help"]},
)


def _version(shown: bool) -> None:
    if shown:
        from importlib.metadata import version

        print(f"spot-training {version('spot-training')}")
        raise typer.Exit()


@app.callback()
def _verbs(
    version: bool = typer.Option(False, "--version", callback=_version, is_eager=True, help="print the version and exit"),
) -> None:
    """Day-two commands for spot-training stacks: validate, render, check policy, diff, watch and cost the Spot
    training jobs of a stack.

    \b
    Examples:
      spot-training validate dev
          offline: every failure by its config path
      spot-training render dev vision/resnet-smoke
          one job's request, settings and price per hour
      spot-training diff dev
          what this branch changes, job by job
      spot-training status dev
          the jobs on Vertex AI (Google credentials)

    Each verb's --help has its own examples; docs/cli.md has every verb, its output and exit codes.
    """


# Each verb module registers its own command; add a module here to add a verb.
for verb in (validate, render, policy, diff, status, report, cancel, logs, sweep, sandbox):
    verb.register(app)
# The command list shows each verb's first paragraph whole (click cuts it at about 45 characters with "...").
for command in app.registered_commands:
    if command.short_help is None and command.callback is not None and command.callback.__doc__:
        command.short_help = " ".join(command.callback.__doc__.strip().split("\n\n")[0].split())


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
