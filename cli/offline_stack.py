"""What the offline verbs share: the stack rendered under the offline mocks, or
the verb's exit with one clean message (1 for an invalid stack, 2 for none)."""

from __future__ import annotations

from typing import TYPE_CHECKING

import typer

if TYPE_CHECKING:
    from offline.render import RenderedJob

from cli import output


def rendered_jobs(stack: str) -> list[RenderedJob]:
    """The stack's jobs (offline.render.RenderedJob, sorted by team then job)."""
    import pulumi

    from offline.program import UnknownStack
    from offline.render import render

    try:
        with output.progress(f"rendering {stack} under the offline mocks"):
            return render(stack)
    except UnknownStack as problem:
        output.error(str(problem))
        raise typer.Exit(2) from None
    except pulumi.RunError as problem:  # ConfigError, StackFileError, SpecError: one message listing every failure
        output.error(str(problem))
        raise typer.Exit(1) from None
