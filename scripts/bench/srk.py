"""kb-SRK / TESRK throughput on real sentence pairs, against the paper's algorithm run in the same process.

One *evaluation* = the kernel between two sentence pairs for every k = 1..4 at once (the four kb-SRK
values). The baseline is a direct transcription of the paper's Algorithm 1 over every k-gram
quadruple (Eq. 3 + Eq. 5, pure Python, kcooc.testing, as the tests use it) on a small block; the anchor is the
authors' Scala (~1,500 kb-SRK and ~500 typed evaluations/s on 8 cores, §4.1). Also: the wall time of
the full symmetric 4,000-pair TESRK Gram matrix (the MSRP training size), and 1 vs 2 threads.

    python -m scripts.bench.srk --data data/srk/paraphrase/train.tsv
"""

from __future__ import annotations

import argparse
import itertools
import time

import numba
import numpy as np

from kcooc.encoders import tokenize
from kcooc.srk.gram import SrkTerm, Vocabulary
from kcooc.testing import srk_by_algorithm1

SCHEMES = {"kb-SRK (stem/stem)": (["stem"], ["stem"]),
           "TESRK (stem+synonym)": (["stem", "synonym"], ["stem", "synonym"])}


def evals_per_second(term: SrkTerm, n: int) -> float:
    rows = np.arange(n)
    start = time.perf_counter()
    term.block(rows, rows, upper=False)
    return n * n / (time.perf_counter() - start)


def naive_per_second(term: SrkTerm, vocabulary: Vocabulary, n: int) -> float:
    pattern, variable = term.scheme.relations(vocabulary.words)
    pattern, variable = pattern.toarray(), variable.toarray()
    pairs = list(zip(vocabulary.sources, vocabulary.targets))[:n]
    start = time.perf_counter()
    for a, b in itertools.product(pairs, repeat=2):
        for k in (1, 2, 3, 4):
            srk_by_algorithm1(a, b, k, lambda x, y: pattern[x, y], lambda x, y: variable[x, y])
    return n * n / (time.perf_counter() - start)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--data", default="data/srk/paraphrase/train.tsv")
    parser.add_argument("--pairs", type=int, default=4000)
    parser.add_argument("--block", type=int, default=600)
    parser.add_argument("--naive", type=int, default=3)
    args = parser.parse_args()
    with open(args.data, encoding="utf-8") as f:
        rows = [line.rstrip("\n").split("\t") for line in f][:args.pairs]
    pairs = [(tokenize(s, True, True), tokenize(t, True, True)) for _, s, t in rows]
    lengths = [len(s) + len(t) for s, t in pairs]
    print(f"{len(pairs)} KJV/WEB verse pairs, mean {np.mean(lengths) / 2:.1f} tokens per sentence; "
          f"{numba.get_num_threads()} threads")
    vocabulary = Vocabulary(pairs)
    for name, (pattern_types, variable_types) in SCHEMES.items():
        term = SrkTerm([1, 2, 3, 4], pattern_types, variable_types)
        start = time.perf_counter()
        term.prepare(vocabulary)
        prepare = time.perf_counter() - start
        evals_per_second(term, 8)  # compile (cached after the first run)
        fast = evals_per_second(term, args.block)
        naive = naive_per_second(term, vocabulary, args.naive)
        numba.set_num_threads(1)
        single = evals_per_second(term, args.block // 2)
        numba.set_num_threads(numba.config.NUMBA_NUM_THREADS)
        anchor = 1500 if name.startswith("kb") else 500
        print(f"{name}: prepare {prepare:.1f} s ({len(pairs)} pairs: relations + linkings); "
              f"{fast:,.0f} evaluations/s on {numba.get_num_threads()} threads, {single:,.0f} on 1 "
              f"({fast / single:.2f}x); Algorithm 1 in Python {naive:,.1f}/s -> {fast / naive:,.0f}x; "
              f"vs the paper's {anchor:,}/s on 8 cores: {fast / anchor:.1f}x")
    term = SrkTerm([1, 2, 3, 4], *SCHEMES["TESRK (stem+synonym)"])
    term.prepare(vocabulary)
    rows_all = np.arange(len(pairs))
    start = time.perf_counter()
    term.block(rows_all, rows_all, upper=True)
    seconds = time.perf_counter() - start
    evaluations = len(pairs) * (len(pairs) + 1) / 2
    print(f"TESRK Gram {len(pairs)} x {len(pairs)} (upper triangle, {evaluations:,.0f} evaluations): {seconds:.1f} s "
          f"= {evaluations / seconds:,.0f} evaluations/s")


if __name__ == "__main__":
    main()
