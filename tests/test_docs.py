"""docs/ stays true: every rule module has its row, with the pages it cites."""

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
RULES = ROOT / "components" / "spot_job" / "rules"
HELPERS = {"__init__.py", "known.py"}  # not rules: the list, the reader
# A source file of a repository a module cites: the API's protos, the SDK, gcloud, xpk.
REPOSITORY_PATH = re.compile(r"(?:google/cloud/aiplatform|lib/googlecloudsdk|src/xpk)/[\w/]+\.(?:proto|py)")


def test_every_rule_module_is_in_docs_rules_with_every_source_it_cites():
    table = (ROOT / "docs" / "rules.md").read_text()
    for module in sorted(RULES.glob("*.py")):
        if module.name in HELPERS:
            continue
        assert f"`rules/{module.name}`" in table, f"docs/rules.md has no row for rules/{module.name}"
        row = next(line for line in table.splitlines() if f"`rules/{module.name}`" in line)
        text = module.read_text()
        for url in set(re.findall(r"https://[^\s)\"'`,]+", text)):
            assert url in row, f"rules/{module.name} cites {url}, its row in docs/rules.md does not"
        for path in set(REPOSITORY_PATH.findall(text)):
            assert path in row, f"rules/{module.name} rests on {path}, its row in docs/rules.md does not say so"


def test_docs_rules_gives_every_row_of_the_two_tables_its_source():
    """Issue 23.14: each row of the accelerator and machine tables is in docs/rules.md with its source and date."""
    from components.spot_job.rules import gpu_machines, region_offers, tpu_machines
    from stack_config.regions import VERTEX_AI_REGIONS

    rows = {}
    for line in (ROOT / "docs" / "rules.md").read_text().splitlines():
        if line.startswith("| `"):
            rows[line.split("`")[1]] = line
    for key in [*VERTEX_AI_REGIONS, *gpu_machines.ATTACHED, *tpu_machines.MACHINES, tpu_machines.LEGACY_MACHINE]:
        assert key in rows, f"docs/rules.md has no row for {key}"
        assert re.search(r"20\d\d-\d\d-\d\d", rows[key]), f"the row for {key} gives no date"
    for region in region_offers.UNVERIFIED_REGIONS:
        assert "unverified" in rows[region]


def test_docs_rules_names_only_modules_that_exist():
    table = (ROOT / "docs" / "rules.md").read_text()
    for name in re.findall(r"`rules/([a-z_]+\.py)`", table):
        assert (RULES / name).is_file(), f"docs/rules.md names rules/{name}, which does not exist"


def _blocks(page: str, language: str) -> list[str]:
    return re.findall(rf"```{language}\n(.*?)```", (ROOT / "docs" / page).read_text(), re.S)


def test_the_lifecycle_docs_python_example_registers_the_job_it_shows():
    import pulumi

    from tests.program import render_components

    [example] = _blocks("lifecycle.md", "python")
    trainer_image = "us-central1-docker.pkg.dev/acme-ml-dev/vision/trainer@sha256:" + "0" * 64

    def program():
        # What the stack's config gives every program: the job's project and location default to them.
        pulumi.runtime.set_all_config({"gcp:project": "acme-ml-dev", "gcp:region": "us-central1"})
        exec(example, {"trainer_image": trainer_image})

    try:
        recorder = render_components(program)
    finally:
        pulumi.runtime.set_all_config({})
    [job] = recorder.of_type("SpotTrainingJob")
    pool = job.inputs["jobSpec"]["workerPoolSpecs"][0]
    assert pool["containerSpec"] == {"imageUri": trainer_image, "args": ["--epochs=3"]}
    assert job.inputs["resubmission"]["fallback"] == [{"afterStockouts": 3, "strategy": "auto"}]
    assert job.inputs["waitFor"] == "running"


def test_the_lifecycle_docs_fallback_ladder_is_a_valid_policy_for_the_readmes_t4_job():
    import yaml

    from components.spot_job import spec
    from tests.fixtures import job_inputs

    ladders = [yaml.safe_load(b) for b in _blocks("lifecycle.md", "yaml") if "resubmission:" in b]
    assert ladders
    for ladder in ladders:
        inputs = job_inputs(**ladder)
        inputs["jobSpec"]["workerPoolSpecs"][0]["machineSpec"] = {
            "machineType": "n1-standard-8", "acceleratorType": "NVIDIA_TESLA_T4", "acceleratorCount": 1,
        }
        assert spec.validate(inputs) == []


def test_the_review_docs_render_example_is_what_the_render_prints():
    from offline import render as offline_render

    page = (ROOT / "docs" / "review.md").read_text()
    shown = re.search(r"`uv run spot-training render prod` begins:\n\n\s*```\n(.*?)```", page, re.S).group(1)
    printed = offline_render.summary(offline_render.render("prod"))
    assert [line.strip() for line in shown.strip().splitlines()] == [line.strip() for line in printed.splitlines()]


STACK_FILES = sorted((ROOT / "stacks").glob("Pulumi.*.yaml"))


def _header(path: Path) -> str:
    """The comment block a stack file opens with."""
    lines = path.read_text().splitlines()
    return "\n".join(line for line in lines[: next(i for i, line in enumerate(lines) if not line.startswith("#"))])


def test_each_example_stack_says_at_its_top_what_to_replace_before_a_deploy():
    """Issue 30.7: an image pushed by hand ({name, tag}) has no source here, and the project, the
    deployers and the members are Acme's: the top of the file says so, key by key."""
    import yaml

    for path in STACK_FILES:
        header, config = _header(path), yaml.safe_load(path.read_text())["config"]
        assert "replace" in header.lower(), f"{path.name} does not say what to replace"
        for key in ("gcp:project", "spot-training:deployers", "members"):
            assert key in header, f"{path.name}'s header does not name {key}"
        for team, entry in config["spot-training:teams"].items():
            for key, image in (entry.get("images") or {}).items():
                if "build" not in image:  # pushed by hand: its source is not in this repository
                    assert f"teams.{team}.images.{key}" in header, f"{path.name}'s header does not name {team}'s image {key}"


def test_the_dev_stacks_way_to_deploy_without_an_image_of_your_own_validates(tmp_path):
    """The header's alternative (the example trainer, built by the stack) is a stack `validate` passes."""
    from tests.cli_runner import spot_training

    text = (ROOT / "stacks" / "Pulumi.dev.yaml").read_text()
    build = re.search(r"^#\s+(trainer: \{build: .*\})$", _header(ROOT / "stacks" / "Pulumi.dev.yaml"), re.M).group(1)
    args = re.search(r"^#.*resnet-smoke.*(args: \[.*\])", _header(ROOT / "stacks" / "Pulumi.dev.yaml"), re.M).group(1)
    text = text.replace('trainer: {name: trainer, tag: "2026-11-30"}', build).replace('args: ["--epochs=1"]', args)
    (tmp_path / "Pulumi.dev.yaml").write_text(text)
    done = spot_training("render", "dev", "vision/resnet-smoke", "--summary", stacks_dir=tmp_path)
    assert done.returncode == 0, done.stderr
    assert "trainer (built at deploy)" in done.stdout
