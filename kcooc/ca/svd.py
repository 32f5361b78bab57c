"""The delayed sparse randomized SVD of the CA matrix (Niitsuma 2022, §6, Eq. 59-61).

The CA matrix Xi_hat = D(r/n)^-1/2 (N/n - r c^T/n^2) D(c/n)^-1/2 (Niitsuma 2022, Eq. 59, margins as
proportions) is dense even when N is sparse. It is never formed: ``CAOperator`` multiplies it with a block
of vectors from the left (Niitsuma 2022, Eq. 60) and from the right (Niitsuma 2022, Eq. 61) with one sparse
product and one rank-one correction each, and
the randomized SVD of Halko, Martinsson & Tropp (2011) needs nothing else: a seeded Gaussian
sketch, power iterations with re-orthonormalisation, and the SVD of the small projected matrix.
"""

from __future__ import annotations

from typing import Callable, NamedTuple

import numpy as np
import scipy.sparse as sp


class DelayedOperator:
    """D(row)^-1/2 (P - a b^T) D(col)^-1/2 with P known only through its products ``product(W) = P W`` and
    ``rproduct(W) = P^T W``; rows/columns with a zero weight are left out."""

    def __init__(self, product, rproduct, a: np.ndarray, b: np.ndarray, row: np.ndarray, col: np.ndarray):
        self.define(product, rproduct, a, b, row, col)

    def define(self, product, rproduct, a: np.ndarray, b: np.ndarray, row: np.ndarray, col: np.ndarray) -> None:
        self.product, self.rproduct, self.a, self.b = product, rproduct, a, b
        self.row_scale = np.where(row > 0, 1 / np.sqrt(np.where(row > 0, row, 1)), 0.0)
        self.col_scale = np.where(col > 0, 1 / np.sqrt(np.where(col > 0, col, 1)), 0.0)
        self.shape = (a.size, b.size)

    def matmat(self, Z: np.ndarray) -> np.ndarray:
        """The operator times Z (right-dot, Niitsuma 2022, Eq. 61)."""
        W = self.col_scale[:, None] * Z
        return self.row_scale[:, None] * (self.product(W) - np.outer(self.a, self.b @ W))

    def rmatmat(self, Z: np.ndarray) -> np.ndarray:
        """Its transpose times Z (left-dot, Niitsuma 2022, Eq. 60, transposed)."""
        W = self.row_scale[:, None] * Z
        return self.col_scale[:, None] * (self.rproduct(W) - np.outer(self.b, self.a @ W))

    def dense(self) -> np.ndarray:
        """The dense matrix (tests and small tables only)."""
        return self.matmat(np.eye(self.shape[1]))


class CAOperator(DelayedOperator):
    """Xi_hat as products only: P = N/n, a = r/n, b = c/n, and the margins r/n, c/n as weights."""

    def __init__(self, N: sp.spmatrix):
        self.N = sp.csr_matrix(N, dtype=np.float64)
        self.n = float(self.N.sum())
        self.r = np.asarray(self.N.sum(axis=1)).ravel()
        self.c = np.asarray(self.N.sum(axis=0)).ravel()
        # margins as proportions: the singular values are CA's usual ones (their squares are the principal
        # inertias, summing to chi^2/n); with raw counts (as printed in Niitsuma 2022, Eq. 59) all are 1/n of that
        super().__init__(lambda W: self.N @ W / self.n, lambda W: self.N.T @ W / self.n, self.r / self.n,
                         self.c / self.n, self.r / self.n, self.c / self.n)

    def total_inertia(self) -> float:
        """Sum of all squared singular values = chi^2 / n of the table, from N's non-zeros only."""
        N = self.N.tocoo()
        observed = (N.data / self.n) ** 2 / (self.r[N.row] * self.c[N.col] / self.n**2)
        return float(observed.sum() - 1.0)


class Decomposition(NamedTuple):
    U: np.ndarray
    s: np.ndarray
    Vt: np.ndarray
    relative_residuals: np.ndarray  # ||A v_i - s_i u_i|| / s_i per component (||A^T u_i - s_i v_i|| is 0)
    power_iterations: int  # power iterations done


def randomized_svd(op: DelayedOperator, k: int, *, oversample: int = 10, power_iterations: int = 4,
                   tol: float | None = None, seed: int = 0,
                   progress: Callable[[int, float], None] | None = None) -> Decomposition:
    """Top-k (U, s, V^T) of the operator by a seeded randomized range finder (Halko et al. 2011, Alg. 4.4).

    After the sketch and after every power iteration the Ritz triples of the current range Q are
    formed (SVD of Q^T A); their right vectors V replace the QR of A^T Q, so A V, the next half step,
    also gives every residual ||A v_i - s_i u_i|| at no extra product. Without ``tol`` exactly
    ``power_iterations`` are done; with ``tol`` the iterations stop as soon as the largest relative
    residual of the top k is below it, or after ``power_iterations`` at most.
    ``progress(iteration, largest relative residual)`` is called after each step.
    """
    rows, cols = op.shape
    width = min(k + oversample, rows, cols)
    Q = np.linalg.qr(op.matmat(np.random.default_rng(seed).standard_normal((cols, width))))[0]
    iteration = 0
    while True:
        Ub, s, Vt = np.linalg.svd(op.rmatmat(Q).T, full_matrices=False)  # Q^T A = Ub s Vt
        U = Q @ Ub
        AV = op.matmat(Vt[:k].T if iteration == power_iterations else Vt.T)
        relative = np.linalg.norm(AV[:, :k] - U[:, :k] * s[:k], axis=0) / np.maximum(s[:k], np.finfo(float).tiny)
        worst = float(relative.max()) if k else 0.0
        if progress is not None:
            progress(iteration, worst)
        if iteration == power_iterations or (tol is not None and worst <= tol):
            return Decomposition(U[:, :k], s[:k], Vt[:k], relative, iteration)
        Q = np.linalg.qr(AV)[0]
        iteration += 1
