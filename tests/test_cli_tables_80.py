"""The tables of render --summary, status and sweep in an 80-column terminal: they fold
(one field a line) where they do not fit, never cut a value (report's are in
test_cli_report.py, beside its scene). Each is checked against the same command piped."""

from __future__ import annotations

import json

import pytest

from tests.cli_runner import spot_training_in_process
from tests.module_emulator import _emulator, bodies, emulator  # noqa: F401 (fixtures)
from tests.terminal import assert_fits_and_cuts_nothing, at_80_columns
from tests.test_cli_operations import env, export, scene  # noqa: F401 (fixtures)


@pytest.mark.parametrize("stack", ["dev", "prod"])
def test_render_summary_at_80_columns_folds_and_cuts_nothing(stack, monkeypatch):
    plain = spot_training_in_process("render", stack, "--summary").stdout
    at_80_columns(monkeypatch)
    shown = spot_training_in_process("render", stack, "--summary").stdout
    assert_fits_and_cuts_nothing(shown, plain)
    if stack == "prod":  # the strategy ladder, whole
        flowing = " ".join(shown.split())
        assert "SPOT in europe-west4 → after 2 stockouts SPOT in europe-west1 → after 4 stockouts STANDARD in europe-west1 (on-demand price)" in flowing


def test_status_at_80_columns_folds_and_keeps_each_console_link_whole(emulator, scene, monkeypatch):
    plain = spot_training_in_process("status", "dev", env=env(emulator)).stdout
    at_80_columns(monkeypatch)
    shown = spot_training_in_process("status", "dev", env=env(emulator)).stdout
    assert_fits_and_cuts_nothing(shown, plain)
    second_id = scene["second"].rsplit("/", 1)[1]
    assert f"https://console.cloud.google.com/agent-platform/locations/us-central1/training/{second_id}?project=acme-ml-dev" in shown


def test_sweep_at_80_columns_folds_and_cuts_nothing(emulator, scene, tmp_path, monkeypatch):
    state = tmp_path / "dev-state.json"
    state.write_text(json.dumps(export(scene["first"], scene["second"])))
    plain = spot_training_in_process("sweep", "dev", "--state", str(state), env=env(emulator)).stdout
    at_80_columns(monkeypatch)
    shown = spot_training_in_process("sweep", "dev", "--state", str(state), env=env(emulator)).stdout
    assert "ORPHANED" in shown and scene["eval"] in shown
    assert_fits_and_cuts_nothing(shown, plain)
