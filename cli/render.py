"""`spot-training render STACK [TEAM/JOB | TEAM]... [--summary] [--out DIR]`: every job of a
stack (or those named) as the CustomJob request the provider will submit, offline
(offline/render.py), with the settings that change what runs or what it costs.

Exit 0 with the render on stdout (notes on values only a deploy knows on
stderr), 1 for a stack that is not deployable, 2 for a stack that does not exist
or a TEAM/JOB it does not have.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import typer

from cli import arguments, deployed, offline_stack, output

if TYPE_CHECKING:
    from offline.render import RenderedJob, Section


def register(app: typer.Typer) -> None:
    app.command(name="render")(render)


def render(
    stack: str = arguments.STACK,
    only: list[str] = typer.Argument(
        None, metavar="TEAM/JOB|TEAM", help="render only these jobs, or a team's jobs (default: every job)", show_default=False
    ),
    summary: bool = typer.Option(False, "--summary", help="the tables only (jobs, settings, prices): no request bodies"),
    out: Path | None = typer.Option(None, "--out", metavar="DIR", help="write <team>-<job>.json request bodies into DIR (to read and diff, not to submit)"),
) -> None:
    """Print each job's machines, settings (wait, rerun, delete, replace, fallback ladder), price per hour and request body, offline.

    \b
    Examples:
      spot-training render dev                      every job of stack dev
      spot-training render dev vision/resnet-smoke  one job
      spot-training render dev vision --summary     team vision's jobs, tables
      spot-training render dev --out bodies/
          each body into bodies/<team>-<job>.json
    """
    from offline import render as offline_render
    from stack_config.prices import table

    for name in only or []:  # the names first: a typo is a usage error before the stack is rendered
        if "/" in name:
            deployed.team_job(name)
    if out is not None and (why := _unwritable(out)):  # and the directory, or the render would stop half printed
        output.error(f"--out {out}: cannot write the request bodies there: {why}")
        raise typer.Exit(2)
    jobs = offline_stack.rendered_jobs(stack)  # a bad spot-training:prices fails here, by its path, as validate says
    if only:
        jobs = _chosen(jobs, only, stack)
    # A body is JSON to copy: printed as it is, whatever the terminal. The tables keep to a terminal's
    # width; piped, they are plain columns, the same as `python -m offline.render`.
    show = _wrapped if output.out.is_terminal else offline_render.print_plain
    for note in offline_render.print_render(jobs, out, table(stack), bodies=not summary, show=show):
        output.note(note)
    from offline import credentials

    # Printed as written (the render is what is submitted), but not without saying so: `validate` refuses it.
    for found in credentials.findings(stack):
        output.warning(f"{found}; `validate` and the policy pack's {credentials.POLICY} refuse it: keep it in Secret Manager (docs/secrets.md)")


def _unwritable(out: Path) -> str | None:
    """Why the bodies cannot be written into `out` (made by the render if it does not exist), or None.
    Nothing is made here: a stack that turns out not to exist leaves no empty directory behind."""
    import os

    existing = next(p for p in (out.absolute(), *out.absolute().parents) if p.exists())
    if not existing.is_dir():
        return "a file, not a directory" if existing == out.absolute() else f"{existing} is a file, not a directory"
    if not os.access(existing, os.W_OK | os.X_OK):
        return f"{existing} is not writable"
    return None


def _chosen(jobs: list[RenderedJob], only: list[str], stack: str) -> list[RenderedJob]:
    """The jobs `only` names (TEAM/JOB, or TEAM for all of a team's), in the render's order; exit 2
    naming the first name the stack does not have, with the nearest one."""
    import difflib

    names = [f"{j.team}/{j.job}" for j in jobs]
    teams = sorted({j.team for j in jobs})
    for name in only:
        if "/" in name and name not in names:
            output.error(deployed.not_a_job(name, stack, names))
            raise typer.Exit(2)
        if "/" not in name and name not in teams:
            near = difflib.get_close_matches(name, teams, n=1)
            output.error(f"{name} is not a team of stack {stack} (its teams: {', '.join(teams)}){f'; did you mean {near[0]}?' if near else ''}")
            raise typer.Exit(2)
    return [j for j in jobs if f"{j.team}/{j.job}" in only or j.team in only]


def _wrapped(section: Section) -> None:
    """A section on a terminal: its title and the lines under it wrapped, the table as it is where it
    fits the width, else folded (one field a line): a value is never cut (offline/table.py)."""
    from rich.text import Text

    from offline import table as tables

    if section.title:
        output.out.print(Text(section.title), soft_wrap=False)
    grid = tables.grid(section.header, section.rows, boxed=False)
    if tables.fits(grid, output.out.width):
        output.out.print(grid, soft_wrap=False)
    else:
        key = 2 if tuple(section.header[:2]) == ("TEAM", "JOB") else 1
        output.out.print(Text(tables.folded(section.header, section.rows, output.out.width, key)), soft_wrap=True)
    for line in section.after:
        output.out.print(Text(line), soft_wrap=False)
