"""Shared by the reproduction scripts: write a results page = generated lines + hand-written notes."""

from __future__ import annotations

import glob
import os

EXPERIMENTS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "experiments")


def write_report(path: str, lines: list[str], notes: str) -> None:
    """Write ``lines`` then the notes file ``notes`` (the reading of the numbers, kept beside its evaluation
    script in ``scripts/experiments/<method>/``) to ``path``."""
    found = glob.glob(os.path.join(EXPERIMENTS, "*", notes))
    if len(found) != 1:
        raise FileNotFoundError(f"{notes}: expected in exactly one folder of {EXPERIMENTS}, found {found}")
    with open(found[0], encoding="utf-8") as f:
        text = "\n".join(lines).rstrip() + "\n\n" + f.read().rstrip() + "\n"
    os.makedirs(os.path.dirname(os.path.abspath(path)), exist_ok=True)
    with open(path, "w", encoding="utf-8") as f:
        f.write(text)
