"""Benchmark the delayed sparse randomized SVD (kernel-CA paper §8.1) and the table counting.

In one run: (1) counting throughput in tokens/s for W = 10 and W = 30; (2) top-k SVD of the CA matrix
of the flat table by our delayed SVD, by our delayed SVD of the CA of N^power (the power taken inside the
timed part), by scikit-learn's randomized_svd on the densified CA matrix (only where it fits in memory)
and by scipy's svds on a LinearOperator: seconds and peak RSS, each in a fresh process, with the ratio to
the untransformed delayed SVD. The table is restricted to the most frequent V words.

    python -m scripts.bench.ca --corpus data/text8-offline --vocab 10000 100000 --k 300 --k-large 1000
    python -m scripts.bench.ca --corpus data/text8-offline --vocab 100000 --svds-limit 0 --k-large 0 --no-counting
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import tempfile
import time

import numpy as np
import scipy.sparse as sp


def table(corpus: str, vocab: int | None, window: int) -> tuple[sp.csr_matrix, int, float]:
    from kcooc.ca.corpus import token_chunks
    from kcooc.ca.counting import Vocabulary, contingency_table, offset_tables

    vocabulary = Vocabulary.build(token_chunks(corpus), 5, vocab)
    start = time.perf_counter()
    tokens = 0

    def ids():
        nonlocal tokens
        for chunk in token_chunks(corpus):
            tokens += len(chunk)
            yield vocabulary.ids(chunk)

    N = contingency_table(offset_tables(ids(), len(vocabulary.words), window, separate=False), "flat")
    return N, tokens, time.perf_counter() - start


def decompose(method: str, path: str, k: int) -> float:
    from kcooc.ca.model import elementwise_power
    from kcooc.ca.svd import CAOperator, randomized_svd

    N = sp.load_npz(path)
    start = time.perf_counter()  # building the operator (margins) is timed: N^power's are new
    power = float(method[len("delayed-power"):]) if method.startswith("delayed-power") else 1.0
    op = CAOperator(elementwise_power(N, power) if power != 1 else N)
    if method.startswith("delayed"):
        randomized_svd(op, k, oversample=10, power_iterations=4)
    elif method == "sklearn-dense":
        from sklearn.utils.extmath import randomized_svd as sk_randomized_svd

        sk_randomized_svd(op.dense(), k, n_oversamples=10, n_iter=4, random_state=0)
    else:
        from scipy.sparse.linalg import LinearOperator, svds

        linear = LinearOperator(op.shape, matvec=lambda v: op.matmat(v.reshape(-1, 1)).ravel(),
                                rmatvec=lambda v: op.rmatmat(v.reshape(-1, 1)).ravel(),
                                matmat=op.matmat, rmatmat=op.rmatmat, dtype=np.float64)
        svds(linear, k=k, random_state=0)
    return time.perf_counter() - start


def isolated(method: str, path: str, k: int) -> tuple[float, float]:
    """(seconds, peak RSS in MB) of one decomposition in a fresh process."""
    # VmHWM is this process's own peak; ru_maxrss would also carry the parent's peak across fork and exec
    code = ("from scripts.bench import ca; "
            f"seconds = ca.decompose({method!r}, {path!r}, {k}); "
            "peak = [l.split()[1] for l in open('/proc/self/status') if l.startswith('VmHWM')][0]; "
            "print(seconds, peak)")
    out = subprocess.run([sys.executable, "-c", code], check=True, capture_output=True, text=True).stdout.split()
    return float(out[0]), int(out[1]) / 1024


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--corpus", default="data/text8-offline")
    parser.add_argument("--vocab", type=int, nargs="+", default=[10000, 100000])
    parser.add_argument("--k", type=int, default=300)
    parser.add_argument("--dense-limit-gb", type=float, default=8.0)
    parser.add_argument("--svds-limit", type=int, default=20000, help="run svds only up to this vocabulary")
    parser.add_argument("--k-large", type=int, default=1000, help="also our SVD with this k on the largest table")
    parser.add_argument("--power", type=float, default=0.25, help="the delayed SVD of N^power is timed too")
    parser.add_argument("--no-counting", action="store_true", help="skip the counting throughput")
    args = parser.parse_args()
    # counting throughput (this process's peak RSS, printed last, is the counting's)
    for window in () if args.no_counting else (10, 30):
        N, tokens, seconds = table(args.corpus, None, window)
        print(json.dumps({"counting_window": window, "tokens": tokens, "seconds": round(seconds, 1),
                          "tokens_per_second": round(tokens / seconds), "nonzeros": int(N.nnz)}), flush=True)
    with tempfile.TemporaryDirectory() as tmp:
        for vocab in args.vocab:
            N, _, _ = table(args.corpus, vocab, 10)
            path = os.path.join(tmp, f"N{vocab}.npz")
            sp.save_npz(path, N)
            row = {"vocab": N.shape[0], "nonzeros": int(N.nnz), "k": args.k}
            methods = ["delayed", f"delayed-power{args.power:g}"]
            if N.shape[0] <= args.svds_limit:
                methods.append("scipy-svds")
            if N.shape[0] ** 2 * 8 * 3 / 2**30 < args.dense_limit_gb:
                methods.append("sklearn-dense")
            for method in methods:
                seconds, rss = isolated(method, path, args.k)
                row[method] = {"seconds": round(seconds, 1), "peak_rss_mb": round(rss)}
            base = row["delayed"]
            for method in methods[1:]:
                row[f"{method}_vs_delayed"] = {"time": round(row[method]["seconds"] / base["seconds"], 1),
                                               "memory": round(row[method]["peak_rss_mb"] / base["peak_rss_mb"], 1)}
            print(json.dumps(row), flush=True)
        if args.k_large:
            seconds, rss = isolated("delayed", path, args.k_large)
            print(json.dumps({"vocab": N.shape[0], "k": args.k_large, "delayed": {"seconds": round(seconds, 1),
                                                                              "peak_rss_mb": round(rss)}}), flush=True)
    print("peak RSS of this process (MB):", resource.getrusage(resource.RUSAGE_SELF).ru_maxrss // 1024)  # counting


if __name__ == "__main__":
    main()
