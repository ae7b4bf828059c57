"""The one table printer, on rich: boxed on a terminal, columns of plain text otherwise.

Plain text (two spaces between left-aligned columns, no trailing blanks) is
what `status`, `sweep` and `render` print when piped or in CI: greppable and
diffable, and what their tests and docs/cli.md show. Here, in the lowest layer
that prints a table (the render), so that operations/ and cli/ use it too.
"""

from __future__ import annotations

import io
from collections.abc import Iterable, Sequence

from rich.console import Console
from rich.table import Table
from rich.text import Text


def grid(header: Sequence[str], rows: Iterable[Sequence[object]], title: str | None = None, boxed: bool = True) -> Table:
    """A rich Table of `rows` under `header`; every cell is text as it is (a `[x]` in a name is no markup)."""
    table = Table(*header, title=title, header_style="bold") if boxed else Table(
        *header, box=None, show_edge=False, pad_edge=False, padding=(0, 1), header_style=None
    )
    for column in table.columns:
        column.no_wrap, column.overflow = True, "ignore"  # a long URL stays whole, as it was written
    for row in rows:
        table.add_row(*(Text(str(cell)) for cell in row))
    return table


def plain(header: Sequence[str], rows: Iterable[Sequence[object]]) -> str:
    """The table as columns of plain text, no colour, whatever the terminal."""
    buffer = io.StringIO()
    console = Console(file=buffer, width=1_000_000, color_system=None, highlight=False, emoji=False, markup=False)
    console.print(grid(header, rows, boxed=False))
    return "\n".join(line.rstrip() for line in buffer.getvalue().splitlines())
