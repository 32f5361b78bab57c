import numpy as np
import pytest

from kcooc import metrics


def test_ranking_metrics_with_ties_in_expectation():
    constant = np.zeros((4, 10))
    assert metrics.mean_reciprocal_rank(constant) == pytest.approx(np.mean(1 / np.arange(1, 11)))  # paper: .29
    assert metrics.recall_at_k(constant, 1) == pytest.approx(0.1)
    assert metrics.recall_at_k(constant, 2) == pytest.approx(0.2)
    scores = np.array([[3.0, 1, 2], [0, 5, 1], [1, 1, 0]])
    assert metrics.mean_reciprocal_rank(scores, [0, 0, 1]) == pytest.approx((1 + 1 / 3 + 0.75) / 3)
    assert metrics.recall_at_k(scores, 1, [0, 0, 1]) == pytest.approx((1 + 0 + 0.5) / 3)


def test_grouped_ranking_equals_a_per_question_loop(rng):
    from kcooc.metrics import grouped_ranking

    groups = rng.integers(0, 12, size=200)
    labels = rng.random(200) < 0.3
    scores = rng.integers(0, 6, size=200).astype(float)  # many ties: broken by input order
    aps, rrs = [], []
    for q in np.unique(groups):
        index = np.flatnonzero(groups == q)
        ranked = sorted(index, key=lambda i: (-scores[i], i))
        hits = [labels[i] for i in ranked]
        if all(hits) or not any(hits):
            continue
        precisions = [sum(hits[:r + 1]) / (r + 1) for r in range(len(hits)) if hits[r]]
        aps.append(np.mean(precisions))
        rrs.append(1 / (hits.index(True) + 1))
    result = grouped_ranking(groups, labels, scores)
    assert result["questions"] == len(aps)
    assert np.isclose(result["map"], np.mean(aps)) and np.isclose(result["mrr"], np.mean(rrs))


def test_classification_scores_on_a_small_case():
    from kcooc.metrics import classification_scores

    scores = classification_scores([1, 1, 0, 0, 1], [1, 0, 0, 1, 1])
    assert scores == {"accuracy": 0.6, "precision": 2 / 3, "recall": 2 / 3, "f1": 2 / 3}


def test_roc_auc_counts_ordered_pairs_and_equals_scikit_learn(rng):
    from sklearn.metrics import roc_auc_score

    labels = rng.random(500) < 0.3
    scores = np.round(rng.normal(size=500) + labels, 1)  # many ties
    pairs = [(p > n) + 0.5 * (p == n) for p in scores[labels] for n in scores[~labels]]
    assert metrics.roc_auc(labels, scores) == pytest.approx(np.mean(pairs), abs=1e-12)
    assert metrics.roc_auc(labels, scores) == pytest.approx(roc_auc_score(labels, scores), abs=1e-12)
    assert metrics.roc_auc([True, False, True], [0.9, 0.1, 0.9]) == 1.0
