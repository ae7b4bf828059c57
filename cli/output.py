"""Where the command line writes: rich tables and colour on a terminal, plain
text when piped or in CI (NO_COLOR and TERM=dumb are honoured by rich)."""

from __future__ import annotations

import contextlib
import sys
from collections.abc import Iterable, Iterator, Sequence

from rich.console import Console
from rich.markup import escape

from offline import table as tables

out = Console(soft_wrap=True, highlight=False)
err = Console(stderr=True, soft_wrap=True, highlight=False)


def table(header: Sequence[str], rows: Iterable[Sequence[str]], title: str | None = None) -> None:
    """A table: boxed on a terminal, columns of plain text otherwise (greppable, diffable)."""
    if out.is_terminal:
        out.print(tables.grid(header, rows, title=title))
        return
    if title:
        print(title)
    print(tables.plain(header, rows))


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
