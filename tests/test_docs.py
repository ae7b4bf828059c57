"""docs/ stays true: every rule module has its row, with the pages it cites."""

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
RULES = ROOT / "components" / "spot_job" / "rules"
HELPERS = {"__init__.py", "known.py"}  # not rules: the list, the reader
# A source file of a repository a module cites: the API's protos, the SDK, gcloud, xpk, Google's pipeline components.
REPOSITORY_PATH = re.compile(
    r"(?:google/cloud/aiplatform|lib/googlecloudsdk|src/xpk|google_cloud_pipeline_components)/[\w/]+\.(?:proto|py)"
)


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
    from components.spot_job.rules import cpu_machines, gpu_machines, region_offers, tpu_machines
    from stack_config.regions import VERTEX_AI_REGIONS

    rows = {}
    for line in (ROOT / "docs" / "rules.md").read_text().splitlines():
        if line.startswith("| `"):
            rows[line.split("`")[1]] = line
    series_types = {m.rsplit("-", 1)[0] for m in cpu_machines.TRAINING}
    for key in [*VERTEX_AI_REGIONS, *gpu_machines.ATTACHED, *tpu_machines.MACHINES, tpu_machines.LEGACY_MACHINE, *series_types]:
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

    from components.spot_job.model import spec
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
    from tests.cli_runner import spot_training_in_process

    text = (ROOT / "stacks" / "Pulumi.dev.yaml").read_text()
    build = re.search(r"^#\s+(trainer: \{build: .*\})$", _header(ROOT / "stacks" / "Pulumi.dev.yaml"), re.M).group(1)
    args = re.search(r"^#.*resnet-smoke.*(args: \[.*\])", _header(ROOT / "stacks" / "Pulumi.dev.yaml"), re.M).group(1)
    text = text.replace('trainer: {name: trainer, tag: "2026-11-30"}', build).replace('args: ["--epochs=1"]', args)
    (tmp_path / "Pulumi.dev.yaml").write_text(text)
    done = spot_training_in_process("render", "dev", "vision/resnet-smoke", "--summary", stacks_dir=tmp_path)
    assert done.returncode == 0, done.stderr
    assert "trainer (built at deploy)" in done.stdout


# --- pointers that point somewhere (issue 30.8) ---------------------------------------

DOCUMENTS = sorted({*ROOT.glob("*.md"), *(ROOT / "docs").glob("*.md"), *(ROOT / "training").glob("*/README.md")})
LINK = re.compile(r"(?<!!)\[[^\]]*\]\(([^)\s]+)(?:\s+\"[^\"]*\")?\)")
HEADING = re.compile(r"^#{1,6}\s+(.+?)\s*#*$", re.M)
# The lead-in of a paragraph, "**Quotas are paced, not hit.** ...": what `see *Quotas are paced*` names.
LEAD_IN = re.compile(r"^\s*(?:[-*]\s+)?\*\*(.+?)\*\*", re.M)
# "see *Deleting*", "see \"Many deletes\"", "see Deleting", "see docs/review.md", "(README.md, \"First deploy\")".
SEE_NAMED = re.compile(r"\bsee (?:\*([^*]+)\*|\"([^\"]+)\"?|([A-Z][a-z]+(?: [A-Z][a-z]+)*)\b(?! ?\())", re.S)
SEE_FILE = re.compile(r"\bsee ((?:docs/|\.\./)?[\w./-]+\.(?:md|py|yaml|toml))\b")
FILE_SECTION = re.compile(r"([\w./-]+\.md)(?:'s|,) \"([^\"]+)\"")


def _slug(heading: str) -> str:
    """GitHub's anchor for a heading: lowercase, punctuation dropped (not '-' or '_'), spaces to '-'."""
    text = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", heading)  # a link in a heading anchors by its text
    return re.sub(r"[^\w\- ]", "", text.strip().lower()).replace(" ", "-")


def _anchors(path: Path) -> set[str]:
    seen: dict[str, int] = {}
    anchors = set()
    text = re.sub(r"```.*?```", "", path.read_text(), flags=re.S)
    for heading in HEADING.findall(text):
        slug = _slug(heading)
        anchors.add(slug if slug not in seen else f"{slug}-{seen[slug]}")
        seen[slug] = seen.get(slug, 0) + 1
    return anchors | set(re.findall(r"<a (?:id|name)=\"([^\"]+)\"", text))


