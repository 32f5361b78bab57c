"""Shared by the reproduction scripts: write a results page = generated lines + hand-written notes."""

from __future__ import annotations

import os


def write_report(path: str, lines: list[str], notes: str) -> None:
    """Write ``lines`` then ``scripts/<notes>`` (the reading of the numbers) to ``path``."""
    with open(os.path.join(os.path.dirname(__file__), notes), encoding="utf-8") as f:
        text = "\n".join(lines).rstrip() + "\n\n" + f.read().rstrip() + "\n"
    os.makedirs(os.path.dirname(os.path.abspath(path)), exist_ok=True)
    with open(path, "w", encoding="utf-8") as f:
        f.write(text)
