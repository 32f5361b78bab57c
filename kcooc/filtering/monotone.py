"""A logistic model whose log-odds can only fall when a pair disagrees more: monotone by construction.

Each input j is *oriented* (``orientation[j]``: +1 when a larger value means a cleaner pair, -1 when
it means a worse one, 0 for context such as a side's length, which has no direction); x'_j is the
oriented value (x_j times its orientation). The log-odds of "clean" are

    m(x) = b + sum_j f_j(x'_j) + sum_{j<k oriented} s_jk u_j u_k + sum_{j oriented} (c_j v + d_j (1 - v)) u_j

* f_j = sum_q a_jq r_jq(x'_j): a piecewise-linear curve in ``knots`` ramps r_jq(x) = clip((x - e_q) /
  (e_{q+1} - e_q), 0, 1) between quantiles e_q of the training rows (Ramsay 1988's monotone
  regression splines, of degree one); a_jq >= 0 for oriented inputs, so f_j never falls; the first
  ramp of an oriented input has no floor (min((x - e_0) / (e_1 - e_0), 1)): below everything the
  training rows showed, f_j goes on falling at its first slope instead of staying flat, so a pair
  worse than any training example on some input does not score as the worst one seen;
* u_j = clip((x'_j - e_j,01) / (e_j,99 - e_j,01), 0, 1), the oriented input squashed into [0, 1]
  between its 1st and 99th percentiles, and v the length input (``length``, an unoriented input)
  squashed alike between its 5th and 95th (without a length input, no c_j, d_j terms);
* s_jk, c_j, d_j >= 0.

On the box [0, 1] every product term is bilinear, so with non-negative weights each partial
derivative of m in x'_j is a sum of non-negative terms: m never falls when an oriented input rises,
whatever the other inputs are. The model can learn that a low alignment score matters more on a long
pair than on a short one (c_j, d_j) and that a pair is clean only when all its signs agree (s_jk: a
noisy AND), never that more disagreement is better. A missing value (NaN: no evidence either way, such
as the link order of a pair with fewer than two links) counts as the training rows' median. The
weights are an L2-regularised logistic regression (linalg.fit_logistic: projected Newton for the bounds).
"""

from __future__ import annotations

import numpy as np

from ..errors import InputError
from ..linalg import fit_logistic, nan_columns


