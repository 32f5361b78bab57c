"""DeLong's AUC variance of the filtering benchmark (scripts/experiments/filtering/auc_intervals.py, and the
page that shows it) against a naive transcription of DeLong et al. (1988): psi over every clean / noisy pair,
the structural components as its row and column means, and the covariance of two scorers' components."""

import numpy as np
import pytest
from sklearn.metrics import roc_auc_score

from scripts.experiments.filtering import auc_intervals as ai


def psi(clean: np.ndarray, bad: np.ndarray) -> np.ndarray:
    """psi(X_i, Y_j): 1 when the clean pair ranks above the noisy one, 1/2 on a tie, 0 below (m x n)."""
    return (clean[:, None] > bad[None, :]) + 0.5 * (clean[:, None] == bad[None, :])


def naive_variance(a: tuple, b: tuple | None = None) -> float:
    """var(AUC_a) or var(AUC_a - AUC_b) from the m x n psi matrices, as DeLong et al. define it."""
    pa = psi(*a)
    p = pa - psi(*b) if b is not None else pa
    v10, v01 = p.mean(axis=1), p.mean(axis=0)
    m, n = p.shape
    return (((v10 - v10.mean()) ** 2).sum() / (m - 1)) / m + (((v01 - v01.mean()) ** 2).sum() / (n - 1)) / n


@pytest.fixture
def scores():
    rng = np.random.default_rng(7)
    clean = np.round(rng.normal(1.0, 1.0, 60), 1)  # rounded: ties within and across the two groups
    bad = np.round(rng.normal(0.0, 1.0, 25), 1)
    other_clean = clean + np.round(rng.normal(0.0, 0.7, 60), 1)  # a second scorer, correlated with the first
    other_bad = bad + np.round(rng.normal(0.3, 0.7, 25), 1)
    return (clean, bad), (other_clean, other_bad)


def test_components_are_the_row_and_column_means_of_psi(scores):
    (clean, bad), _ = scores
    v10, v01 = ai.structural_components(clean, bad)
    np.testing.assert_allclose(v10, psi(clean, bad).mean(axis=1))
    np.testing.assert_allclose(v01, psi(clean, bad).mean(axis=0))
    auc = roc_auc_score(np.r_[np.ones(clean.size), np.zeros(bad.size)], np.r_[clean, bad])
    assert v10.mean() == pytest.approx(auc) and v01.mean() == pytest.approx(auc)


def test_auc_interval_is_delongs(scores):
    (clean, bad), _ = scores
    auc, low, high = ai.auc_interval(clean, bad)
    se = np.sqrt(naive_variance((clean, bad)))
    assert low == pytest.approx(auc - 1.959964 * se) and high == pytest.approx(auc + 1.959964 * se)
    assert 0 < low < auc < high < 1


def test_difference_interval_is_delongs_paired_test(scores):
    a, b = scores
    difference, low, high = ai.difference_interval(a, b)
    assert difference == pytest.approx(ai.auc_interval(*a)[0] - ai.auc_interval(*b)[0])
    se = np.sqrt(naive_variance(a, b))
    assert (low, high) == pytest.approx((difference - 1.959964 * se, difference + 1.959964 * se))
    # correlated scorers: the paired interval is narrower than one that ignored the covariance
    unpaired = np.sqrt(naive_variance(a) + naive_variance(b))
    assert se < unpaired
    assert ai.difference_interval(a, a) == (0.0, 0.0, 0.0)


def test_perfect_separation_and_clipping():
    auc, low, high = ai.auc_interval(np.array([3.0, 4.0, 5.0]), np.array([0.0, 1.0]))
    assert (auc, low, high) == (1.0, 1.0, 1.0)
    with pytest.raises(ValueError, match="same clean and noisy pairs"):
        ai.difference_interval((np.ones(3), np.zeros(2)), (np.ones(2), np.zeros(2)))


def test_dropped_pairs_rank_below_every_score():
    values = ai.comparable(np.array([0.5, np.nan, -np.inf, np.inf, -2.0]))
    assert np.all(np.isfinite(values))
    assert values[2] < values[1] < values[4] < values[0] < values[3]


def test_the_page_finds_its_shortfalls_and_peer_wins_in_the_saved_scores(tmp_path):
    from scripts.experiments.filtering import eval_filtering as ev
    from scripts.experiments.filtering import page
    rng = np.random.default_rng(3)
    names = ["neighbour", "misordered"]
    kind = np.r_[np.full(300, -1), np.zeros(40, dtype=int), np.ones(40, dtype=int)]
    learned = np.where(kind < 0, rng.normal(2, 1, kind.size), rng.normal(0, 1, kind.size))
    learned[kind == 1] += 1.2  # misordered: nearly clean to the learned score
    without_order = learned + np.where(kind == 1, 0.5, 0.0)
    peer = np.where(kind == 1, rng.normal(-1, 1, kind.size), learned + rng.normal(0, 0.3, kind.size))
    scored = {page.LEARNED: learned, "lofo:order": without_order, "lofo:misaligned": learned,
              "length ratio (chars)": peer}
    (tmp_path / "en-xx").mkdir()
    np.savez_compressed(tmp_path / "en-xx" / "scores.npz", *scored.values())
    e = {"title": "en-xx", "names": names, "kind": kind, "scores": list(scored), "scores_file": "en-xx/scores.npz",
         "results": {label: ev.aucs(scored[label], kind, names) for label in (page.LEARNED, "length ratio (chars)")}
         | {"kcooc pure PHSIC": ev.aucs(np.where(kind < 0, 1.0, 0.0) * 0.0, kind, names)},  # a peer beats it: not shown
         "lofo": {family: ev.aucs(scored[f"lofo:{family}"], kind, names) for family in ("order", "misaligned")}}
    found = page.intervals(e, str(tmp_path))
    cells = {(c["row"], c["kind"]): c for c in found["below_90"]}
    assert set(cells) == {(page.LEARNED, "misordered"), (page.LOFO, "misordered")}
    left_out = cells[page.LOFO, "misordered"]
    assert left_out["auc"] == pytest.approx(e["lofo"]["order"]["misordered"])
    assert left_out["low"] < left_out["auc"] < left_out["high"]
    wins = {(c["row"], c["kind"]): c for c in found["peer_ahead"]}
    assert (page.LEARNED, "misordered") in wins and (page.LOFO, "misordered") in wins
    win = wins[page.LEARNED, "misordered"]
    expected = e["results"][page.LEARNED]["misordered"] - e["results"]["length ratio (chars)"]["misordered"]
    assert win["peer"] == "length ratio (chars)" and win["difference"] == pytest.approx(expected)
    assert win["high"] < 0  # far ahead on 40 pairs: beyond the noise
    text = "\n".join(page.interval_section({"xx": e}, {"xx": found}))
    assert "| en-xx | family left out | `misordered` |" in text and "beyond the noise" in text
    assert page.intervals({**e, "scores_file": "elsewhere.npz"}, str(tmp_path)) == {}
