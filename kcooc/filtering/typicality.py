"""Where the corpus's own pairs lie: two uses of the sample's empirical distribution that need no
synthetic noise, so that a pair extreme on any disagreement feature ranks low even when no training
noise looked like it.

* :class:`Typicality`, a factor of the learned score: for each oriented input j (x'_j, larger =
  cleaner) S_j(x) is the share of the sample's pairs at most as clean on it (the empirical lower tail,
  at least 1 / (n + 1)), and the factor is prod_j min(1, S_j(x'_j) / a_j)^w: 1 for a pair inside the
  bulk of the corpus on every input, and a power of how rare it is for one in the worst share ``a_j`` of
  some input (``shares`` a_j, ``weight`` w: ``learn.typicality_share``, ``learn.typicality_length_share``
  for the length ratios, ``learn.typicality_weight``). Fitted on the clean training rows (the corpus's
  sampled pairs).
* :func:`feature_noise`, noisy training examples made in feature space: copies of clean examples with
  one oriented input replaced by a value the sample shows in its worst ``tail`` share on that input
  (``learn.feature_noise``, ``learn.feature_noise_tail``). With the monotone classifier this teaches
  that the worst corner of every input is noise-like, however little the synthetic text noise
  (noise.py) moved that input, so no input ends up with no weight.
"""

from __future__ import annotations

import numpy as np

from ..errors import InputError
from ..linalg import nan_columns

GRID = 1001  # quantiles kept per input: the tail share is read to a thousandth


class Typicality:
    """The typicality factor (see the module docstring).

    Parameters
    ----------
    orientation : array of {-1, 0, 1}
        Direction of each input (+1: larger is cleaner; -1: larger is worse; 0: not used).
    shares : float or array
        a_j: inputs where a pair is among the worst ``a_j`` of the sample lower its factor (one value for
        every input, or one per oriented input, in the order of the inputs).
    weight : float
        w, the exponent.
    """

    def __init__(self, orientation: np.ndarray, shares: float | np.ndarray = 0.01, weight: float = 0.5):
        self.orientation = np.asarray(orientation, dtype=np.int64)
        self.columns = np.flatnonzero(self.orientation != 0)
        self.shares = np.broadcast_to(np.asarray(shares, dtype=np.float64), self.columns.shape).copy()
        self.weight = weight
        if not np.all((self.shares > 0) & (self.shares <= 1)):
            raise InputError("typicality shares must be in (0, 1]")

    def _oriented(self, X: np.ndarray) -> np.ndarray:
        return np.asarray(X, dtype=np.float64)[:, self.columns] * self.orientation[self.columns]

    def fit(self, X: np.ndarray) -> "Typicality":
        """Keep ``GRID`` quantiles of every oriented input over the rows ``X`` (the sample's pairs)."""
        Xo = self._oriented(X)
        quantiles = nan_columns(np.nanquantile, Xo, np.linspace(0.0, 1.0, GRID)).T
        self.quantiles_ = np.where(np.isnan(quantiles), 0.0, quantiles)
        self.rows_ = len(Xo)
        return self

    def log_factors(self, X: np.ndarray) -> np.ndarray:
        """(rows, oriented inputs): each input's term w min(0, log(S_j / a_j)) of the log factor (0 for a
        missing value)."""
        Xo = self._oriented(X)
        probabilities = np.linspace(0.0, 1.0, GRID)
        out = np.zeros(Xo.shape)
        floor = 1.0 / (self.rows_ + 1)
        for i in range(Xo.shape[1]):
            tail = np.maximum(np.interp(Xo[:, i], self.quantiles_[i], probabilities, left=0.0), floor)
            out[:, i] = np.where(np.isnan(Xo[:, i]), 0.0,
                                 self.weight * np.minimum(0.0, np.log(tail / self.shares[i])))
        return out

    def state(self) -> tuple[dict, dict[str, np.ndarray]]:
        return {"weight": self.weight, "rows": self.rows_}, {"quantiles": self.quantiles_, "shares": self.shares}

    @classmethod
    def from_state(cls, orientation: np.ndarray, params: dict, arrays: dict[str, np.ndarray]) -> "Typicality":
        columns = int(np.count_nonzero(np.asarray(orientation) != 0))
        shares, quantiles = arrays.get("shares", np.zeros(0)), arrays.get("quantiles", np.zeros(0))
        if shares.shape != (columns,):
            raise InputError("classifier array 'typicality_shares' is missing or has the wrong shape")
        model = cls(orientation, shares, float(params["weight"]))
        if quantiles.shape != (columns, GRID) or not np.all(np.diff(quantiles, axis=1) >= 0):
            raise InputError("classifier array 'typicality_quantiles' is missing or not sorted quantiles")
        model.quantiles_, model.rows_ = quantiles, int(params["rows"])
        return model


def feature_noise(X: np.ndarray, orientation: np.ndarray, share: float, tail: float,
                  rng: np.random.Generator) -> np.ndarray:
    """Noisy rows made in feature space from the clean rows ``X``: ``share`` times as many rows as ``X``
    (drawn with replacement), each with one oriented input (drawn uniformly) replaced by a value of the
    worst ``tail`` share of ``X`` on that input, and never a value of the bulk: where that share reaches the
    median (an input nearly every clean pair has at one value, as 0 letter-spaced letters), the values worse
    than the median are the tail, however few."""
    orientation = np.asarray(orientation)
    oriented = np.flatnonzero(orientation != 0)
    count = int(round(share * len(X)))
    rows = rng.integers(0, len(X), count)
    columns = oriented[rng.integers(0, oriented.size, count)]
    noisy = np.array(X[rows], dtype=np.float64)
    for j in np.unique(columns):
        chosen = np.flatnonzero(columns == j)
        values = X[:, j][~np.isnan(X[:, j])]
        if values.size == 0:
            continue
        ranked = np.sort(values * orientation[j])
        worse_than_median = int(np.searchsorted(ranked, ranked[ranked.size // 2]))
        worst = ranked[: max(1, min(int(tail * values.size), worse_than_median))] * orientation[j]
        noisy[chosen, j] = worst[rng.integers(0, worst.size, chosen.size)]
    return noisy
