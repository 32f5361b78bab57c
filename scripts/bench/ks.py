"""Benchmark kernelized sorting: seconds per iteration, split into the gradient (K P L, one GEMM)
and the linear assignment (scipy's LAPJV), and per full unsupervised run from the PCA start, at
n = 300, 1000, 3000 (linear kernels on 50-d random features; L = K of the objects reordered, with noise);
and seconds per Frank-Wolfe iteration of convex kernelized sorting (two GEMMs and a LAP; 5 iterations
including the set-up, divided by 5).

    python -m scripts.bench.ks [--sizes 300 1000 3000]
"""

from __future__ import annotations

import argparse
import json
import time

import numpy as np

from kcooc.ks.convex import convex_sorting
from kcooc.ks.sorting import assign, centre, pca_initialisations, relaxed_rows, sort


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[300, 1000, 3000])
    args = parser.parse_args()
    rng = np.random.default_rng(0)
    results = []
    for n in args.sizes:
        X = rng.random((n, 50))
        order = rng.permutation(n)
        Y = X[order] + 0.1 * rng.standard_normal((n, 50))
        K, L = centre(X @ X.T), centre(Y @ Y.T)
        init = pca_initialisations(K, L)[0]
        start = time.perf_counter()
        G = K @ relaxed_rows(L, init, "zero")
        gradient = time.perf_counter() - start
        start = time.perf_counter()
        assign(G)
        lap = time.perf_counter() - start
        start = time.perf_counter()
        trace = sort(K, L, init)
        run = time.perf_counter() - start
        start = time.perf_counter()
        convex_sorting(K, L, max_iter=5, tol=0.0)
        convex = (time.perf_counter() - start) / 5
        truth = np.argsort(order)
        results.append({"n": n, "gradient_s": round(gradient, 4), "lap_s": round(lap, 4),
                        "iterations": len(trace.history) - 1, "run_s": round(run, 2),
                        "convex_iteration_s": round(convex, 4),
                        "recovered": int((trace.match == truth).sum())})
        print(json.dumps(results[-1]))


if __name__ == "__main__":
    main()
