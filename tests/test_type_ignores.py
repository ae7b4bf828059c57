"""Every `# type: ignore` in the project says why, so that a reader can tell a gap in a
library's types from a hidden mistake, and mypy's warn_unused_ignores says when it can go."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
IGNORE = re.compile(r"#\s*type:\s*ignore(\[[^\]]*\])?(?P<after>.*)$")


def test_every_type_ignore_names_its_error_and_says_why():
    unexplained = []
    for path in ROOT.rglob("*.py"):
        if {".venv", "node_modules", ".engine"} & set(path.relative_to(ROOT).parts) or path == Path(__file__).resolve():
            continue
        for number, line in enumerate(path.read_text().splitlines(), 1):
            found = IGNORE.search(line)
            if found and (not found.group(1) or not re.match(r"\s+#\s*\S", found.group("after"))):
                unexplained.append(f"{path.relative_to(ROOT)}:{number}: {line.strip()}")
    assert not unexplained, "a # type: ignore[code] without '  # why':\n" + "\n".join(unexplained)
