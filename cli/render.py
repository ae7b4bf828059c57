"""`spot-training render STACK [--out DIR]`: every job of a stack as the
CustomJob request the provider will submit, offline (offline/render.py), with
the settings that change what runs or what it costs.

Exit 0 with the render on stdout (notes on values only a deploy knows on
stderr), 1 for a stack that is not deployable, 2 for a stack that does not exist.
"""

from __future__ import annotations

from pathlib import Path

import typer

from cli import arguments, offline_stack, output


def register(app: typer.Typer) -> None:
    app.command(name="render")(render)


def render(
    stack: str = arguments.STACK,
    out: Path | None = typer.Option(None, "--out", help="write <team>-<job>.json request bodies into this directory"),
) -> None:
    """Print each job's request body, sorted by team then job, its settings (wait, rerun, delete, replace, fallback ladder) and its price per hour."""
    from offline import render as offline_render
    from stack_config.prices import table

    jobs = offline_stack.rendered_jobs(stack)  # a bad spot-training:prices fails here, by its path, as validate says
    # Plain text on a terminal too: the bodies are JSON to copy, and the output is the same as `python -m offline.render`.
    for note in offline_render.print_render(jobs, out, table(stack)):
        output.note(note)
    from offline import credentials

    # Printed as written (the render is what is submitted), but not without saying so: `validate` refuses it.
    for found in credentials.findings(stack):
        output.warning(f"{found}; `validate` and the policy pack's {credentials.POLICY} refuse it: keep it in Secret Manager (docs/secrets.md)")
