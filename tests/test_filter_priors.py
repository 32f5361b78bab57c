"""The learned filter score's fixed priors (kcooc/filtering/priors.py) against a naive transcription."""

import numpy as np
import pytest

from kcooc.errors import KcoocError
from kcooc.filtering.classifier import PairClassifier
from kcooc.filtering.priors import PRIORS, FixedPriors, check_weights

NAMES = ["src_chars", "tgt_chars", "align_tgt", "align_src", "swaps_tgt", "char_ratio_above", "ending", "glued_tgt",
         "sentences"]
ORIENTATION = np.array([0, 0, 1, 1, 1, -1, 1, -1, 1])
WEIGHTS = {**dict.fromkeys(PRIORS.values(), 0.0), "order_weight": 0.3, "length_weight": 0.5, "alignment_weight": 0.7,
           "ending_weight": 0.4, "glued_weight": 2.0, "sentences_weight": 1.5}


def rows(n, seed):
    rng = np.random.default_rng(seed)
    return np.column_stack([rng.normal(4, 0.5, n), rng.normal(4, 0.5, n), rng.normal(-3, 1, n), rng.normal(-3, 1, n),
                            -rng.exponential(1, n) * (rng.random(n) < 0.5), rng.exponential(1.5, n),
                            (rng.random(n) > 0.2).astype(np.float64), np.log1p(rng.poisson(0.1, n)),
                            (1 + (breaks := rng.poisson(0.3, (2, n))).min(axis=0)) / (1 + breaks.max(axis=0))])


def naive_log_factors(sample, X):
    """The alignments (fewer than two shares' worth of rows: one share) read against the sample's median and median
    absolute deviation; the swaps against minus the sample's 5% quantile of them; minus the weight where the sides
    end differently (ending 0); twice the glued places' log(1 + n); 1.5 times how far the sentences disagree."""
    out = np.zeros(X.shape)
    for j in (2, 3):
        median = np.median(sample[:, j])
        spread = np.median(np.abs(sample[:, j] - median))
        below = np.maximum((median - np.nan_to_num(X[:, j], nan=median)) / spread, 0)
        out[:, j] = -0.7 * np.maximum(below - 2.0, 0)
    spread = max(-np.quantile(sample[:, 4], 0.05), 1.0)  # the swaps in units of their spread, free up to half of one
    out[:, 4] = 0.3 * np.minimum(np.nan_to_num(X[:, 4]) / spread + 0.5, 0)
    out[:, 5] = -0.5 * np.maximum(np.nan_to_num(X[:, 5]) - 2.5, 0)
    out[:, 6] = -0.4 * (1 - np.nan_to_num(X[:, 6], nan=1.0))
    out[:, 7] = -2.0 * np.nan_to_num(X[:, 7])  # (1 + n)^-2 for n glued places
    out[:, 8] = -1.5 * (1 - np.nan_to_num(X[:, 8], nan=1.0))  # exp(-1.5 (1 - a)), a the sentences' agreement
    return out


def test_each_prior_is_its_weight_times_its_input_beyond_its_allowance():
    sample, X = rows(300, 0), rows(500, 1)
    X[:5, 2:] = np.nan  # a missing value is no evidence
    priors = FixedPriors(NAMES, ORIENTATION, WEIGHTS).fit(sample)
    factors = priors.log_factors(X)
    np.testing.assert_allclose(factors, naive_log_factors(sample, X), rtol=1e-12, atol=1e-12)
    assert np.all(factors[:5] == 0) and np.all(factors <= 0)
    assert 10 < np.count_nonzero(factors[:, 2]) < 100  # the allowance: most alignments are free
    lower = X.copy()
    lower[:, 2] -= 1.0  # a worse alignment never raises the factor, and lowers it past the allowance
    assert np.all(priors.log_factors(lower)[5:, 2] <= factors[5:, 2])
    again = FixedPriors.from_arrays(NAMES, ORIENTATION, WEIGHTS, priors.arrays())
    assert np.array_equal(again.log_factors(X), factors)
    infinite = X[5:8].copy()
    infinite[:, 2:] = -np.inf  # infinitely bad inputs: a weight of 0 gives 0 (not 0 times infinity), others stay finite
    off = FixedPriors(NAMES, ORIENTATION, {**WEIGHTS, "ending_weight": 0.0}).fit(sample).log_factors(infinite)
    assert np.isfinite(off).all() and np.all(off[:, 6] == 0) and np.all(off[:, 4] < -1e300)


