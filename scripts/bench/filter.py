"""Benchmark `kcooc filter-parallel` end to end: the learned score with every feature on
(configs/filter-learned.yaml: PHSIC, word-alignment, fluency, length, agreement and language-ID features)
against the pure PHSIC ranking (configs/filter-hashing.yaml) and the I/O floor, in one process.

Lines/s at 1M pairs with --jobs 1 and --jobs 2, the ratios to `--scorer phsic` and to the I/O floor
(`wc -l` + `cut -f1,2` over the same file), and peak RSS of the learned score at 1M and --big-lines
pairs (jobs 1: the one process that holds everything), which should grow only by the per-line
arrays (memory-mapped). The corpus is the real en-ja corpus repeated (duplicates are found and
dropped like any others, and not scored again); the learned score with deduplication off scores
every line, the cost per line of a corpus without duplicates. With --opusfilter-venv, OpusFilter
runs as its users run it (``opusfilter`` on a YAML of its standard filters, as written by
``opusfilter-autogen --method defaults``, language ID included) on the first --opusfilter-lines
lines of the same file, in the same run. Each run also reports its CPU seconds (the command and its
workers) and ``cores_busy`` = CPU / wall: on a shared machine --jobs 2 can only scale as far as a
second core is free.

    python -m scripts.bench.filter --corpus data/parallel/en-ja.tsv --workdir runs/bench-filter \
        --opusfilter-venv data/venv-opusfilter

``--report-only``: only the cost of ``--report FILE.html``: the learned run with and without it, alternated
``--repeats`` times in this process (the ratio of the medians; the machine's speed drifts between runs).

    python -m scripts.bench.filter --corpus data/parallel/en-de.tsv --lines 200000 --report-only
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import time

import yaml


def make_corpus(source: str, path: str, lines: int) -> None:
    if os.path.exists(path) and sum(1 for _ in open(path, "rb")) == lines:
        return
    rows = open(source, "rb").read().splitlines(keepends=True)
    with open(path, "wb") as f:
        for i in range(lines):
            f.write(rows[i % len(rows)])


def timed(command: list[str], **options) -> float:
    return timed_with_cpu(command, **options)[0]


def timed_with_cpu(command: list[str], **options) -> tuple[float, float]:
    """Wall seconds and CPU seconds (user + system, the command and its worker processes) of ``command``."""
    before, start = resource.getrusage(resource.RUSAGE_CHILDREN), time.perf_counter()
    subprocess.run(command, check=True, stdout=subprocess.DEVNULL, **options)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return time.perf_counter() - start, after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime


def peak_rss_mb(command: list[str]) -> float:
    """Peak RSS of ``command`` (a fresh child; RUSAGE_CHILDREN's maximum is per process)."""
    probe = [sys.executable, "-c", "import resource, subprocess, sys; subprocess.run(sys.argv[1:], check=True); "
             "print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)", *command]
    return int(subprocess.run(probe, check=True, capture_output=True, text=True).stdout.split()[-1]) / 1024


def opusfilter_seconds(path: str, lines: int, workdir: str, venv: str, langs: list[str], scripts: list[str]) -> float:
    """Seconds of ``opusfilter`` filtering the first ``lines`` pairs of ``path`` with its standard filters."""
    workdir, binary = os.path.abspath(workdir), os.path.join(os.path.abspath(venv), "bin")
    os.makedirs(workdir, exist_ok=True)
    files = [os.path.join(workdir, f"input.{lang}") for lang in langs]
    with open(path, encoding="utf-8") as f, open(files[0], "w", encoding="utf-8") as src, \
            open(files[1], "w", encoding="utf-8") as tgt:
        for _, line in zip(range(lines), f):
            fields = line.rstrip("\n").split("\t")
            src.write(fields[0] + "\n")
            tgt.write(fields[1] + "\n")
    config = os.path.join(workdir, "standard-filters.yaml")
    subprocess.run([os.path.join(binary, "opusfilter-autogen"), "--files", *files, "--langs", *langs, "--method",
                    "defaults", "--work-dir", workdir, "--overwrite", "-o", config]
                   + (["--scripts", *scripts] if scripts else []),
                   check=True, cwd=workdir, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    steps = yaml.safe_load(open(config, encoding="utf-8"))["steps"]
    assert [step["type"] for step in steps] == ["filter"], steps
    return timed([os.path.join(binary, "opusfilter"), "--overwrite", config], cwd=workdir, stderr=subprocess.DEVNULL)


def report_cost(path: str, args) -> dict:
    """Seconds of the learned run (configs/filter-learned.yaml, --jobs 1) without and with --report, alternated."""
    base = [sys.executable, "-m", "kcooc", "filter-parallel", "-c", "configs/filter-learned.yaml", "-i", path,
            "-o", os.path.join(args.workdir, "kept.tsv"), "-q", "--jobs", "1",
            "--summary", os.path.join(args.workdir, "summary-report.json")]
    page = os.path.join(args.workdir, "report.html")
    without, with_report, report_seconds = [], [], []
    for _ in range(args.repeats):
        without.append(timed(base))
        with_report.append(timed(base + ["--report", page]))
        report_seconds.append(json.load(open(os.path.join(args.workdir, "summary-report.json")))["seconds"])
    median = lambda xs: sorted(xs)[len(xs) // 2]  # noqa: E731
    return {"lines": args.lines, "without_report_seconds": without, "with_report_seconds": with_report,
            "ratio_of_medians": round(median(with_report) / median(without), 3),
            "report_bytes": os.path.getsize(page), "passes_with_report": report_seconds[-1]}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--corpus", default="data/parallel/en-ja.tsv")
    parser.add_argument("--workdir", default="runs/bench-filter")
    parser.add_argument("--lines", type=int, default=1_000_000)
    parser.add_argument("--big-lines", type=int, default=2_000_000)
    parser.add_argument("--opusfilter-venv", default=None, help="virtualenv with opusfilter (row skipped if unset)")
    parser.add_argument("--opusfilter-lines", type=int, default=100_000,
                        help="OpusFilter runs on this many first lines")
    parser.add_argument("--langs", nargs=2, default=["en", "ja"], help="OpusFilter's --langs")
    parser.add_argument("--scripts", nargs="*", default=[], help="OpusFilter's --scripts (none for Japanese: kana)")
    parser.add_argument("--report-only", action="store_true", help="only the cost of --report (with vs without)")
    parser.add_argument("--repeats", type=int, default=3, help="--report-only: runs of each, alternated")
    args = parser.parse_args()
    os.makedirs(args.workdir, exist_ok=True)
    small, big = os.path.join(args.workdir, f"{args.lines}.tsv"), os.path.join(args.workdir, f"{args.big_lines}.tsv")
    make_corpus(args.corpus, small, args.lines)
    if args.report_only:
        print(json.dumps(report_cost(small, args), indent=1))
        return

    no_dedup = os.path.join(args.workdir, "filter-learned-nodedup.yaml")
    with open(no_dedup, "w", encoding="utf-8") as f:
        yaml.safe_dump({**yaml.safe_load(open("configs/filter-learned.yaml", encoding="utf-8")),
                        "rules": {"dedup": False}}, f)

    def kcooc(path: str, jobs: int, config: str = "configs/filter-learned.yaml") -> list[str]:
        name = os.path.basename(config).split(".")[0]
        return [sys.executable, "-m", "kcooc", "filter-parallel", "-c", config, "-i", path,
                "-o", os.path.join(args.workdir, "kept.tsv"), "-q", "--jobs", str(jobs),
                "--summary", os.path.join(args.workdir, f"summary-{name}-{jobs}.json")]

    floor = timed(["wc", "-l", small]) + timed(["cut", "-f1,2", small])
    results = {"lines": args.lines, "io_floor_seconds": round(floor, 2)}
    runs = [("phsic_jobs1", 1, "configs/filter-hashing.yaml"), ("learned_jobs1", 1, "configs/filter-learned.yaml"),
            ("learned_jobs2", 2, "configs/filter-learned.yaml"), ("learned_no_dedup_jobs1", 1, no_dedup)]
    for name, jobs, config in runs:
        seconds, cpu = timed_with_cpu(kcooc(small, jobs, config))
        name_of_config = os.path.basename(config).split(".")[0]
        summary = json.load(open(os.path.join(args.workdir, f"summary-{name_of_config}-{jobs}.json")))
        results[name] = {"seconds": round(seconds, 2), "lines_per_second": round(args.lines / seconds),
                         "lines_per_second_per_core": round(args.lines / seconds / jobs),
                         "ratio_to_io_floor": round(seconds / floor, 1), "passes": summary["seconds"],
                         "cpu_seconds": round(cpu, 2), "cores_busy": round(cpu / seconds, 2),
                         **({"classifier": summary["classifier"]} if "classifier" in summary else {})}
    learned = results["learned_jobs1"]["seconds"]
    results["learned_over_phsic_jobs1"] = round(learned / results["phsic_jobs1"]["seconds"], 2)
    results["speedup_jobs2"] = round(learned / results["learned_jobs2"]["seconds"], 2)
    if args.opusfilter_venv:
        lines = min(args.opusfilter_lines, args.lines)
        seconds = opusfilter_seconds(small, lines, os.path.join(args.workdir, "opusfilter"), args.opusfilter_venv,
                                     args.langs, args.scripts)
        opus_rate = lines / seconds
        results["opusfilter"] = {"lines": lines, "seconds": round(seconds, 2), "lines_per_second": round(opus_rate),
                                 **{f"{name}_over_opusfilter": round(results[name]["lines_per_second"] / opus_rate, 1)
                                    for name in ("learned_jobs1", "learned_jobs2", "learned_no_dedup_jobs1")}}
    if args.big_lines <= args.lines:  # --big-lines 0: no memory runs
        print(json.dumps(results, indent=1))
        return
    make_corpus(args.corpus, big, args.big_lines)
    rss_small, rss_big = peak_rss_mb(kcooc(small, 1)), peak_rss_mb(kcooc(big, 1))
    per_line = (rss_big - rss_small) * 2**20 / (args.big_lines - args.lines)
    results["peak_rss_mb"] = {f"{args.lines}": round(rss_small), f"{args.big_lines}": round(rss_big),
                              "growth_mb": round(rss_big - rss_small),
                              "growth_bytes_per_extra_line": round(per_line, 1)}
    print(json.dumps(results, indent=1))


if __name__ == "__main__":
    main()
