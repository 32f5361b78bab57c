"""Path-kernel throughput and the cost of a 1-NN graph with and without kernel-LSH (Garg et al. 2018, §4.2).

Kernel evaluations per second on Brown sentences cut to 20 (tag, word) tuples, against the same
dynamic programme in pure Python run in the same process; then 1-NN graphs of N = 1k, 4k, 16k paths:
kernel evaluations and wall time for the exact graph and for random-kNN and KLSH hashing, and how
close the hashed neighbours are (mean similarity of the found neighbour / of the true one).

    python -m scripts.bench.nsk --data data/nsk/all.jsonl
"""

from __future__ import annotations

import argparse
import json
import tempfile
import time

import numba
import numpy as np

from kcooc.nsk.hashing import NeighbourIndex
from kcooc.nsk.model import ConvolutionKernel
from kcooc.nsk.structures import Labels, read_structures


def python_path_kernel(s, t, lam, max_length):
    """The same DP as kcooc/nsk/kernels.py, in plain Python (exact-match tuples, sigma = 1)."""
    p, q = len(s), len(t)
    match = [[1.0 if s[a] == t[b] else 0.0 for b in range(q)] for a in range(p)]
    current = [row[:] for row in match]
    total = sum(map(sum, current))
    for _ in range(1, max_length):
        decayed = [[0.0] * q for _ in range(p)]
        for a in range(p):
            for b in range(q):
                value = current[a][b]
                if a:
                    value += lam * decayed[a - 1][b]
                if b:
                    value += lam * decayed[a][b - 1]
                if a and b:
                    value -= lam * lam * decayed[a - 1][b - 1]
                decayed[a][b] = value
        current = [[match[a][b] * lam * lam * decayed[a - 1][b - 1] if a and b else 0.0 for b in range(q)]
                   for a in range(p)]
        total += sum(map(sum, current))
    return total


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--data", default="data/nsk/all.jsonl")
    parser.add_argument("--sizes", default="1000,4000,16000")
    args = parser.parse_args()
    rows = [json.loads(line) for line in open(args.data, encoding="utf-8")]
    long_rows = [dict(r, tuples=r["tuples"][:20]) for r in rows if len(r["tuples"]) >= 20][:1000]
    with tempfile.NamedTemporaryFile("w", suffix=".jsonl", encoding="utf-8") as f:
        f.writelines(json.dumps(r) + "\n" for r in long_rows)
        f.flush()
        twenty = read_structures(f.name, Labels(), Labels())
    kernel = ConvolutionKernel("path", 0.8, 4)
    kernel.raw(twenty, np.arange(10), twenty, np.arange(10))  # compile
    n = len(twenty)
    start = time.perf_counter()
    kernel.raw(twenty, np.arange(n), twenty, np.arange(n))
    fast = n * n / (time.perf_counter() - start)
    numba.set_num_threads(1)
    start = time.perf_counter()
    kernel.raw(twenty, np.arange(n // 2), twenty, np.arange(n))
    single = n * (n // 2) / (time.perf_counter() - start)
    numba.set_num_threads(numba.config.NUMBA_NUM_THREADS)
    seqs = [list(zip(twenty.edges[twenty.ptr[i]:twenty.ptr[i + 1]], twenty.nodes[twenty.ptr[i]:twenty.ptr[i + 1]]))
            for i in range(20)]
    start = time.perf_counter()
    for s in seqs:
        for t in seqs:
            python_path_kernel(s, t, 0.8, 4)
    slow = len(seqs) ** 2 / (time.perf_counter() - start)
    print(f"path kernel, length-20 paths, lambda 0.8, max length 4: {fast:,.0f} evaluations/s on "
          f"{numba.get_num_threads()} threads ({single:,.0f} on 1, {fast / single:.2f}x); the same DP in Python "
          f"{slow:,.0f}/s -> {fast / slow:,.0f}x")
    edges, nodes = Labels(), Labels()
    pool = read_structures(args.data, edges, nodes)
    rng = np.random.default_rng(0)
    for size in (int(x) for x in args.sizes.split(",")):
        data = pool.subset(np.sort(rng.choice(len(pool), size=min(size, len(pool)), replace=False)))
        results = {}
        for method in ("exact", "random-knn", "klsh"):
            kernel = ConvolutionKernel("path", 0.8, 4)
            start = time.perf_counter()
            _, similarity = NeighbourIndex(kernel, data, method, seed=0).query(data, 1, exclude_self=True)
            results[method] = (kernel.evaluations, time.perf_counter() - start, similarity[:, 0])
        exact_evals, exact_time, best = results["exact"]
        line = [f"N={len(data)}: exact {exact_evals:,} evaluations {exact_time:.1f} s"]
        for method in ("random-knn", "klsh"):
            evals, seconds, found = results[method]
            line.append(f"{method} {evals:,} ({evals / len(data) ** 1.5:.1f} N^1.5, {exact_evals / evals:.1f}x fewer) "
                        f"{seconds:.1f} s ({exact_time / seconds:.1f}x faster), found/true neighbour similarity "
                        f"{found.mean() / best.mean():.3f}")
        print("; ".join(line))


if __name__ == "__main__":
    main()
