"""A logistic model whose log-odds can only fall when a pair disagrees more: monotone by construction.

Each input j is *oriented* (``orientation[j]``: +1 when a larger value means a cleaner pair, -1 when
it means a worse one, 0 for context such as a side's length, which has no direction); x'_j is the
oriented value. The log-odds of "clean" are

    m(x) = b + sum_j f_j(x'_j) + sum_{j<k oriented} s_jk u_j u_k + sum_{j oriented} (c_j v + d_j (1 - v)) u_j

* f_j = sum_q a_jq r_jq(x'_j): a piecewise-linear curve in ``knots`` ramps r_jq(x) = clip((x - e_q) /
  (e_{q+1} - e_q), 0, 1) between quantiles e_q of the training rows (Ramsay 1988's monotone
  regression splines, of degree one); a_jq >= 0 for oriented inputs, so f_j never falls; the first
  ramp of an oriented input has no floor (min((x - e_0) / (e_1 - e_0), 1)): below everything the
  training rows showed, f_j goes on falling at its first slope instead of staying flat, so a pair
  worse than any training example on some input is not scored as the worst one seen;
* u_j = clip((x'_j - e_j,01) / (e_j,99 - e_j,01), 0, 1), the oriented input squashed into [0, 1]
  between its 1st and 99th percentiles, and v the pair's length (``length`` input) squashed alike;
* s_jk, c_j, d_j >= 0.

On the box [0, 1] every product term is bilinear, so with non-negative weights each partial
derivative of m in x'_j is a sum of non-negative terms: m is non-decreasing in every oriented input
whatever the other inputs are, and the model can learn that "a low alignment score matters more on
a long pair" (c_j, d_j) and that a pair is clean only when all its signs agree (s_jk: noisy-AND),
but never that more disagreement is better. The weights are an L2-regularised logistic regression
(linalg.fit_logistic, projected Newton for the bounds).
"""

from __future__ import annotations

import numpy as np

from ..errors import InputError
from ..linalg import fit_logistic


class MonotoneLogistic:
    """Logistic regression monotone in its oriented inputs (see the module docstring).

    Parameters
    ----------
    orientation : array of {-1, 0, 1}
        Direction of each input column (+1: larger is cleaner; -1: larger is worse; 0: free).
    length : int
        Column of the input that modulates the slopes (a side's length).
    regularization : float
        Inverse L2 strength C.
    knots : int
        Ramps per curve.
    """

    def __init__(self, orientation: np.ndarray, length: int, regularization: float = 0.1, knots: int = 8):
        self.orientation = np.asarray(orientation, dtype=np.int64)
        self.length, self.regularization, self.knots = length, regularization, knots
        self.oriented = np.flatnonzero(self.orientation != 0)

    def _oriented(self, X: np.ndarray) -> np.ndarray:
        """The oriented inputs, a missing value (NaN: no evidence either way) replaced by the training
        rows' median."""
        O = np.asarray(X, dtype=np.float64) * np.where(self.orientation == 0, 1, self.orientation)
        missing = np.isnan(O)
        if missing.any():
            O[missing] = np.broadcast_to(self.medians_, O.shape)[missing]
        return O

    def design(self, X: np.ndarray) -> np.ndarray:
        """The model's terms of each row: the ramps of every curve, then the products."""
        O = self._oriented(X)
        ramps = []
        for j, e in enumerate(self.edges_):
            ramp = np.clip((O[:, [j]] - e[:-1]) / np.diff(e), 0.0, 1.0)
            if self.orientation[j]:  # the first ramp goes on falling below the lowest edge: no floor
                ramp[:, 0] = np.minimum((O[:, j] - e[0]) / (e[1] - e[0]), 1.0)
            ramps.append(ramp)
        U = np.clip((O[:, self.oriented] - self.low_) / self.span_, 0.0, 1.0)
        v = np.clip((O[:, self.length] - self.length_low_) / self.length_span_, 0.0, 1.0)[:, None]
        a, b = np.triu_indices(self.oriented.size, 1)
        return np.hstack([*ramps, U[:, a] * U[:, b], U * v, U * (1 - v)])

    def fit(self, X: np.ndarray, clean: np.ndarray, start: "MonotoneLogistic | None" = None) -> "MonotoneLogistic":
        """Fit on rows ``X`` and whether each is clean; ``start``: a fitted model on similar rows whose
        weights start the Newton iterations."""
        with np.errstate(all="ignore"):
            medians = np.nanmedian(np.asarray(X, dtype=np.float64) * np.where(self.orientation == 0, 1, self.orientation),
                                   axis=0)
        self.medians_ = np.nan_to_num(medians)
        O = self._oriented(X)
        grid = np.linspace(0.0, 1.0, self.knots + 1)
        self.edges_ = []
        for j in range(O.shape[1]):
            edges = np.unique(np.quantile(O[:, j], grid))
            self.edges_.append(edges if edges.size > 1 else np.array([edges[0], edges[0] + 1.0]))
        low, high = np.quantile(O[:, self.oriented], [0.01, 0.99], axis=0)
        self.low_, self.span_ = low, np.maximum(high - low, 1e-9)
        self.length_low_, length_high = np.quantile(O[:, self.length], [0.05, 0.95])
        self.length_span_ = max(length_high - self.length_low_, 1e-9)
        terms = self.design(X)
        curves = np.concatenate([np.full(e.size - 1, j) for j, e in enumerate(self.edges_)])
        nonnegative = np.ones(terms.shape[1], dtype=bool)
        nonnegative[: curves.size] = self.orientation[curves] != 0
        warm = start is not None and start.weights_.shape == (terms.shape[1],)
        self.weights_, self.intercept_ = fit_logistic(
            terms, np.asarray(clean, dtype=bool), self.regularization, nonnegative=nonnegative,
            start=(start.weights_, start.intercept_) if warm else None)
        self.curves_ = curves
        return self

    def decision_function(self, X: np.ndarray) -> np.ndarray:
        """Log-odds that each row is clean."""
        if not hasattr(self, "weights_"):
            raise InputError("MonotoneLogistic is not fitted: call fit first")
        return self.design(X) @ self.weights_ + self.intercept_
