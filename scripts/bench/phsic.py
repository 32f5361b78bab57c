"""PHSIC benchmarks; every number is a ratio against a baseline run in this same process.

1. Statistics step (feature-space cos, n pairs, d dims, streamed in 8192-pair blocks) vs a
   bare numpy GEMM X^T Y of the same shape and dtype (goal: <= 1.5x). Paper: 2.8 s for
   n = 5e5, d = 300 on a 6-core Xeon.
2. End to end through the real CLI, TSV in -> model / scores out, with the hashing and fastText
   encoders (goal: >= 100k pairs/s on 2 cores), vs the I/O floor of reading the same file.
3. RBF-ICD rank 100 on n pairs (fit + score), vs a per-example loop like the authors' code
   (Eq. 34 then Eq. 33 one pair at a time) timed on a subset and extrapolated.

Usage: python -m scripts.bench.phsic [--n 500000] [--dim 300] [--tsv data/dialogue/train.tsv]
                                     [--fasttext data/fasttext/en-300.bin]
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time

import numpy as np

from kcooc.encoders import FastTextEncoder
from kcooc.phsic import PHSIC


def best_of(fn, repeat: int = 3) -> float:
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return min(times)


def stream_fit(X, Y, kernel="cos", block=8192):
    model = PHSIC(kernel).fit_maps(X[:block], Y[:block])
    for start in range(0, X.shape[0], block):
        model.partial_fit(X[start : start + block], Y[start : start + block])
    return model.finalize()


def bench_statistics(n: int, dim: int) -> None:
    rng = np.random.default_rng(0)
    for dtype in (np.float32, np.float64):
        X = rng.standard_normal((n, dim)).astype(dtype)
        Y = (X @ rng.standard_normal((dim, dim)).astype(dtype) * 0.1 + rng.standard_normal((n, dim))).astype(dtype)
        gemm = best_of(lambda X=X, Y=Y: X.T @ Y)
        fit = best_of(lambda X=X, Y=Y: stream_fit(X, Y))
        print(f"[stats] n={n} d={dim} {np.dtype(dtype).name}: PHSIC cos fit {fit:.2f} s, bare GEMM X^T Y "
              f"{gemm:.2f} s, ratio {fit / gemm:.2f}x")
        del X, Y


def replicate_tsv(source: str, n: int, path: str) -> None:
    with open(source, encoding="utf-8") as f:
        lines = f.readlines()
    with open(path, "w", encoding="utf-8") as out:
        for i in range(n):
            out.write(lines[i % len(lines)])


def run_cli(*args) -> float:
    start = time.perf_counter()
    subprocess.run([sys.executable, "-m", "kcooc", *args], check=True)
    return time.perf_counter() - start


def bench_end_to_end(tsv: str, n: int, fasttext: str | None, workdir: str) -> None:
    path = os.path.join(workdir, "pairs.tsv")
    replicate_tsv(tsv, n, path)
    floor = best_of(lambda: sum(len(line.split("\t")) for line in open(path, encoding="utf-8")), repeat=1)
    print(f"[e2e] {n} real dialogue pairs; I/O floor (read + split every line in Python): {n / floor:,.0f} pairs/s")
    encoders = [("hashing", [])]
    if fasttext and os.path.exists(fasttext):
        encoders.append(("fasttext", ["--encoder-model", fasttext]))
    for name, extra in encoders:
        model = os.path.join(workdir, f"{name}.npz")
        train = run_cli("phsic", "train", "-i", path, "-o", model, "--encoder", name, *extra, "-q")
        score = run_cli("phsic", "score", "-m", model, "-i", path, "-o", os.path.join(workdir, "s.tsv"), "-q")
        print(f"[e2e] {name:8s} train {n / train:,.0f} pairs/s ({train:.1f} s, {floor / train:.2f}x the I/O floor rate)"
              f"; score {n / score:,.0f} pairs/s ({score:.1f} s, {floor / score:.2f}x)")


def per_example_icd_scores(model: PHSIC, X, Y) -> np.ndarray:
    """The authors' style: Eq. 34 element by element, then Eq. 33, one pair at a time."""
    out = np.empty(len(X))
    for i in range(len(X)):
        vectors = []
        for feature_map, v in ((model.x_map, X[i]), (model.y_map, Y[i])):
            icd = feature_map.icd
            a = np.zeros(icd.dim)
            for j in range(icd.dim):
                k = feature_map.kernel(v[None], icd.pivot_points[j : j + 1])[0, 0]
                a[j] = (k - a[:j] @ icd.lower[j, :j]) / icd.lower[j, j]
            vectors.append(a)
        out[i] = (vectors[0] - model.mean_x_) @ model.covariance_ @ (vectors[1] - model.mean_y_)
    return out


def bench_icd(tsv: str, n: int, fasttext: str | None) -> None:
    with open(tsv, encoding="utf-8") as f:
        rows = [line.rstrip("\n").split("\t") for line in f]
    if fasttext and os.path.exists(fasttext):
        encoder, source = FastTextEncoder(fasttext), "fastText-sum vectors of real dialogue pairs"
        X0, Y0 = encoder.encode([r[0] for r in rows]), encoder.encode([r[1] for r in rows])
    else:
        rng = np.random.default_rng(0)
        X0 = rng.standard_normal((len(rows), 300)).astype(np.float32)
        Y0, source = X0 + rng.standard_normal(X0.shape).astype(np.float32), "random 300-d vectors"
    reps = -(-n // len(rows))
    X, Y = np.tile(X0, (reps, 1))[:n], np.tile(Y0, (reps, 1))[:n]
    start = time.perf_counter()
    model = PHSIC("rbf", rank=100).fit(X, Y)
    fit = time.perf_counter() - start
    start = time.perf_counter()
    scores = np.concatenate([model.score(X[i : i + 8192], Y[i : i + 8192]) for i in range(0, n, 8192)])
    score = time.perf_counter() - start
    subset = 2000
    start = time.perf_counter()
    slow = per_example_icd_scores(model, X[:subset], Y[:subset])
    loop = (time.perf_counter() - start) * n / subset
    np.testing.assert_allclose(slow, scores[:subset], rtol=1e-6, atol=1e-12)
    print(f"[icd] RBF-ICD d=100, n={n} ({source}): fit {fit:.1f} s, score {score:.1f} s "
          f"({n / score:,.0f} pairs/s); per-example loop (measured on {subset}, extrapolated) {loop:.0f} s: "
          f"batched scoring is {loop / score:.0f}x faster")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--n", type=int, default=500_000)
    parser.add_argument("--dim", type=int, default=300)
    parser.add_argument("--tsv", default="data/dialogue/train.tsv")
    parser.add_argument("--fasttext", default="data/fasttext/en-300.bin")
    parser.add_argument("--only", choices=["stats", "e2e", "icd"], default=None)
    args = parser.parse_args()
    if args.only in (None, "stats"):
        bench_statistics(args.n, args.dim)
    if args.only in (None, "e2e"):
        with tempfile.TemporaryDirectory() as workdir:
            bench_end_to_end(args.tsv, args.n, args.fasttext, workdir)
    if args.only in (None, "icd"):
        bench_icd(args.tsv, args.n, args.fasttext)


if __name__ == "__main__":
    main()
