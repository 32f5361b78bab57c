"""Start-up cost of the kcooc command: wall time and peak memory of `kcooc --help`,
`kcooc phsic score --help` and a small real job, against `python -c "import numpy"` in the same run.

Each command runs in a fresh interpreter (`python -m kcooc ...` from ``--tree``, the source tree under
test), ``--repeats`` times, the commands interleaved so that machine noise hits them alike; the
table shows the median wall time and the peak resident memory (the child's own, from wait4), and
their ratios to the numpy baseline. The small job scores 100 dialogue pairs with a PHSIC model
(hashed words, linear kernel) trained on the test excerpt before timing starts.

Install weight: the distributions that ``pip install kcooc`` (the core) and ``kcooc[all]`` pull in,
by the tree's pyproject.toml, and their installed size in this environment (same versions for both).

    python -m scripts.bench.startup                      # this tree
    python -m scripts.bench.startup --tree /tmp/before   # another checkout, e.g. the previous commit
"""

from __future__ import annotations

import argparse
import importlib.metadata
import os
import statistics
import subprocess
import sys
import tempfile
import time

from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

HERE = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
TRAIN = os.path.join(HERE, "tests", "data", "chitchat-train.tsv")


def measure(argv: list[str], cwd: str) -> tuple[float, float]:
    """(wall seconds, peak RSS in MB) of one run of ``argv``; a failure stops the benchmark."""
    start = time.perf_counter()
    child = subprocess.Popen(argv, cwd=cwd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    _, status, usage = os.wait4(child.pid, 0)
    wall = time.perf_counter() - start
    if os.waitstatus_to_exitcode(status) != 0:
        sys.exit(f"{' '.join(argv)} failed: {child.stderr.read().decode()[-500:]}")
    return wall, usage.ru_maxrss / 1024  # Linux reports kilobytes


def closure(requirements: list[str], seen: set[str] | None = None) -> set[str]:
    """The installed distributions ``requirements`` pull in, recursively (extras' own deps excluded)."""
    seen = set() if seen is None else seen
    for text in requirements:
        requirement = Requirement(text)
        name = canonicalize_name(requirement.name)
        if name in seen or name == "kcooc" or (requirement.marker and not requirement.marker.evaluate({"extra": ""})):
            continue
        seen.add(name)
        closure(importlib.metadata.distribution(name).requires or [], seen)
    return seen


def install_weight(pyproject: str) -> list[tuple[str, int, float]]:
    """(what, distributions, installed MB) of the core and of every runtime extra together."""
    import tomllib  # Python >= 3.11; main() skips the table on 3.10

    project = tomllib.load(open(pyproject, "rb"))["project"]
    extras = project.get("optional-dependencies", {})
    runtime = [r for name in ("fasttext", "wordllama", "wordnet", "plot", "dask") for r in extras.get(name, [])]
    rows = []
    for what, requirements in (("pip install kcooc (core)", project["dependencies"]),
                               ("core + fasttext, wordllama, wordnet, plot, dask", project["dependencies"] + runtime)):
        names = closure(requirements)
        size = sum(f.size or 0 for n in names for f in importlib.metadata.distribution(n).files or [])
        rows.append((what, len(names), size / 1e6))
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--tree", default=HERE, help="source tree whose kcooc is measured (default: this one)")
    parser.add_argument("--repeats", type=int, default=7, help="runs per command (median reported)")
    args = parser.parse_args()
    tree = os.path.abspath(args.tree)
    python = sys.executable
    with tempfile.TemporaryDirectory(prefix="kcooc-bench-startup-") as scratch:
        pairs = os.path.join(scratch, "pairs.tsv")
        with open(TRAIN, encoding="utf-8") as f, open(pairs, "w", encoding="utf-8") as out:
            out.writelines(line for _, line in zip(range(100), f))
        model = os.path.join(scratch, "model.npz")
        measure([python, "-m", "kcooc", "phsic", "train", "--encoder", "hashing", "--kernel", "linear", "-i", TRAIN,
                 "-o", model, "-q"], tree)
        commands = {
            'python -c "import numpy"': [python, "-c", "import numpy"],
            "kcooc --help": [python, "-m", "kcooc", "--help"],
            "kcooc phsic score --help": [python, "-m", "kcooc", "phsic", "score", "--help"],
            "kcooc phsic score (100 pairs)": [python, "-m", "kcooc", "phsic", "score", "-m", model, "-i", pairs,
                                              "-o", os.path.join(scratch, "scored.tsv"), "-q"],
        }
        runs: dict[str, list[tuple[float, float]]] = {name: [] for name in commands}
        for _ in range(args.repeats):
            for name, argv in commands.items():
                runs[name].append(measure(argv, tree))
    baseline = None
    print(f"kcooc from {tree}; {args.repeats} runs each, median wall time, peak RSS\n")
    print("| command | wall (s) | x numpy | peak RSS (MB) | x numpy |")
    print("|---|---:|---:|---:|---:|")
    for name, samples in runs.items():
        wall = statistics.median(w for w, _ in samples)
        rss = max(r for _, r in samples)
        baseline = baseline or (wall, rss)
        print(f"| `{name}` | {wall:.2f} | {wall / baseline[0]:.1f} | {rss:.0f} | {rss / baseline[1]:.1f} |")
    pyproject = os.path.join(tree, "pyproject.toml")
    if os.path.exists(pyproject) and sys.version_info >= (3, 11):
        print("\n| install | distributions | installed size (MB) |\n|---|---:|---:|")
        for what, count, size in install_weight(pyproject):
            print(f"| {what} | {count} | {size:.0f} |")


if __name__ == "__main__":
    main()