class MonotoneLogistic:
    """Logistic regression monotone in its oriented inputs (see the module docstring).

    Parameters
    ----------
    orientation : array of {-1, 0, 1}
        Direction of each input column (+1: larger is cleaner; -1: larger is worse; 0: context).
    length : int or None
        Column of the unoriented input that modulates the slopes (a side's length); None: none.
    regularization : float
        Inverse L2 strength C.
    knots : int
        Ramps per curve.
    """

    def __init__(self, orientation: np.ndarray, length: int | None, regularization: float = 0.1, knots: int = 8):
        self.orientation = np.asarray(orientation, dtype=np.int64)
        if length is not None and not (0 <= length < self.orientation.size and self.orientation[length] == 0):
            raise InputError("the length input must be an unoriented input")
        self.length, self.regularization, self.knots = length, regularization, knots
        self.oriented = np.flatnonzero(self.orientation != 0)
        self.signs = np.where(self.orientation == 0, 1, self.orientation)

    def _oriented(self, X: np.ndarray) -> np.ndarray:
        """The oriented inputs, a missing value replaced by the training rows' median."""
        Xo = np.asarray(X, dtype=np.float64) * self.signs
        missing = np.isnan(Xo)
        if missing.any():
            Xo[missing] = np.broadcast_to(self.medians_, Xo.shape)[missing]
        return Xo

    def _edges(self, j: int) -> np.ndarray:
        return self.edges_[self.edge_offsets_[j] : self.edge_offsets_[j + 1]]

    def _ramps(self, Xo: np.ndarray, j: int) -> np.ndarray:
        e = self._edges(j)
        ramp = np.clip((Xo[:, [j]] - e[:-1]) / np.diff(e), 0.0, 1.0)
        if self.orientation[j]:  # the first ramp goes on falling below the lowest edge: no floor
            ramp[:, 0] = np.minimum((Xo[:, j] - e[0]) / (e[1] - e[0]), 1.0)
        return ramp

    def _squashed(self, Xo: np.ndarray) -> tuple[np.ndarray, np.ndarray | None]:
        """(u of the oriented inputs, v of the length or None)."""
        U = np.clip((Xo[:, self.oriented] - self.low_) / self.span_, 0.0, 1.0)
        if self.length is None:
            return U, None
        return U, np.clip((Xo[:, self.length] - self.length_low_) / self.length_span_, 0.0, 1.0)

    def design(self, X: np.ndarray) -> np.ndarray:
        """The model's terms of each row: the ramps of every curve, then the products (filled into one
        array, column block by column block)."""
        Xo = self._oriented(X)
        U, v = self._squashed(Xo)
        ramps = [self._ramps(Xo, j) for j in range(Xo.shape[1])]
        m, curves = U.shape[1], sum(ramp.shape[1] for ramp in ramps)
        products = m * (m - 1) // 2
        out = np.empty((len(Xo), curves + products + (0 if v is None else 2 * m)))
        out[:, :curves] = np.hstack(ramps)
        at = curves
        for j in range(m - 1):  # u_j u_k for k > j: the order of np.triu_indices
            np.multiply(U[:, [j]], U[:, j + 1 :], out=out[:, at : at + m - 1 - j])
            at += m - 1 - j
        if v is not None:
            np.multiply(U, v[:, None], out=out[:, at : at + m])
            np.multiply(U, (1 - v)[:, None], out=out[:, at + m :])
        return out

    def fit(self, X: np.ndarray, clean: np.ndarray, start: "MonotoneLogistic | None" = None) -> "MonotoneLogistic":
        """Fit on rows ``X`` and whether each is clean; ``start``: a fitted model on similar rows whose
        weights start the Newton iterations (the same optimum, fewer steps)."""
        self.medians_ = np.nan_to_num(nan_columns(np.nanmedian, np.asarray(X, dtype=np.float64) * self.signs))
        Xo = self._oriented(X)
        grid = np.linspace(0.0, 1.0, self.knots + 1)
        edges = []
        for j in range(Xo.shape[1]):
            e = np.unique(np.quantile(Xo[:, j], grid))
            edges.append(e if e.size > 1 else np.array([e[0], e[0] + 1.0]))
        self.edges_ = np.concatenate(edges)
        self.edge_offsets_ = np.concatenate([[0], np.cumsum([e.size for e in edges])])
        low, high = np.quantile(Xo[:, self.oriented], [0.01, 0.99], axis=0)
        self.low_, self.span_ = low, np.maximum(high - low, 1e-9)
        if self.length is not None:
            self.length_low_, length_high = np.quantile(Xo[:, self.length], [0.05, 0.95])
            self.length_span_ = max(length_high - self.length_low_, 1e-9)
        terms = self.design(X)
        curves = np.repeat(np.arange(Xo.shape[1]), np.diff(self.edge_offsets_) - 1)
        nonnegative = np.ones(terms.shape[1], dtype=bool)
        nonnegative[: curves.size] = self.orientation[curves] != 0
        warm = start is not None and start.weights_.shape == (terms.shape[1],)
        self.weights_, self.intercept_ = fit_logistic(
            terms, np.asarray(clean, dtype=bool), self.regularization, nonnegative=nonnegative,
            start=(start.weights_, start.intercept_) if warm else None)
        return self

    def decision_function(self, X: np.ndarray) -> np.ndarray:
        """Log-odds that each row is clean: the curves, then the products as u^T S u / 2 (S the symmetric
        matrix of the s_jk) and the length-modulated slopes, without building the design's product columns."""
        if not hasattr(self, "weights_"):
            raise InputError("MonotoneLogistic is not fitted: call fit first")
        Xo = self._oriented(X)
        U, v = self._squashed(Xo)
        starts, S, modulation = self._product_weights()
        m = np.full(len(Xo), self.intercept_)
        for j in range(Xo.shape[1]):
            m += self._ramps(Xo, j) @ self.weights_[starts[j] : starts[j + 1]]
        m += np.einsum("ij,ij->i", U @ S, U) / 2
        if modulation is not None:
            m += (U * v[:, None]) @ modulation[0] + (U * (1 - v)[:, None]) @ modulation[1]
        return m

    def _product_weights(self) -> tuple[np.ndarray, np.ndarray, tuple[np.ndarray, np.ndarray] | None]:
        """(where each curve's weights start and end, the symmetric matrix S of the s_jk, (c, d) or None)."""
        m = self.oriented.size
        starts = np.concatenate([[0], np.cumsum(np.diff(self.edge_offsets_) - 1)])
        S = np.zeros((m, m))
        S[np.triu_indices(m, 1)] = self.weights_[starts[-1] : starts[-1] + m * (m - 1) // 2]
        modulation = None if self.length is None else (self.weights_[-2 * m : -m], self.weights_[-m:])
        return starts, S + S.T, modulation

    def losses(self, X: np.ndarray, reference: np.ndarray) -> np.ndarray:
        """(rows, oriented inputs): how much higher each row's log-odds would be with that one input
        at its value in ``reference`` (exact: the log-odds are linear in each input's curve and u)."""
        Xo, R = self._oriented(X), self._oriented(np.asarray(reference, dtype=np.float64)[None, :])
        U, v = self._squashed(Xo)
        u_ref = self._squashed(R)[0][0]
        starts, S, modulation = self._product_weights()
        slopes = U @ S
        if modulation is not None:
            slopes += modulation[0] * v[:, None] + modulation[1] * (1 - v)[:, None]
        out = np.empty((len(Xo), self.oriented.size))
        for i, j in enumerate(self.oriented):
            w = self.weights_[starts[j] : starts[j + 1]]
            out[:, i] = (self._ramps(R, j) @ w)[0] - self._ramps(Xo, j) @ w
        return out + (u_ref - U) * slopes

    # -- persistence ------------------------------------------------------------------------------
    def state(self) -> tuple[dict, dict[str, np.ndarray]]:
        length = {} if self.length is None else {"length_low": float(self.length_low_),
                                                  "length_span": float(self.length_span_)}
        return ({"length": self.length, "regularization": self.regularization, "knots": self.knots,
                 "intercept": float(self.intercept_), **length},
                {"orientation": self.orientation, "medians": self.medians_, "edges": self.edges_,
                 "edge_offsets": self.edge_offsets_, "low": self.low_, "span": self.span_, "weights": self.weights_})

    @classmethod
    def from_state(cls, params: dict, arrays: dict[str, np.ndarray]) -> "MonotoneLogistic":
        """The model ``state`` wrote; InputError if its arrays do not fit together."""
        orientation = np.asarray(arrays["orientation"])
        if not set(orientation.tolist()) <= {-1, 0, 1}:
            raise InputError("the monotone classifier's orientation is not in {-1, 0, 1}")
        length = None if params["length"] is None else int(params["length"])
        model = cls(orientation, length, float(params["regularization"]), int(params["knots"]))
        n, m = orientation.size, model.oriented.size
        offsets = np.asarray(arrays["edge_offsets"])
        modulated = 0 if length is None else 2 * m
        if (offsets.shape != (n + 1,)
                or offsets[0] != 0 or np.any(np.diff(offsets) < 2) or arrays["edges"].shape != (offsets[-1],)
                or arrays["medians"].shape != (n,) or arrays["low"].shape != (m,) or arrays["span"].shape != (m,)
                or arrays["weights"].shape != (offsets[-1] - n + m * (m - 1) // 2 + modulated,)
                or np.any(arrays["span"] <= 0) or (length is not None and float(params["length_span"]) <= 0)):
            raise InputError("the monotone classifier's arrays do not fit together")
        model.medians_, model.edges_, model.edge_offsets_ = arrays["medians"], arrays["edges"], offsets
        model.low_, model.span_, model.weights_ = arrays["low"], arrays["span"], arrays["weights"]
        model.intercept_ = float(params["intercept"])
        if length is not None:
            model.length_low_, model.length_span_ = float(params["length_low"]), float(params["length_span"])
        return model
