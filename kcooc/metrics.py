"""Evaluation metrics, vectorised: MRR and Recall@k with ties in expectation (PHSIC paper §6.2), classification
scores, ROC-AUC, and MAP/MRR of grouped answer selection. Spearman's rho is scipy's ``spearmanr``."""

from __future__ import annotations

import numpy as np
from scipy.special import digamma


def _rank_ranges(scores: np.ndarray, true_index: np.ndarray | int) -> tuple[np.ndarray, np.ndarray]:
    """Per question: how many candidates score above the true one, and how many tie with it (itself included)."""
    scores = np.asarray(scores, dtype=np.float64)
    true_index = np.broadcast_to(np.asarray(true_index), (scores.shape[0],))
    true_scores = scores[np.arange(scores.shape[0]), true_index][:, None]
    return (scores > true_scores).sum(axis=1), (scores == true_scores).sum(axis=1)


def mean_reciprocal_rank(scores: np.ndarray, true_index: np.ndarray | int = 0) -> float:
    """MRR of the true candidate in each row of ``scores`` (questions x candidates).

    Ties are broken at random in expectation: with ``g`` candidates above and ``e`` tied, the
    expected reciprocal rank is (H(g+e) - H(g)) / e, so a constant scorer gets exactly chance.
    """
    above, tied = _rank_ranges(scores, true_index)

    def harmonic(m):
        return digamma(m + 1.0) + np.euler_gamma

    return float(np.mean((harmonic(above + tied) - harmonic(above)) / tied))


def recall_at_k(scores: np.ndarray, k: int, true_index: np.ndarray | int = 0) -> float:
    """Fraction of questions whose true candidate ranks in the top ``k`` (ties in expectation)."""
    above, tied = _rank_ranges(scores, true_index)
    return float(np.mean(np.clip((k - above) / tied, 0.0, 1.0)))


def classification_scores(labels: np.ndarray, predictions: np.ndarray) -> dict[str, float]:
    """Accuracy, and precision / recall / F1 of the positive class (labels and predictions in {0, 1})."""
    labels, predictions = np.asarray(labels).astype(bool), np.asarray(predictions).astype(bool)
    true_positives = int((labels & predictions).sum())
    precision = true_positives / max(int(predictions.sum()), 1)
    recall = true_positives / max(int(labels.sum()), 1)
    f1 = 2 * precision * recall / (precision + recall) if precision + recall else 0.0
    return {"accuracy": float((labels == predictions).mean()) if labels.size else 0.0,
            "precision": precision, "recall": recall, "f1": f1}


def roc_auc(labels: np.ndarray, scores: np.ndarray) -> float:
    """Area under the ROC curve: the probability that a positive scores above a negative, ties
    counting half (Mann & Whitney 1947's U over n1 n0; scikit-learn's ``roc_auc_score``, without
    importing scikit-learn, which costs a second of a run)."""
    labels, scores = np.asarray(labels).astype(bool), np.asarray(scores, dtype=np.float64)
    _, inverse, counts = np.unique(scores, return_inverse=True, return_counts=True)
    ranks = (np.cumsum(counts) - (counts - 1) / 2)[inverse]  # 1-based, tied scores share their mean rank
    positives = int(labels.sum())
    negatives = labels.size - positives
    return float((ranks[labels].sum() - positives * (positives + 1) / 2) / (positives * negatives))


def grouped_ranking(groups: np.ndarray, labels: np.ndarray, scores: np.ndarray) -> dict[str, float]:
    """MAP and MRR over questions (``groups``) that have both a correct and a wrong candidate.

    Candidates are ranked by decreasing score, ties in input order; questions with only correct or
    only wrong candidates are left out, as in the answer-selection literature (Yao et al., 2013).
    """
    groups, labels = np.asarray(groups), np.asarray(labels).astype(bool)
    scores = np.asarray(scores, dtype=np.float64)
    _, group_ids = np.unique(groups, return_inverse=True)
    order = np.lexsort((np.arange(labels.size), -scores, group_ids))
    g, hit = group_ids[order], labels[order]
    starts = np.r_[0, np.flatnonzero(np.diff(g)) + 1]
    lengths = np.diff(np.r_[starts, g.size])
    rank = np.arange(g.size) - np.repeat(starts, lengths) + 1
    cumulative = np.cumsum(hit)
    hits_so_far = cumulative - np.repeat(np.r_[0, cumulative][starts], lengths)
    n_groups = starts.size
    positives = np.bincount(g, weights=hit, minlength=n_groups)
    sizes = np.bincount(g, minlength=n_groups)
    average_precision = np.bincount(g, weights=np.where(hit, hits_so_far / rank, 0.0), minlength=n_groups)
    first_hit = np.full(n_groups, np.inf)
    np.minimum.at(first_hit, g[hit], rank[hit])
    usable = (positives > 0) & (positives < sizes)
    if not usable.any():
        return {"map": 0.0, "mrr": 0.0, "questions": 0}
    return {"map": float((average_precision[usable] / positives[usable]).mean()),
            "mrr": float((1.0 / first_hit[usable]).mean()), "questions": int(usable.sum())}
