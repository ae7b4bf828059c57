"""An 80-column terminal for the command line's tables, as a new user's is: the CLI's rich
console forced to a terminal of that width, and the check of what it printed, that no line
is over the width and no value is cut."""

from __future__ import annotations

import re

WIDTH = 80


def at_80_columns(monkeypatch) -> None:
    """From here on in this test, the CLI prints as to an 80-column terminal."""
    from rich.console import Console

    from cli import output

    monkeypatch.setattr(output, "out", Console(force_terminal=True, width=WIDTH, color_system=None, soft_wrap=True, highlight=False))


def cells(plain: str) -> list[str]:
    """Every cell of the tables a piped run printed: columns are two or more spaces apart."""
    return [cell for line in plain.splitlines() if "  " in line.strip() for cell in re.split(r"\s{2,}", line.strip())]


def assert_fits_and_cuts_nothing(shown: str, plain: str, varies: str = r"(?!)") -> None:
    """No line of `shown` over WIDTH but one that is a field's name and a single unbroken value
    (a URL, whole for a copy); every cell of the piped run's tables found whole in `shown`, but
    those matching `varies` (a figure that moves between the two runs, as a running job's hours)."""
    for line in shown.splitlines():
        if len(line) > WIDTH:
            assert len(line.split()) <= 2 and len(line.split()[-1]) > WIDTH // 2, f"over {WIDTH} columns: {line!r}"
    flowing = " ".join(shown.split())
    for cell in cells(plain):
        if re.fullmatch(r"[A-Z_ ]+", cell) or re.fullmatch(varies, cell):
            continue  # a column's name: a folded row is titled by its key cells (team/job), not their names
        assert " ".join(cell.split()) in flowing, f"cut or missing at {WIDTH} columns: {cell!r}"
