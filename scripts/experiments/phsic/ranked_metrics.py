"""Metrics of a `kcooc phsic score --candidates` output whose input had a 0/1 label column.

Reads lines `context<TAB>candidate<TAB>label<TAB>score<TAB>rank` (ten candidates per context) and
prints ROC-AUC; MRR; Recall@1, Recall@2 as in the PHSIC paper's Table 5.

Usage: python -m scripts.experiments.phsic.ranked_metrics RANKED.tsv [--label-col 3] [--score-col 4]
"""

import argparse

import numpy as np
from sklearn.metrics import roc_auc_score

from kcooc import metrics


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("ranked")
    parser.add_argument("--label-col", type=int, default=3)
    parser.add_argument("--score-col", type=int, default=4)
    args = parser.parse_args()
    with open(args.ranked, encoding="utf-8") as f:
        rows = [line.rstrip("\n").split("\t") for line in f]
    keys = [r[0] for r in rows]
    labels = np.array([int(r[args.label_col - 1]) for r in rows])
    scores = np.array([float(r[args.score_col - 1]) for r in rows])
    starts = [i for i in range(len(keys)) if i == 0 or keys[i] != keys[i - 1]]
    sizes = set(np.diff(starts + [len(keys)]).tolist())
    if len(sizes) != 1:
        raise SystemExit(f"{args.ranked}: contexts have different numbers of candidates {sorted(sizes)}")
    width = sizes.pop()
    matrix, truth = scores.reshape(-1, width), labels.reshape(-1, width).argmax(axis=1)
    print(f"{len(starts)} contexts x {width} candidates: ROC-AUC {roc_auc_score(labels, scores):.3f}; "
          f"MRR {metrics.mean_reciprocal_rank(matrix, truth):.3f}; "
          f"Recall@1 {metrics.recall_at_k(matrix, 1, truth):.3f}, Recall@2 {metrics.recall_at_k(matrix, 2, truth):.3f}")


if __name__ == "__main__":
    main()
