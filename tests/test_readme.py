"""The README and the config reference are true: their examples are real, their links lead somewhere."""

import re

import yaml

from tests.program import ROOT, render


def readme_stack_example() -> dict:
    text = (ROOT / "docs" / "config.md").read_text()
    section = text[text.index("# Stack config reference") :]
    block = re.search(r"```yaml\n(.*?)```", section, re.S).group(1)
    return yaml.safe_load(block)["config"]


def test_the_readme_stack_example_renders_its_jobs():
    config = readme_stack_example()
    jobs = render(config).of_type("SpotTrainingJob")
    assert sorted(j.name for j in jobs) == ["vision-resnet-smoke", "vision-tabular-baseline"]


def test_the_readme_is_a_front_door_of_at_most_200_lines():
    assert len((ROOT / "README.md").read_text().splitlines()) <= 200


def test_every_relative_link_of_the_readme_and_docs_leads_to_a_file_and_heading_that_exist():
    import re

    pages = [ROOT / "README.md", ROOT / "BENCHMARKS.md", *sorted((ROOT / "docs").glob("*.md"))]
    for page in pages:
        for target in re.findall(r"\]\(([^)#:]+\.md)?(#[^)]+)?\)", page.read_text()):
            path, anchor = target
            if not path and not anchor:
                continue
            file = (page.parent / path) if path else page
            assert file.is_file(), f"{page.name} links to {path}, which does not exist"
            if anchor:
                headings = re.findall(r"^#+ (.+)$", file.read_text(), re.M)
                slugs = {re.sub(r"[^a-z0-9 -]", "", h.lower()).replace(" ", "-") for h in headings}
                assert anchor[1:] in slugs, f"{page.name} links to {path}{anchor}: no such heading"


def test_benchmarks_links_every_result_file_and_each_link_leads_to_a_file():
    """BENCHMARKS.md keeps the scripts' printed output in bench/results/ and links each file from its section."""
    text = (ROOT / "BENCHMARKS.md").read_text()
    linked = set(re.findall(r"\]\((bench/results/[^)#]+)\)", text))
    for path in linked:
        assert (ROOT / path).is_file(), f"BENCHMARKS.md links to {path}, which does not exist"
    kept = {f"bench/results/{p.name}" for p in (ROOT / "bench" / "results").glob("*.txt")}
    assert kept and kept <= linked, f"bench/results files no section links to: {sorted(kept - linked)}"


def test_benchmarks_opens_with_one_table_linking_every_section():
    """The first table of BENCHMARKS.md: every figure with its goal and met or missed, each row linking to a section."""
    text = (ROOT / "BENCHMARKS.md").read_text()
    table = re.search(r"^\| figure \|.*?\n\n", text, re.S | re.M).group(0)
    assert text.index(table) < text.index("\n## 1. ")
    rows = table.strip().splitlines()[2:]
    assert all(re.search(r"\]\(#[a-z0-9-]+\) \|$", row) for row in rows)
    sections = set(re.findall(r"^## (\d+)\. ", text, re.M))
    assert {n for n in re.findall(r"\[(\d+)\]\(#", table)} == sections
    assert "**missed**" in table


def test_the_readmes_add_a_job_example_is_a_valid_job():
    import copy

    text = (ROOT / "README.md").read_text()
    block = re.search(r"\*\*Add a job\.\*\*.*?```yaml\n(.*?)```", text, re.S).group(1)
    jobs = yaml.safe_load(block)["jobs"]
    config = readme_stack_example()
    teams = copy.deepcopy(config["spot-training:teams"])
    teams["vision"]["jobs"] = jobs
    rendered = render({**config, "spot-training:teams": teams}).of_type("SpotTrainingJob")
    assert [j.name for j in rendered if j.name.startswith("vision-")] == ["vision-resnet"]


def test_the_readmes_region_ladder_renders_as_the_readme_says(tmp_path):
    """The end-to-end section's ladder, on the walk-through's job: `render` prints the line the README quotes."""
    from tests.cli_runner import spot_training_in_process
    from tests.test_cli_render import settings_of

    text = (ROOT / "README.md").read_text()
    section = text[text.index("## When a Spot job is preempted, end to end") :]
    policy = yaml.safe_load(re.search(r"```yaml\n(.*?)```", section, re.S).group(1))["resubmission"]
    quoted = re.search(r"`spot-training render dev` prints the ladder before anything runs:\n  `([^`]+)`", section).group(1)
    config = readme_stack_example()
    config["spot-training:teams"]["vision"]["jobs"]["resnet-smoke"]["resubmission"] = policy
    (tmp_path / "Pulumi.dev.yaml").write_text(yaml.safe_dump({"config": config}, allow_unicode=True))
    done = spot_training_in_process("render", "dev", stacks_dir=tmp_path)
    assert done.returncode == 0, done.stderr
    assert settings_of(done.stdout)["vision/resnet-smoke"]["STRATEGY_LADDER"] == quoted


def test_what_the_readme_says_render_shows_is_what_render_prints():
    """Issue 30.9: the README's line for `render` promises only what it prints: the request, the
    settings, a price per hour (from the cited table, `unknown` where it has none), never 'what it costs'."""
    from tests.cli_runner import spot_training

    line = next(line for line in (ROOT / "README.md").read_text().splitlines() if "spot-training render dev" in line)
    claim = line.split("#", 1)[1]
    assert "what it costs" not in claim
    assert "price per hour" in claim and "unknown" in claim and "docs/costs.md" in claim
    done = spot_training("render", "dev", "--summary")
    assert done.returncode == 0, done.stderr
    assert "SETTINGS" in done.stdout and "PER_HOUR" in done.stdout and "unknown" in done.stdout


def test_the_readme_says_resuming_is_the_training_codes_job_and_where_to_read_how():
    section = (ROOT / "README.md").read_text().split("## When a Spot job is preempted")[1].split("\n## ")[0]
    paragraph = " ".join(section.split("```")[0].split())
    assert "AIP_CHECKPOINT_DIR" in paragraph
    assert "not automatic" in paragraph and "the training code" in paragraph
    assert "(docs/training.md#make-a-trainer-spot-ready)" in paragraph
