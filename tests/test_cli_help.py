"""Every verb's --help as a user reads it in an 80-column terminal: no line over 80
columns, each argument by what it is (STACK, TEAM/JOB), never by its Python type
(`<str>`, `<list[str]>`) or braced in the usage line."""

from __future__ import annotations

import pytest

from cli.app import app
from tests.cli_runner import spot_training, spot_training_in_process


def verbs() -> list[tuple[str, ...]]:
    found: list[tuple[str, ...]] = [()]
    for command in app.registered_commands:
        found.append((command.name or "",))
    for group in app.registered_groups:
        found.append((group.name or "",))
        found += [(group.name or "", c.name or "") for c in group.typer_instance.registered_commands]
    return found


@pytest.mark.parametrize("verb", verbs(), ids=lambda v: " ".join(v) or "spot-training")
def test_help_fits_80_columns_and_names_each_argument_by_what_it_is(verb):
    done = spot_training_in_process(*verb, "--help", env={"COLUMNS": "80"})
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert not [line for line in lines if len(line) > 80], "\n".join(line for line in lines if len(line) > 80)
    assert "<str>" not in done.stdout and "<list" not in done.stdout and "<int>" not in done.stdout
    usage = next(line for line in lines if line.startswith("Usage:"))
    assert "{" not in usage, usage


def test_the_usage_line_reads_as_a_command_line():
    done = spot_training("render", "--help")  # as a user runs it: the entry point, its own terminal width
    assert "Usage: spot-training render [OPTIONS] STACK [TEAM/JOB|TEAM]..." in done.stdout
    logs = spot_training_in_process("logs", "--help").stdout
    assert "Usage: spot-training logs [OPTIONS] STACK TEAM/JOB" in logs
    assert "\n  STACK     a stack of stacks/, e.g. dev  [required]" in logs
