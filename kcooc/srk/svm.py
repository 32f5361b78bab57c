"""An SVM on a precomputed sentence-pair kernel, C chosen by k-fold cross-validation (paper §4.1).

Classification tasks pick C by F1 of the positive class; ranking tasks (answer selection, with a
question id per pair) by MRR, with folds that keep each question's candidates together.
"""

from __future__ import annotations

import dataclasses

import numpy as np
from sklearn.model_selection import StratifiedKFold
from sklearn.svm import SVC

from ..errors import InputError
from ..metrics import classification_scores, grouped_ranking


@dataclasses.dataclass
class Selection:
    c: float
    scores: dict[float, float]  # mean cross-validated objective per C
    objective: str


def fold_indices(labels: np.ndarray, groups: np.ndarray | None, folds: int, seed: int) -> list[np.ndarray]:
    """Held-out indices per fold: stratified by label, or whole questions per fold (seeded)."""
    if groups is None:
        folds = min(folds, int(np.bincount(labels.astype(int), minlength=2).min()))
        if folds < 2:
            raise InputError("cross-validation needs at least 2 training examples of each class")
        splitter = StratifiedKFold(n_splits=folds, shuffle=True, random_state=seed)
        return [test for _, test in splitter.split(np.zeros(labels.size), labels)]
    questions = np.unique(groups)
    if questions.size < 2:
        raise InputError("cross-validation by question needs at least 2 training questions")
    fold_of = np.empty(questions.size, np.int64)
    order = np.random.default_rng(seed).permutation(questions.size)
    fold_of[order] = np.arange(questions.size) % min(folds, questions.size)
    fold = fold_of[np.searchsorted(questions, groups)]
    return [np.flatnonzero(fold == f) for f in range(int(fold.max()) + 1)]


def fit(gram: np.ndarray, labels: np.ndarray, c: float, class_weight: str) -> SVC:
    if np.unique(labels).size < 2:
        raise InputError("the training set needs both positive and negative examples")
    weights = None if class_weight == "none" else class_weight
    return SVC(C=c, kernel="precomputed", class_weight=weights).fit(gram, labels)


def objective(labels: np.ndarray, decision: np.ndarray, groups: np.ndarray | None) -> float:
    if groups is None:
        return classification_scores(labels, decision > 0)["f1"]
    return grouped_ranking(groups, labels, decision)["mrr"]


def select_c(gram: np.ndarray, labels: np.ndarray, groups: np.ndarray | None, c_grid: list[float], folds: int,
             seed: int, class_weight: str) -> Selection:
    """The C of ``c_grid`` with the best mean held-out F1 (or MRR); ties go to the smaller C."""
    held_out = fold_indices(labels, groups, folds, seed)
    scores = {}
    for c in sorted(c_grid):
        values = []
        for test in held_out:
            train = np.setdiff1d(np.arange(labels.size), test)
            if np.unique(labels[train]).size < 2:
                continue
            model = fit(gram[np.ix_(train, train)], labels[train], c, class_weight)
            decision = model.decision_function(gram[np.ix_(test, train)])
            values.append(objective(labels[test], decision, None if groups is None else groups[test]))
        scores[c] = float(np.mean(values)) if values else 0.0
    best = max(scores, key=lambda c: (scores[c], -c))
    return Selection(best, scores, "f1" if groups is None else "mrr")
