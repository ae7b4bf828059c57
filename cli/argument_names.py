"""Each verb's arguments shown in --help by what they are (STACK, TEAM/JOB), as click
prints them, not as typer 0.2x does: it adds the Python type beside the name
("STACK <str>", "JOBS <list[str]>") and braces a required argument in the usage line
("{STACK}"). An argument's metavar already says what to type, so where one is set the
type is left out, and the usage line reads `STACK [TEAM/JOB]...` as click's own does.

typer has no setting for either, so its TyperArgument is given these two methods once,
when cli/app.py is imported; tests/test_cli_help.py fails if a typer upgrade brings the
old shapes back.
"""

from __future__ import annotations

from typing import Any

from typer.core import TyperArgument

_typer_display_type = TyperArgument.display_type_rich


def _display_type(self: TyperArgument, ctx: Any) -> str | None:
    return None if self.metavar is not None else _typer_display_type(self, ctx)


def _usage_name(self: TyperArgument) -> str:
    name = self.display_name_raw
    if not self.required:
        name = f"[{name}]"
    return f"{name}..." if self.nargs != 1 else name


def install() -> None:
    TyperArgument.display_type_rich = _display_type  # type: ignore[method-assign, assignment]  # typer has no setting for it
    TyperArgument._usage_display_name = _usage_name  # type: ignore[method-assign]  # typer has no setting for it
