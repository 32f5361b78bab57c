"""PPMI-SVD, the count-based reference of Levy, Goldberg & Dagan (2015) -- not correspondence analysis.

PPMI_alpha(i, j) = max(0, log(N_ij sum_j c_j^alpha / (r_i c_j^alpha))) (their Eq. 3 with context-distribution
smoothing: context counts raised to alpha = 0.75, as word2vec's negative sampling does). It is positive only
where N is, so it is an ordinary sparse matrix; its truncated SVD goes through the same delayed randomized
SVD (svd.py) as an operator with no rank-one correction and unit weights.
"""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp

from .svd import DelayedOperator


def ppmi_matrix(N: sp.spmatrix, smoothing: float = 0.75) -> sp.csr_matrix:
    """The positive PMI of a count table with smoothed context probabilities, on N's non-zeros only."""
    N = sp.csr_matrix(N, dtype=np.float64)
    r = np.asarray(N.sum(axis=1)).ravel()
    smoothed = np.asarray(N.sum(axis=0)).ravel() ** smoothing
    coo = N.tocoo()
    pmi = np.log(coo.data * smoothed.sum() / (r[coo.row] * smoothed[coo.col]))
    keep = pmi > 0
    return sp.csr_matrix((pmi[keep], (coo.row[keep], coo.col[keep])), shape=N.shape)


class PPMIOperator(DelayedOperator):
    """The PPMI matrix M behind the operator interface of svd.py (a = b = 0, unit weights)."""

    def __init__(self, N: sp.spmatrix, smoothing: float = 0.75):
        self.M = ppmi_matrix(N, smoothing)
        rows, cols = self.M.shape
        super().__init__(lambda W: self.M @ W, lambda W: self.M.T @ W, np.zeros(rows), np.zeros(cols), np.ones(rows),
                         np.ones(cols))

    def total_inertia(self) -> float:
        """Sum of all squared singular values: ||M||_F^2 (the analogue of CA's total inertia)."""
        return float((self.M.data**2).sum())
