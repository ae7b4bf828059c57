"""The command's output: rich on a terminal, plain text when piped or in CI."""

import io

from rich.console import Console

from cli import output


def test_progress_shows_a_spinner_on_a_terminal_and_nothing_when_piped(monkeypatch):
    terminal = io.StringIO()
    monkeypatch.setattr(output, "err", Console(file=terminal, force_terminal=True))
    with output.progress("rendering dev"):
        pass
    assert "rendering dev" in terminal.getvalue()

    piped = io.StringIO()
    monkeypatch.setattr(output, "err", Console(file=piped, force_terminal=False))
    with output.progress("rendering dev"):
        pass
    assert piped.getvalue() == ""


def test_a_table_is_plain_columns_when_piped_and_boxed_on_a_terminal(monkeypatch, capsys):
    monkeypatch.setattr(output, "out", Console(file=io.StringIO(), force_terminal=False))
    output.table(("JOB", "STATE"), [("vision/resnet", "JOB_STATE_RUNNING")])
    assert capsys.readouterr().out.splitlines() == ["JOB            STATE", "vision/resnet  JOB_STATE_RUNNING"]

    boxed = io.StringIO()
    monkeypatch.setattr(output, "out", Console(file=boxed, force_terminal=True, width=80))
    output.table(("JOB", "STATE"), [("vision/resnet", "JOB_STATE_RUNNING")])
    assert "│" in boxed.getvalue() or "┃" in boxed.getvalue()


def test_a_cell_is_shown_as_written_on_a_terminal_not_read_as_markup(monkeypatch):
    """A display name such as `resnet [bold]` is the user's text: rich must not eat its brackets."""
    boxed = io.StringIO()
    monkeypatch.setattr(output, "out", Console(file=boxed, force_terminal=True, width=120, color_system=None))
    output.table(("JOB", "DISPLAY NAME"), [("vision/resnet", "resnet [bold]v2[/bold]")])
    assert "resnet [bold]v2[/bold]" in boxed.getvalue()
