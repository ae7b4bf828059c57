"""Every `# type: ignore` in the project says why, so that a reader can tell a gap in a
library's types from a hidden mistake, and mypy's warn_unused_ignores says when it can go."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
IGNORE = re.compile(r"#\s*type:\s*ignore(\[[^\]]*\])?(?P<after>.*)$")
# Lines whose reason is given here instead: they ship in a content-addressed training package,
# and any edit of the file, a comment too, is new content that resubmits every job shipping it.
# Give the reason on the line at the package's next real change.
SHIPPED = {
    # numpy types `@` of float64 arrays as Any
    "training/tabular-trainer/src/tabular_trainer/model.py": 'return hidden @ params["w2"] + params["b2"]  # type: ignore[no-any-return]',
}


def test_every_type_ignore_names_its_error_and_says_why():
    unexplained = []
    for path in ROOT.rglob("*.py"):
        if {".venv", "node_modules", ".engine"} & set(path.relative_to(ROOT).parts) or path == Path(__file__).resolve():
            continue
        for number, line in enumerate(path.read_text().splitlines(), 1):
            found = IGNORE.search(line)
            if SHIPPED.get(str(path.relative_to(ROOT))) == line.strip():
                continue
            if found and (not found.group(1) or not re.match(r"\s+#\s*\S", found.group("after"))):
                unexplained.append(f"{path.relative_to(ROOT)}:{number}: {line.strip()}")
    assert not unexplained, "a # type: ignore[code] without '  # why':\n" + "\n".join(unexplained)
