"""`spot-training validate STACK`: the stack config and every job, checked as
`pulumi preview` would check them, offline; every failure by its config path.

A credential written into a job's env, args or command is a failure too: the
policy pack's mandatory job-env-no-credentials refuses it at `pulumi preview`,
and `validate` runs the same detector (offline/credentials.py), by config path.

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
    try:
        jobs = offline_stack.rendered_jobs(stack)
    except typer.Exit as exited:
        if exited.exit_code == 1 and _readable(stack):  # the config's errors are out: its credentials go beside them
            _credentials(stack)
        raise
    if _credentials(stack):
        raise typer.Exit(1)
    teams = sorted({job.team for job in jobs})
    output.out.print(f"{stack}: valid ({len(jobs)} jobs of {len(teams)} teams: {', '.join(teams)})", markup=False)
    # What validate does not run: the rest of the pack, which needs its own environment (policy/.venv).
    output.note(f"the policy pack checks more (pinned images, strategies, CMEK, residency, budget): spot-training policy {stack}")


def _readable(stack: str) -> bool:
    """Whether the stack file is YAML at all: a file that is not was reported already, once, with its line."""
    from stack_config import stack_file

    try:
        stack_file.read(stack)
    except stack_file.StackFileError:
        return False
    return True


def _credentials(stack: str) -> bool:
    """Print the credentials written into the stack's jobs as one error; whether there were any."""
    from offline import credentials

    found = credentials.findings(stack)
    if found:
        output.error(
            f"a credential written into a job (the policy pack's {credentials.POLICY} refuses it too):\n  "
            + "\n  ".join(found)
            + f"\n{credentials.advice()}"
        )
    return bool(found)
