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


def grid(
    header: Sequence[str], rows: Iterable[Sequence[object]], title: str | None = None, boxed: bool = True, wrap: bool = False
) -> Table:
    """A rich Table of `rows` under `header`; every cell is text as it is (a `[x]` in a name is no markup).

    Without `wrap` a cell stays on one line, whole (a URL to copy); with it, the table keeps
    to the console's width: a cell wraps at its spaces, and a word longer than its column folds."""
    # Wrapped, a header breaks between its words (REPLACE_ORDER over two lines), never inside one.
    shown = [h.replace("_", " ") for h in header] if wrap else list(header)
    table = Table(*shown, title=title, header_style="bold") if boxed else Table(
        *shown, box=None, show_edge=False, pad_edge=False, padding=(0, 1), header_style=None
    )
    for column, name in zip(table.columns, shown):
        column.no_wrap, column.overflow = (False, "fold") if wrap else (True, "ignore")
        if wrap:
            column.min_width = max(len(word) for word in name.split())
    for row in rows:
        table.add_row(*(Text(str(cell)) for cell in row))
    return table


def plain(header: Sequence[str], rows: Iterable[Sequence[object]]) -> str:
    """The table as columns of plain text, no colour, whatever the terminal."""
    buffer = io.StringIO()
    console = Console(file=buffer, width=1_000_000, color_system=None, highlight=False, emoji=False, markup=False)
    console.print(grid(header, rows, boxed=False))
    return "\n".join(line.rstrip() for line in buffer.getvalue().splitlines())