def test_the_swaps_are_read_in_units_of_their_spread():
    """The same swap lowers the score less in a corpus whose clean sides the order test doubts more; a corpus
    whose sides it hardly doubts is read in units of one, not of its tiny spread; an older model without the
    spreads is refused."""
    sample = rows(400, 3)
    wide = sample.copy()
    wide[:, 4] *= 3.0
    narrow = sample.copy()
    narrow[:, 4] *= 0.01
    probe = rows(5, 4)
    probe[:, 4] = -4.0
    factors = [FixedPriors(NAMES, ORIENTATION, WEIGHTS).fit(s) for s in (sample, wide, narrow)]
    spreads = [f.spreads_[[name for name in PRIORS if name in NAMES].index("swaps_tgt")] for f in factors]
    assert 1.0 < spreads[0] < spreads[1] and spreads[2] == 1.0
    logs = [f.log_factors(probe)[:, 4] for f in factors]
    assert np.all(logs[1] > logs[0]) and np.allclose(logs[2], 0.3 * (-4.0 + 0.5))
    arrays = factors[0].arrays()
    del arrays["spreads"]
    with pytest.raises(KcoocError, match="prior_spreads"):
        FixedPriors.from_arrays(NAMES, ORIENTATION, WEIGHTS, arrays)


def test_the_alignment_is_read_at_the_pairs_length():
    """Long pairs' alignments spread less: the same likelihood is further out for a long pair."""
    rng = np.random.default_rng(2)
    length = np.r_[np.full(1000, 2.5), np.full(1000, 5.0)]
    spread = np.where(length > 3, 0.2, 1.0)
    sample = np.column_stack([length, length, rng.normal(-3, 1, 2000) * spread, rng.normal(-3, 1, 2000) * spread,
                              np.zeros(2000), np.zeros(2000), np.ones(2000), np.zeros(2000), np.ones(2000)])
    priors = FixedPriors(NAMES, ORIENTATION, WEIGHTS).fit(sample)
    probe = np.array([[2.5, 2.5, -3 - 3.0, -3, 0, 0, 1, 0, 1], [5.0, 5.0, -0.6 - 3.0, -0.6, 0, 0, 1, 0, 1]])
    factors = priors.log_factors(probe)[:, 2]
    assert factors[0] > factors[1] and factors[1] < -1


def test_weights_are_checked():
    with pytest.raises(KcoocError, match="missing"):
        check_weights({"order_weight": 1.0})
    for bad in (-0.1, "1", None, True, 11):
        with pytest.raises(KcoocError, match=r"in \[0, 10\]"):
            check_weights({**WEIGHTS, "alignment_weight": bad})


def test_the_classifier_multiplies_its_score_by_the_alignment_prior_and_refuses_models_without_it():
    rng = np.random.default_rng(4)
    names = ["src_chars", "tgt_chars", "phsic", "align_tgt", "align_src"]
    F = np.column_stack([rng.normal(4, 0.5, 600), rng.normal(4, 0.5, 600), rng.normal(size=600),
                         rng.normal(-3, 1, 600), rng.normal(-3, 1, 600)])
    clean = F[:, 2] + F[:, 3] + 3 + 0.3 * rng.normal(size=600) > 0
    plain = PairClassifier(names, regularization=0.5, alignment_weight=0.0).fit(F, clean)
    priors = PairClassifier(names, regularization=0.5, alignment_weight=0.7).fit(F, clean)
    sample = F[clean]
    assert len(sample) < 400  # one share: the clean rows' median and median absolute deviation
    expected = np.zeros(600)
    for j in (3, 4):
        median = np.median(sample[:, j])
        below = np.maximum((median - F[:, j]) / np.median(np.abs(sample[:, j] - median)), 0)
        expected -= 0.7 * np.maximum(below - 2.0, 0)
    np.testing.assert_allclose(priors.predict_proba(F), plain.predict_proba(F) * np.exp(expected), rtol=1e-12)
    assert np.count_nonzero(expected) > 20
    worst = np.where(np.arange(5) == 3, -12.0, np.median(sample, axis=0))[None]
    assert priors.expanded_names[priors.weakest(worst)[0]] == "align_tgt"
    params, arrays = priors.state()
    assert np.array_equal(PairClassifier.from_state(params, arrays).predict_proba(F), priors.predict_proba(F))
    with pytest.raises(KcoocError, match="train and save it again"):  # saved before the alignment prior
        PairClassifier.from_state(params, {k: v for k, v in arrays.items() if not k.startswith("prior_")})
    with pytest.raises(KcoocError, match="train and save it again"):
        PairClassifier.from_state({k: v for k, v in params.items() if k != "alignment_weight"}, arrays)
    with pytest.raises(KcoocError, match="prior_"):
        PairClassifier.from_state(params, {**arrays, "prior_scales": -arrays["prior_scales"]})
