"""The README's quick start, timed as a new user meets it: from a fresh clone of this repository to
filtered output with `pip install .` and one command.

Steps, each timed alone: `git clone` of the tree's HEAD into a temporary directory, `python -m venv`,
`pip install .` (the core only; pip's cache as this machine has it), the README's first command
(`kcooc filter-parallel` on tests/data/en-de.tsv: its numba loops compile on this first run), and the
same command again (compiled loops cached). Prints one line per step and the total to the filtered
output; everything is removed afterwards.

    python -m scripts.bench.quickstart
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
FILTER = ["filter-parallel", "-i", "tests/data/en-de.tsv", "-o", "kept.tsv", "--src-lang", "en", "--tgt-lang", "de",
          "--annotated", "why.tsv", "-q"]


def timed(label: str, argv: list[str], cwd: str) -> float:
    start = time.perf_counter()
    subprocess.run(argv, cwd=cwd, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    seconds = time.perf_counter() - start
    print(f"{label:<34} {seconds:6.1f} s", flush=True)
    return seconds


def main() -> None:
    with tempfile.TemporaryDirectory() as scratch:
        clone, venv = os.path.join(scratch, "kcooc"), os.path.join(scratch, "venv")
        kcooc = os.path.join(venv, "bin", "kcooc")
        steps = [("git clone", ["git", "clone", "-q", HERE, clone], scratch),
                 ("python -m venv", [sys.executable, "-m", "venv", venv], scratch),
                 ("pip install .", [os.path.join(venv, "bin", "pip"), "install", "-q", "."], clone),
                 ("kcooc filter-parallel (first run)", [kcooc, *FILTER], clone)]
        total = sum(timed(*step) for step in steps)
        print(f"{'fresh clone to kept.tsv':<34} {total:6.1f} s")
        for name in ("kept.tsv", "why.tsv"):
            os.remove(os.path.join(clone, name))
        timed("kcooc filter-parallel (again)", [kcooc, *FILTER], clone)


if __name__ == "__main__":
    main()
