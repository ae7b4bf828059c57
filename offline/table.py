"""The one table printer, on rich: boxed on a terminal, columns of plain text otherwise.

On a terminal too narrow for the table (an 80-column one, say), the table is
folded instead: each row a block, one field a line, `NAME  value`, the value
wrapped at its spaces. A value is never cut: a word longer than the room left
(a console URL) stands whole on its line, for the terminal to wrap and a copy
to take whole.

Plain text (two spaces between left-aligned columns, no trailing blanks) is
what `status`, `sweep` and `render` print when piped or in CI: greppable and
diffable, and what their tests and docs/cli.md show. Here, in the lowest layer
that prints a table (the render), so that operations/ and cli/ use it too.
"""

from __future__ import annotations

import io
import textwrap
from collections.abc import Iterable, Sequence

from rich.console import Console
from rich.measure import Measurement
from rich.table import Table
from rich.text import Text


def grid(header: Sequence[str], rows: Iterable[Sequence[object]], title: str | None = None, boxed: bool = True) -> Table:
    """A rich Table of `rows` under `header`; every cell is text as it is (a `[x]` in a name is no
    markup), and stays on one line, whole (a URL to copy): `fits` says whether it fits a width."""
    table = Table(*header, title=title, header_style="bold") if boxed else Table(
        *header, box=None, show_edge=False, pad_edge=False, padding=(0, 1), header_style=None
    )
    for column in table.columns:
        column.no_wrap, column.overflow = True, "ignore"
    for row in rows:
        table.add_row(*(Text(str(cell)) for cell in row))
    return table


def plain(header: Sequence[str], rows: Iterable[Sequence[object]]) -> str:
    """The table as columns of plain text, no colour, whatever the terminal."""
    buffer = io.StringIO()
    console = Console(file=buffer, width=1_000_000, color_system=None, highlight=False, emoji=False, markup=False)
    console.print(grid(header, rows, boxed=False))
    return "\n".join(line.rstrip() for line in buffer.getvalue().splitlines())


def fits(table: Table, width: int) -> bool:
    """Whether the table, every cell on one line, is at most `width` columns wide."""
    console = Console(width=1_000_000, color_system=None)
    return Measurement.get(console, console.options, table).maximum <= width


def folded(header: Sequence[str], rows: Iterable[Sequence[object]], width: int, key: int = 1) -> str:
    """Each row as a block under its first `key` cells (joined by "/": TEAM and JOB read
    team/job): `  NAME  value`, one field a line, the value wrapped at its spaces within
    `width`; a blank line between rows."""
    names = list(header[key:])
    indent = 2 + max((len(name) for name in names), default=0) + 2
    room = max(width - indent, 20)
    blocks = []
    for row in rows:
        cells = [str(cell) for cell in row]
        lines = ["/".join(cells[:key])]
        for name, value in zip(names, cells[key:]):
            parts = textwrap.wrap(value, room, break_long_words=False, break_on_hyphens=False) or [value]
            lines.append(f"  {name:<{indent - 4}}  {parts[0]}")
            lines += [" " * indent + part for part in parts[1:]]
        blocks.append("\n".join(line.rstrip() for line in lines))
    return "\n\n".join(blocks)
