"""The delayed sparse randomized SVD of the CA matrix (Niitsuma, §6, Eq. 59-61).

The CA matrix Xi_hat = D(r/n)^-1/2 (N/n - r c^T/n^2) D(c/n)^-1/2 (Eq. 59, margins as proportions) is dense even when N is
sparse. It is never formed: ``CAOperator`` multiplies it with a block of vectors from the left
(Eq. 60) and from the right (Eq. 61) with one sparse product and one rank-one correction each, and
the randomized SVD of Halko, Martinsson & Tropp (2011) needs nothing else: a seeded Gaussian
sketch, power iterations with QR re-orthonormalisation, and the SVD of the small projected matrix.
"""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp


class CAOperator:
    """Xi_hat as products only; rows/columns with a zero margin are left out (zero weight).

    In general the operator is D(row)^-1/2 (P - a b^T) D(col)^-1/2 with P known only through its
    products (sca.py builds SCA this way); for LCA, P = N/n, a = r/n, b = c/n and the margins are r/n, c/n.
    """

    def __init__(self, N: sp.spmatrix):
        self.N = sp.csr_matrix(N, dtype=np.float64)
        self.n = float(self.N.sum())
        self.r = np.asarray(self.N.sum(axis=1)).ravel()
        self.c = np.asarray(self.N.sum(axis=0)).ravel()
        # margins as proportions: the singular values are CA's usual ones (their squares are the principal
        # inertias, summing to chi^2/n); with raw counts (as printed in Eq. 59) all are 1/n of that
        self.define(lambda W: self.N @ W / self.n, lambda W: self.N.T @ W / self.n, self.r / self.n, self.c / self.n,
                    self.r / self.n, self.c / self.n)

    def define(self, product, rproduct, a: np.ndarray, b: np.ndarray, row: np.ndarray, col: np.ndarray) -> None:
        self.product, self.rproduct, self.a, self.b = product, rproduct, a, b
        self.row_scale = np.where(row > 0, 1 / np.sqrt(np.where(row > 0, row, 1)), 0.0)
        self.col_scale = np.where(col > 0, 1 / np.sqrt(np.where(col > 0, col, 1)), 0.0)
        self.shape = (a.size, b.size)

    def matmat(self, Z: np.ndarray) -> np.ndarray:
        """Xi_hat Z (right-dot, Eq. 61)."""
        W = self.col_scale[:, None] * Z
        return self.row_scale[:, None] * (self.product(W) - np.outer(self.a, self.b @ W))

    def rmatmat(self, Z: np.ndarray) -> np.ndarray:
        """Xi_hat^T Z (left-dot, Eq. 60, transposed)."""
        W = self.row_scale[:, None] * Z
        return self.col_scale[:, None] * (self.rproduct(W) - np.outer(self.b, self.a @ W))

    def dense(self) -> np.ndarray:
        """The dense matrix (tests and small tables only)."""
        return self.matmat(np.eye(self.shape[1]))

    def total_inertia(self) -> float:
        """Sum of all squared singular values = chi^2 / n of the table, from N's non-zeros only."""
        N = self.N.tocoo()
        observed = (N.data / self.n) ** 2 / (self.r[N.row] * self.c[N.col] / self.n**2)
        return float(observed.sum() - 1.0)


def randomized_svd(op: CAOperator, k: int, *, oversample: int = 10, power_iterations: int = 4,
                   seed: int = 0) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Top-k (U, s, V^T) of the operator by a seeded randomized range finder."""
    rows, cols = op.shape
    width = min(k + oversample, rows, cols)
    Q = np.linalg.qr(op.matmat(np.random.default_rng(seed).standard_normal((cols, width))))[0]
    for _ in range(power_iterations):
        Q = np.linalg.qr(op.rmatmat(Q))[0]
        Q = np.linalg.qr(op.matmat(Q))[0]
    B = op.rmatmat(Q).T  # Q^T Xi_hat
    Ub, s, Vt = np.linalg.svd(B, full_matrices=False)
    return (Q @ Ub)[:, :k], s[:k], Vt[:k]


def residuals(op: CAOperator, U: np.ndarray, s: np.ndarray, Vt: np.ndarray) -> np.ndarray:
    """||Xi_hat v_i - s_i u_i|| per component: a spot check that the pairs are singular."""
    return np.linalg.norm(op.matmat(Vt.T) - U * s, axis=0)
