"""Dialogue response selection, the PHSIC paper's §6.2 protocol (Tables 4, 5 and 7 analogues).

Train on the first n context->response pairs of data/dialogue/train.tsv (n = 1e3, 1e4, 1e5, all),
rank the ten candidates of every test context, report ROC-AUC; MRR; Recall@1, 2, the learning
time, and Spearman's rho between models. Writes docs/results-dialogue.md.

Usage: python -m scripts.experiments.phsic.eval_dialogue --data data/dialogue --fasttext data/fasttext/en-300.bin \
           --out docs/results-dialogue.md
"""

from __future__ import annotations

import argparse
import os
import platform
import time

import numpy as np
from scipy.stats import spearmanr
from sklearn.metrics import roc_auc_score

from kcooc import metrics
from kcooc.encoders import FastTextEncoder, HashingEncoder, WordLlamaEncoder
from kcooc.linalg import normalize_rows
from kcooc.phsic import PHSIC
from scripts.reports import write_report

SIZES = [1000, 10000, 100000, None]


def read_tsv(path: str) -> list[list[str]]:
    with open(path, encoding="utf-8") as f:
        return [line.rstrip("\n").split("\t") for line in f]


def encode(encoder, sentences: list[str], block: int = 8192):
    parts = [encoder.encode(sentences[i : i + block]) for i in range(0, len(sentences), block)]
    import scipy.sparse as sp

    return sp.vstack(parts, format="csr") if sp.issparse(parts[0]) else np.vstack(parts)


def evaluate(scores: np.ndarray, labels: np.ndarray) -> tuple[float, float, float, float]:
    """ROC-AUC over all candidate pairs; MRR, R@1, R@2 over the ten-choice questions."""
    matrix, truth = scores.reshape(-1, 10), labels.reshape(-1, 10).argmax(axis=1)
    return (float(roc_auc_score(labels, scores)), metrics.mean_reciprocal_rank(matrix, truth),
            metrics.recall_at_k(matrix, 1, truth), metrics.recall_at_k(matrix, 2, truth))


