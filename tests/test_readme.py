"""The README's stack config example is a real stack: it renders."""

import re

import yaml

from tests.program import ROOT, render


def readme_stack_example() -> dict:
    text = (ROOT / "README.md").read_text()
    section = text[text.index("## Stack config reference") :]
    block = re.search(r"```yaml\n(.*?)```", section, re.S).group(1)
    return yaml.safe_load(block)["config"]


def test_the_readme_stack_example_renders_its_jobs():
    config = readme_stack_example()
    jobs = render(config).of_type("SpotTrainingJob")
    assert sorted(j.name for j in jobs) == ["vision-resnet-smoke", "vision-tabular-baseline"]
