"""`spot-training validate STACK`: the stack config and every job, checked as
`pulumi preview` would check them, offline; every failure by its config path.

Exit 0 when the stack is deployable, 1 when it is not (the failures on
stderr), 2 for a stack that does not exist.
"""

from __future__ import annotations

import typer

from cli import arguments, offline_stack, output


def register(app: typer.Typer) -> None:
    app.command(name="validate")(validate)


def validate(stack: str = arguments.STACK) -> None:
    """Check the stack config and every job's spec, offline, listing every failure by path.

    \b
    Examples:
      spot-training validate dev
      spot-training validate prod
    """
    jobs = offline_stack.rendered_jobs(stack)
    teams = sorted({job.team for job in jobs})
    output.out.print(f"{stack}: valid ({len(jobs)} jobs of {len(teams)} teams: {', '.join(teams)})", markup=False)