def _titles(path: Path) -> list[str]:
    """What a "see X" may name in a file: its headings and its paragraphs' bold lead-ins."""
    text = re.sub(r"```.*?```", "", path.read_text(), flags=re.S)
    return [t.replace("`", "").lower() for t in HEADING.findall(text) + LEAD_IN.findall(text)]


def _prose(path: Path) -> str:
    """The text a reader reads: a markdown file without its code blocks; a stack file's comments."""
    text = path.read_text()
    if path.suffix == ".yaml":
        return "\n".join(line.split("#", 1)[1] for line in text.splitlines() if "#" in line)
    return re.sub(r"```.*?```", "", text, flags=re.S)


def test_every_relative_link_in_the_docs_resolves_to_a_file_and_a_heading_there():
    broken = []
    for doc in DOCUMENTS:
        for target in LINK.findall(_prose(doc)):
            if re.match(r"^[a-z]+:", target):
                continue  # https:, mailto:: not this repository's
            file, _, anchor = target.partition("#")
            path = (doc.parent / file).resolve() if file else doc
            if not path.exists():
                broken.append(f"{doc.relative_to(ROOT)}: {target}: no such file")
            elif anchor and path.suffix == ".md" and anchor not in _anchors(path):
                broken.append(f"{doc.relative_to(ROOT)}: {target}: {path.name} has no heading with that anchor")
    assert not broken, "\n".join(broken)


def test_every_see_reference_in_the_docs_readme_and_stack_files_resolves():
    """`see *X*`, `see "X"`, `see X` name a heading or a paragraph's bold lead-in of the same file;
    `see docs/x.md` a file; `FILE.md, "Section"` a heading of FILE."""
    broken = []
    for doc in [*DOCUMENTS, *sorted((ROOT / "stacks").glob("*.yaml"))]:
        prose = " ".join(_prose(doc).split())
        titles = _titles(doc) if doc.suffix == ".md" else []
        for emphasised, quoted, plain in SEE_NAMED.findall(prose):
            name = (emphasised or quoted or plain).strip().lower()
            if plain and name in {"below", "above", "it", "the", "what", "which", "how", "why"}:
                continue
            if plain and doc.suffix != ".md":
                continue
            if not any(title.startswith(name) for title in titles):
                broken.append(f"{doc.relative_to(ROOT)}: see {name!r}: no heading or lead-in of that name there")
        for file in SEE_FILE.findall(prose):
            if not ((doc.parent / file).exists() or (ROOT / file).exists()):
                broken.append(f"{doc.relative_to(ROOT)}: see {file}: no such file")
        for file, section in FILE_SECTION.findall(prose):
            path = (doc.parent / file) if (doc.parent / file).exists() else ROOT / file
            if not path.exists():
                broken.append(f"{doc.relative_to(ROOT)}: {file}: no such file")
            elif not any(title.startswith(section.lower()) for title in _titles(path)):
                broken.append(f"{doc.relative_to(ROOT)}: {file}, {section!r}: no such section there")
    assert not broken, "\n".join(broken)


# A path of this repository named in prose: `components/spot_job/spec.py`, stack_config/, docs/costs.md.
REPO_PATH = re.compile(r"(?<![\w./:@$<{-])((?:\.\./)*(?:[A-Za-z_][\w.-]*/)+(?:[\w.-]+\.(?:md|py|yaml|yml|toml|json|sh|txt))?)(?![\w/<{*-])")
TOP_LEVEL = {p.name for p in ROOT.iterdir()}


def test_every_repository_path_the_docs_name_exists():
    """A file or folder named in the docs, the README or a stack file's comments is there: a module
    moved or renamed leaves no pointer behind."""
    broken = []
    for doc in [*DOCUMENTS, *sorted((ROOT / "stacks").glob("*.yaml"))]:
        prose = _prose(doc)
        for match in REPO_PATH.finditer(prose):
            path = match.group(1)
            if path.split("/")[0] not in TOP_LEVEL | {".."}:
                continue  # not of this repository: gs://bucket/..., google/cloud/... of another project
            if re.search(r"\b[\w-]+/[\w.-]+, `?$", prose[max(0, match.start() - 60):match.start()]):
                continue  # another repository's, named just before it: (GoogleCloudPlatform/gcsfuse, `docs/semantics.md`)
            if not ((ROOT / path).exists() or (doc.parent / path).exists()):
                broken.append(f"{doc.relative_to(ROOT)}: {path}")
    assert not broken, "\n".join(sorted(broken))
