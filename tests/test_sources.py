"""The repository's own text files: no merge left its conflict markers behind (a marker inside a
docstring or a Markdown page breaks nothing else that would notice)."""

import pathlib
import re

ROOT = pathlib.Path(__file__).resolve().parent.parent
MARKER = re.compile(r"^(<{7}|>{7}|={7})( |$)", re.MULTILINE)
SUFFIXES = {".py", ".md", ".yaml", ".yml", ".toml", ".cfg", ".txt", ".rst"}


def test_no_conflict_markers_in_sources_and_docs():
    checked, marked = 0, []
    for folder in ("kcooc", "scripts", "tests", "docs", "configs"):
        for path in (ROOT / folder).rglob("*"):
            if path.suffix in SUFFIXES and path.is_file() and "data" not in path.relative_to(ROOT).parts[1:2]:
                checked += 1
                if MARKER.search(path.read_text(encoding="utf-8", errors="replace")):
                    marked.append(str(path.relative_to(ROOT)))
    for name in ("README.md", "CHANGELOG.md", "Makefile", "pyproject.toml"):
        checked += 1
        if MARKER.search((ROOT / name).read_text(encoding="utf-8")):
            marked.append(name)
    assert checked > 100 and marked == []
