"""How sure a ROC-AUC of the filtering benchmark is: DeLong's variance of an AUC and of the difference of two
AUCs on the same pairs (DeLong, DeLong & Clarke-Pearson 1988, Biometrics 44, §2: the structural components
V10 and V01 of the Mann-Whitney statistic, and their covariance between scorers), computed from midranks in
O(n log n) (Sun & Xu 2014) instead of the O(m n) comparisons of the definition.

A kind of noise on an out-of-distribution test set has about 85 pairs against about 4,800 clean ones, so one
cell's AUC moves by a few hundredths with the sample: a cell at .89 may well be a .90, and a peer .005 ahead
on 85 pairs may be behind on the next sample. The page says which of its shortfalls and peer wins are beyond
that noise.
"""

from __future__ import annotations

import numpy as np
from scipy.stats import norm, rankdata

LEVEL = 0.95  # the intervals' coverage
Z = float(norm.ppf(0.5 + LEVEL / 2))


def comparable(scores: np.ndarray) -> np.ndarray:
    """``scores`` as finite floats: a nan (a pair a rule dropped) ranks below every number, +-inf stay in order."""
    scores = np.asarray(scores, dtype=np.float64)
    finite = scores[np.isfinite(scores)]
    low = (finite.min() if finite.size else 0.0) - 1.0
    return np.nan_to_num(scores, nan=low, neginf=low - 1.0, posinf=(finite.max() if finite.size else 0.0) + 1.0)


def structural_components(clean: np.ndarray, bad: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """DeLong's V10 (one per clean pair: the share of noisy pairs it ranks above, ties counting half) and V01
    (one per noisy pair: the share of clean pairs ranked above it) of the scores ``clean`` and ``bad``
    (higher = cleaner). Their means are both the AUC."""
    clean, bad = np.asarray(clean, dtype=np.float64), np.asarray(bad, dtype=np.float64)
    m, n = clean.size, bad.size
    joint = rankdata(np.r_[clean, bad])  # midranks: a tie counts half either way
    v10 = (joint[:m] - rankdata(clean)) / n
    v01 = 1.0 - (joint[m:] - rankdata(bad)) / m
    return v10, v01


def auc_interval(clean: np.ndarray, bad: np.ndarray) -> tuple[float, float, float]:
    """(AUC, lower, upper): the AUC of ``clean`` above ``bad`` and its ``LEVEL`` interval, AUC -+ Z se with DeLong's
    se, clipped to [0, 1]."""
    v10, v01 = structural_components(clean, bad)
    auc = float(v10.mean())
    se = float(np.sqrt(_variance(v10) / v10.size + _variance(v01) / v01.size))
    return auc, max(auc - Z * se, 0.0), min(auc + Z * se, 1.0)


def difference_interval(a: tuple[np.ndarray, np.ndarray], b: tuple[np.ndarray, np.ndarray]
                        ) -> tuple[float, float, float]:
    """(AUC_a - AUC_b, lower, upper) for two scorers' (clean, bad) scores of the same pairs, in the same order:
    DeLong's paired test, whose variance takes the two AUCs' covariance into account."""
    (a10, a01), (b10, b01) = structural_components(*a), structural_components(*b)
    if a10.size != b10.size or a01.size != b01.size:
        raise ValueError("the two scorers must score the same clean and noisy pairs")
    d10, d01 = a10 - b10, a01 - b01  # var(A - B) = var(A) + var(B) - 2 cov(A, B), component by component
    difference = float(d10.mean())
    se = float(np.sqrt(_variance(d10) / d10.size + _variance(d01) / d01.size))
    return difference, difference - Z * se, difference + Z * se


def _variance(values: np.ndarray) -> float:
    return float(values.var(ddof=1)) if values.size > 1 else 0.0
