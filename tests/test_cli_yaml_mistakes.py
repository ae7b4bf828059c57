"""A YAML mistake in a stack file is the user's, not a bug: every verb that reads the file says it
once, with its line, and exits 1 (issue 39)."""

from __future__ import annotations

import pytest

from tests.cli_runner import ROOT, spot_training_in_process

DEV = (ROOT / "stacks" / "Pulumi.dev.yaml").read_text()
MISTAKES = {
    "unclosed": (DEV.replace("allowedStrategies: [SPOT, FLEX_START]", "allowedStrategies: [SPOT, FLEX_START"), "not valid YAML"),
    "tab": (DEV.replace("  gcp:region: us-central1", "\tgcp:region: us-central1"), "not valid YAML"),
    "indent": (DEV.replace("  gcp:region: us-central1", "   gcp:region: us-central1"), "not valid YAML"),
    "duplicate": (DEV.replace("        eval:\n", "        eval:\n          workerPoolSpecs: []\n        eval:\n", 1), "duplicate key 'eval'"),
}


@pytest.mark.parametrize("verb", ["validate", "render", "policy", "diff"])
@pytest.mark.parametrize("mistake", sorted(MISTAKES))
def test_a_yaml_mistake_is_said_once_by_every_verb_and_exits_1(verb, mistake, tmp_path):
    text, said = MISTAKES[mistake]
    assert text != DEV
    (tmp_path / "Pulumi.broken.yaml").write_text(text)
    result = spot_training_in_process(verb, "broken", stacks_dir=tmp_path)
    assert result.returncode == 1, result.stdout + result.stderr
    assert result.stderr.count(said) == 1, result.stderr
    assert "a bug" not in result.stderr and "unexpected" not in result.stderr and "Traceback" not in result.stderr
    assert f"{tmp_path / 'Pulumi.broken.yaml'}:" in result.stderr  # where: the file and its line