def fmt(row) -> str:
    return "{:.2f}; {:.2f}; {:.2f}, {:.2f}".format(*row)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--data", default="data/dialogue")
    parser.add_argument("--fasttext", default="data/fasttext/en-300.bin")
    parser.add_argument("--out", default="docs/results-dialogue.md")
    args = parser.parse_args()

    train = read_tsv(os.path.join(args.data, "train.tsv"))
    test = read_tsv(os.path.join(args.data, "test-candidates.tsv"))
    x_train, y_train = [r[0] for r in train], [r[1] for r in train]
    x_test, y_test = [r[0] for r in test], [r[1] for r in test]
    labels = np.array([int(r[2]) for r in test])
    sizes = [(s, s or len(train)) for s in SIZES if s is None or s < len(train)]

    encoders = {"fastText": FastTextEncoder(args.fasttext, pooling="sum"), "WordLlama": WordLlamaEncoder(),
                "hashing": HashingEncoder(n_features=1024, word_ngrams=2)}
    encoded, encode_seconds = {}, {}
    for name, encoder in encoders.items():
        start = time.perf_counter()
        encoded[name] = (encode(encoder, x_train), encode(encoder, y_train))
        encode_seconds[name] = time.perf_counter() - start
        encoded[name] += (encode(encoder, x_test), encode(encoder, y_test))

    results: dict[str, list] = {"Chance level (constant score)": [evaluate(np.zeros(len(labels)), labels)] * len(sizes)}
    test_scores: dict[str, np.ndarray] = {}
    for name in ("fastText", "WordLlama"):
        _, _, X, Y = encoded[name]
        cosine = np.einsum("ij,ij->i", normalize_rows(X), normalize_rows(Y))
        results[f"cos(x, y) of {name} vectors, no training"] = [evaluate(cosine, labels)] * len(sizes)
        test_scores[f"cos {name}"] = cosine
    runs = [("fastText", "cos", {}), ("WordLlama", "cos", {}), ("hashing", "cos", {}),
            ("fastText", "rbf", {"rank": 100}), ("fastText", "rbf", {"rank": 100, "normalize": True}),
            ("WordLlama", "rbf", {"rank": 100, "normalize": True})]
    fit_seconds: dict[str, list] = {}
    for encoder_name, kernel, params in runs:
        label = f"PHSIC {encoder_name} {kernel.upper() if kernel == 'rbf' else kernel}"
        label += " ICD d=100" if params else ""
        label += ", unit vectors" if params.get("normalize") else ""
        Xtr, Ytr, X, Y = encoded[encoder_name]
        results[label], fit_seconds[label] = [], []
        for _, n in sizes:
            start = time.perf_counter()
            model = PHSIC(kernel, **params).fit(Xtr[:n], Ytr[:n])
            fit_seconds[label].append(time.perf_counter() - start)
            scores = model.score(X, Y)
            results[label].append(evaluate(scores, labels))
            print(label, n, fmt(results[label][-1]), f"{fit_seconds[label][-1]:.2f}s", flush=True)
        test_scores[label] = scores

    header = " | ".join(f"n = {n:,}" if s else f"all ({n:,})" for s, n in sizes)
    lines = [
        "# Dialogue response selection (PHSIC paper §6.2, Tables 4, 5, 7 analogues)",
        "",
        "Made by `make dialogue` (= `python -m scripts.experiments.phsic.data_dialogue data/dialogue`, "
        "`python -m scripts.experiments.phsic.data_fasttext ...`,",
        "`python -m scripts.experiments.phsic.eval_dialogue --data data/dialogue --fasttext data/fasttext/en-300.bin "
        "--out docs/results-dialogue.md`)",
        f"on {os.cpu_count()} cores ({platform.processor() or platform.machine()}), "
        f"Python {platform.python_version()}.",
        "",
        f"Data: chitchat-dataset 0.9.0 (MIT), {len(train):,} adjacent-turn context->response training pairs;",
        f"{len(labels) // 10:,} held-out test contexts (from 100 conversations never seen in training), each a",
        "ten-choice question: its true response plus nine responses of other test contexts, shuffled.",
        "fastText: skip-gram, 300-d, trained by `make data` on GCIDE (Debian dict-gcide) + the training side of the",
        "dialogue data; sentence vector = sum of word vectors (Eq. 22). WordLlama: the 256-d static embeddings of",
        "wordllama 0.4.0 (mean-pooled). Hashing: signed hashing of word 1-2-grams into 1024 columns.",
        "",
        "## Predictive performance: ROC-AUC; MRR; Recall@1, Recall@2 (Table 5 analogue)",
        "",
        f"| model | {header} |",
        "|---|" + "---|" * len(sizes),
    ]
    lines += [f"| {label} | " + " | ".join(fmt(r) for r in rows) + " |" for label, rows in results.items()]
    lines += ["", "## Learning time [s] (Table 4 analogue)", "",
              "PHSIC fit on already-encoded vectors (statistics, plus bandwidth and incomplete Cholesky for RBF);",
              "encoding the whole training set once took: "
              + ", ".join(f"{k} {v:.1f} s" for k, v in encode_seconds.items()) + ".", "",
              f"| model | {header} |", "|---|" + "---|" * len(sizes)]
    lines += [f"| {label} | " + " | ".join(f"{t:.2f}" for t in times) + " |" for label, times in fit_seconds.items()]
    names = list(test_scores)
    lines += ["", "## Spearman's rho between models' test scores, n = all (Table 7 analogue)", "",
              "| | " + " | ".join(names) + " |", "|---|" + "---|" * len(names)]
    for a in names:
        rhos = [f"{spearmanr(test_scores[a], test_scores[b]).statistic:.2f}" for b in names]
        lines.append(f"| {a} | " + " | ".join(rhos) + " |")
    write_report(args.out, lines, "dialogue_notes.md")
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
