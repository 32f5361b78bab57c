"""Table 2, Table 4a and Table 6 analogues of the nonstationary-kernel paper on Brown paths
(scripts/experiments/nsk/data_nsk.py): PK vs NPK (sigma learned by Algorithm 1) with both hashing
functions, k-NN without hashing, an SVM on the path kernel, repeated learning with the graph
recomputed, and the labels sigma zeroed. Every k-NN number comes from `kcooc nsk train` /
`kcooc nsk classify`.

    python -m scripts.experiments.nsk.eval_nsk --data data/nsk --out docs/results-nsk.md
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys

import numpy as np
import yaml

from scripts.reports import write_report

SEEDS = [0, 1, 2, 3, 4]


def kcooc(*args: str) -> None:
    subprocess.run([sys.executable, "-m", "kcooc", *args, "--jobs", "0"], check=True)


def classify(model: str, test: str, out: str, *options: str) -> dict:
    metrics = out + ".json"
    kcooc("nsk", "classify", "-m", model, "-i", test, "-o", out + ".tsv", "--metrics", metrics, "-q", *options)
    return json.load(open(metrics))


def cell(results: list[dict]) -> str:
    f1, p, r = (np.array([m[k] for m in results]) * 100 for k in ("f1", "precision", "recall"))
    spread = f" ± {f1.std():.1f}" if len(results) > 1 else ""
    return f"{f1.mean():.1f}{spread} ({p.mean():.1f}, {r.mean():.1f})"


def svm_row(train_path: str, test_path: str) -> str:
    """Table 6: an SVM on the (stationary) path kernel, C by 10-fold CV on F1 (kcooc.srk.svm)."""
    from kcooc.metrics import classification_scores
    from kcooc.nsk.model import ConvolutionKernel
    from kcooc.nsk.structures import Labels, read_structures
    from kcooc.srk.svm import fit, select_c

    edges, nodes = Labels(), Labels()
    train = read_structures(train_path, edges, nodes)
    test = read_structures(test_path, edges, nodes)
    kernel = ConvolutionKernel("path", 0.8, 4)
    gram = kernel(train, np.arange(len(train)), train, np.arange(len(train)))
    cross = kernel(test, np.arange(len(test)), train, np.arange(len(train)))
    selection = select_c(gram, train.labels, None, [0.1, 1.0, 10.0, 100.0], 10, 0, "none")
    predictions = (fit(gram, train.labels, selection.c, "none").decision_function(cross) > 0).astype(int)
    return cell([classification_scores(test.labels, predictions)]) + f" (C = {selection.c:g})"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--data", default="data/nsk")
    parser.add_argument("--runs", default="runs/nsk")
    parser.add_argument("--config", default="configs/nsk-brown.yaml")
    parser.add_argument("--out", default="docs/results-nsk.md")
    args = parser.parse_args()
    os.makedirs(args.runs, exist_ok=True)
    train, test = os.path.join(args.data, "train.jsonl"), os.path.join(args.data, "test.jsonl")
    model = os.path.join(args.runs, "npk.npz")
    summary = os.path.join(args.runs, "npk-train.json")
    kcooc("nsk", "train", "-c", args.config, "-i", train, "-o", model, "--summary", summary, "-q")
    learned = json.load(open(summary))
    table2 = {}
    for method in ("random-knn", "klsh"):
        for name, extra in (("PK", ["--stationary"]), ("NPK", [])):
            runs = [classify(model, test, os.path.join(args.runs, f"{name}-{method}-{seed}"), "--hashing", method,
                             "--seed", str(seed), *extra) for seed in SEEDS]
            table2[(method, name)] = runs
            print(method, name, cell(runs), file=sys.stderr)
    exact = {name: classify(model, test, os.path.join(args.runs, f"{name}-exact"), "--hashing", "exact", *extra)
             for name, extra in (("PK", ["--stationary"]), ("NPK", []))}
    iterations = {}
    config = yaml.safe_load(open(args.config))
    for count in (3,):
        path = os.path.join(args.runs, f"iterations-{count}.yaml")
        yaml.safe_dump({**config, "learn": {**config.get("learn", {}), "iterations": count}}, open(path, "w"))
        iter_model = os.path.join(args.runs, f"npk-{count}.npz")
        kcooc("nsk", "train", "-c", path, "-i", train, "-o", iter_model, "--summary", iter_model + ".json", "-q")
        iterations[count] = ([classify(iter_model, test, os.path.join(args.runs, f"iter{count}-{seed}"), "--seed",
                                       str(seed)) for seed in SEEDS], json.load(open(iter_model + ".json")))
    svm = svm_row(train, test)
    n_train = sum(1 for _ in open(train))
    n_test = sum(1 for _ in open(test))
    evals = {k: np.mean([m["kernel_evaluations"] for m in v]) for k, v in table2.items()}
    lines = ["# Nonstationary convolution kernels (Garg et al., 2018): Table 2 / 4a / 6 analogues", "",
             f"Brown corpus sentences as (tag, word) paths, news (positive) vs fiction: {n_train} training paths "
             f"({learned['positives']} news) and {n_test} test paths from other documents (`make data-nsk`).",
             "Path kernel lambda = 0.8, subsequences up to 4 tuples; sigma learned by Algorithm 1 for the most "
             "frequent",
             f"half of the {learned['edge_labels']} tags (beta = 25, alpha = 10, k = 4, random-kNN hashing); "
             "8 neighbours vote. F1 (precision, recall) on the positive class, in %; with hashing, mean ± sd over "
             "5 hashing seeds.",
             "", "Made by: `make nsk` (= `python -m scripts.experiments.nsk.eval_nsk --data data/nsk "
             "--out docs/results-nsk.md`)", "",
             "## Table 2 analogue: PK vs NPK with each hashing function", "",
             "| hashing | PK | NPK | kernel evaluations per test path |", "|---|---|---|---|"]
    for method in ("random-knn", "klsh"):
        lines.append(f"| {method} | {cell(table2[(method, 'PK')])} | {cell(table2[(method, 'NPK')])} | "
                     f"{evals[(method, 'NPK')] / n_test:,.0f} (exact: {n_train:,}) |")
    lines += ["", "## Table 6 analogue: without hashing", "", "| classifier | PK | NPK |", "|---|---|---|",
              f"| 8-NN, exact search | {cell([exact['PK']])} | {cell([exact['NPK']])} |",
              f"| SVM (path kernel, C by 10-fold CV) | {svm} | |", "",
              "## Table 4a analogue: learning repeated with the global graph recomputed (random-kNN hashing)", "",
              "| sweeps | NPK | labels zeroed | training kernel evaluations | training time |", "|---|---|---|---|---|",
              f"| 1 | {cell(table2[('random-knn', 'NPK')])} | {len(learned['zeroed_labels'])} | "
              f"{learned['kernel_evaluations']:,} | {learned['seconds']:.0f} s |"]
    for count, (runs, info) in iterations.items():
        lines.append(f"| {count} | {cell(runs)} | {len(info['zeroed_labels'])} | {info['kernel_evaluations']:,} | "
                     f"{info['seconds']:.0f} s |")
    losses = {name: (l0, l1) for name, l0, l1 in learned["losses"]}
    lines += ["", f"## Tags with sigma = 0 ({len(learned['zeroed_labels'])} of {learned['learned_labels']} learned, "
              "one sweep)", "", "| tag | summed loss with sigma 0 | with sigma 1 |", "|---|---|---|"]
    lines += [f"| `{tag}` | {losses[tag][0]:.3g} | {losses[tag][1]:.3g} |" for tag in learned["zeroed_labels"]]
    lines.append("")
    write_report(args.out, lines, "nsk_notes.md")
    print("\n".join(lines))


if __name__ == "__main__":
    main()
