"""Benchmark `kcooc filter-parallel` end to end: the learned score with every feature on
(configs/filter-learned.yaml: PHSIC, lexical, fluency, length, agreement and language-ID features)
against the pure PHSIC ranking (configs/filter-hashing.yaml) and the I/O floor, in one process.

Lines/s at 1M pairs with --jobs 1 and --jobs 2, the ratios to `--scorer phsic` and to the I/O floor
(`wc -l` + `cut -f1,2` over the same file), and peak RSS of the learned score at 1M and --big-lines
pairs (jobs 1: the one process that holds everything), which should grow only by the per-line
arrays (memory-mapped). The corpus is the real en-ja corpus repeated (duplicates are found and
dropped like any others).

    python scripts/bench_filter.py --corpus data/parallel/en-ja.tsv --workdir runs/bench-filter
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time


def make_corpus(source: str, path: str, lines: int) -> None:
    if os.path.exists(path) and sum(1 for _ in open(path, "rb")) == lines:
        return
    rows = open(source, "rb").read().splitlines(keepends=True)
    with open(path, "wb") as f:
        for i in range(lines):
            f.write(rows[i % len(rows)])


def timed(command: list[str], stdout=subprocess.DEVNULL) -> float:
    start = time.perf_counter()
    subprocess.run(command, check=True, stdout=stdout)
    return time.perf_counter() - start


def peak_rss_mb(command: list[str]) -> float:
    """Peak RSS of ``command`` (a fresh child; RUSAGE_CHILDREN's maximum is per process)."""
    probe = [sys.executable, "-c", "import resource, subprocess, sys; subprocess.run(sys.argv[1:], check=True); "
             "print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)", *command]
    return int(subprocess.run(probe, check=True, capture_output=True, text=True).stdout.split()[-1]) / 1024


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--corpus", default="data/parallel/en-ja.tsv")
    parser.add_argument("--workdir", default="runs/bench-filter")
    parser.add_argument("--lines", type=int, default=1_000_000)
    parser.add_argument("--big-lines", type=int, default=2_000_000)
    args = parser.parse_args()
    os.makedirs(args.workdir, exist_ok=True)
    small, big = os.path.join(args.workdir, "1m.tsv"), os.path.join(args.workdir, "4m.tsv")
    make_corpus(args.corpus, small, args.lines)
    make_corpus(args.corpus, big, args.big_lines)

    def kcooc(path: str, jobs: int, config: str = "configs/filter-learned.yaml") -> list[str]:
        name = os.path.basename(config).split(".")[0]
        return [sys.executable, "-m", "kcooc", "filter-parallel", "-c", config, "-i", path,
                "-o", os.path.join(args.workdir, "kept.tsv"), "-q", "--jobs", str(jobs),
                "--summary", os.path.join(args.workdir, f"summary-{name}-{jobs}.json")]

    floor = timed(["wc", "-l", small]) + timed(["cut", "-f1,2", small])
    results = {"lines": args.lines, "io_floor_seconds": round(floor, 2)}
    runs = [("phsic_jobs1", 1, "configs/filter-hashing.yaml"), ("learned_jobs1", 1, "configs/filter-learned.yaml"),
            ("learned_jobs2", 2, "configs/filter-learned.yaml")]
    for name, jobs, config in runs:
        seconds = timed(kcooc(small, jobs, config))
        summary = json.load(open(os.path.join(args.workdir, f"summary-{os.path.basename(config).split('.')[0]}-{jobs}.json")))
        results[name] = {"seconds": round(seconds, 2), "lines_per_second": round(args.lines / seconds),
                         "lines_per_second_per_core": round(args.lines / seconds / jobs),
                         "ratio_to_io_floor": round(seconds / floor, 1), "passes": summary["seconds"],
                         **({"classifier": summary["classifier"]} if "classifier" in summary else {})}
    results["learned_over_phsic_jobs1"] = round(results["learned_jobs1"]["seconds"] / results["phsic_jobs1"]["seconds"], 2)
    results["speedup_jobs2"] = round(results["learned_jobs1"]["seconds"] / results["learned_jobs2"]["seconds"], 2)
    rss_small, rss_big = peak_rss_mb(kcooc(small, 1)), peak_rss_mb(kcooc(big, 1))
    results["peak_rss_mb"] = {f"{args.lines}": round(rss_small), f"{args.big_lines}": round(rss_big),
                              "growth_mb": round(rss_big - rss_small),
                              "growth_bytes_per_extra_line": round((rss_big - rss_small) * 2**20 / (args.big_lines - args.lines), 1)}
    print(json.dumps(results, indent=1))


if __name__ == "__main__":
    main()
