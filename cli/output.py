"""Where the command line writes: rich tables and colour on a terminal, plain
text when piped or in CI (NO_COLOR and TERM=dumb are honoured by rich)."""

from __future__ import annotations

import contextlib
import sys
from collections.abc import Iterable, Iterator, Sequence

from rich.console import Console
from rich.markup import escape
from rich.text import Text

from offline import table as tables

out = Console(soft_wrap=True, highlight=False)
err = Console(stderr=True, soft_wrap=True, highlight=False)


def table(header: Sequence[str], rows: Iterable[Sequence[str]], title: str | None = None) -> None:
    """A table: boxed on a terminal (folded, one field a line, where it would not fit its
    width), columns of plain text otherwise (greppable, diffable)."""
    if out.is_terminal:
        rows = list(rows)
        grid = tables.grid(header, rows, title=title)
        if tables.fits(grid, out.width):
            out.print(grid)
            return
        if title:
            out.print(Text(title), soft_wrap=False)
        out.print(Text(tables.folded(header, rows, out.width)), soft_wrap=True)
        return
    if title:
        print(title)
    print(tables.plain(header, rows))


def line(text: str) -> None:
    """A line of prose: wrapped at the width on a terminal, as it is otherwise."""
    if out.is_terminal:
        out.print(Text(text), soft_wrap=False)
    else:
        print(text)


def error(message: str) -> None:
    """One clean message, never a traceback."""
    if err.is_terminal:
        err.print(f"[bold red]error:[/] {escape(message)}")
    else:
        print(f"error: {message}", file=sys.stderr)


def warning(message: str) -> None:
    if err.is_terminal:
        err.print(f"[bold yellow]warning:[/] {escape(message)}")
    else:
        print(f"warning: {message}", file=sys.stderr)


def note(message: str) -> None:
    if err.is_terminal:
        err.print(f"[yellow]note:[/] {escape(message)}")
    else:
        print(f"note: {message}", file=sys.stderr)


@contextlib.contextmanager
def progress(message: str) -> Iterator[None]:
    """A spinner with what is being done, on a terminal only (stderr); nothing when piped or in CI."""
    if not err.is_terminal:
        yield
        return
    with err.status(escape(message)):
        yield
