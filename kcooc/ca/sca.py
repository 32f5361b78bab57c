"""Semi-supervised correspondence analysis (Niitsuma 2022, Def. 5, Eq. 57-58) as a delayed operator.

With tuning tables Gamma^r = Gamma^c = 11^T + S (S: the supervised pairs' ratio changes, weight x
score / max score, symmetric, zero elsewhere; S = 0 gives LCA exactly), SCA decomposes
    D(r')^-1/2 [N o (Gamma N Gamma) - (Gamma N) o (N Gamma)] D(c')^-1/2,
    r' = ((Gamma N) o (N Gamma)) 1,  c' = ((Gamma N) o (N Gamma))^T 1.
Expanding Gamma = 11^T + S splits the bracket into n N - r c^T (LCA), terms that are products with
N and S (kept delayed: N D(S c), D(S r) N, N S D(c), D(r) S N) and two Hadamard terms that are non-zero
only on the block of supervised words (formed there, a |words| x |words| matrix):
    N o (S N S) - (S N) o (N S).
The total inertia of SCA (the sum of every squared singular value of that matrix, its squared Frobenius norm)
is computed exactly by parts, without forming the matrix: SCAOperator.total_inertia.
"""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp

from .svd import CAOperator


def supervision_matrix(pairs: list[tuple[int, int, float]], size: int, weight: float) -> sp.csr_matrix:
    """S from (word, word, score) pairs: weight x score / max score, symmetric, no diagonal.

    The tuning ratio of a pair is then 1 + S_ij (Niitsuma 2022, Eq. 57): 1 leaves the pair as in LCA."""
    if not pairs:
        return sp.csr_matrix((size, size))
    rows, cols, scores = (np.array(column) for column in zip(*pairs))
    values = weight * np.asarray(scores, dtype=np.float64) / max(float(np.max(scores)), 1e-300)
    S = sp.coo_matrix((values, (rows, cols)), shape=(size, size)).tocsr()
    S = (S.minimum(S.T) if weight < 0 else S.maximum(S.T)).tolil()  # one entry per pair, either direction
    S.setdiag(0)
    return S.tocsr()


class SCAOperator(CAOperator):
    """SCA's matrix M = D(r')^-1/2 [bracket] D(c')^-1/2 (module docstring) as products, and its exact total.

    Rows and columns whose weight r' or c' is not positive are left out (zero), as in DelayedOperator.
    """

    def __init__(self, N: sp.spmatrix, S: sp.spmatrix):
        super().__init__(N)
        N, n, r, c = self.N, self.n, self.r, self.c
        S = sp.csr_matrix(S, dtype=np.float64)
        words = np.flatnonzero(np.asarray(abs(S).sum(axis=1)).ravel())
        Nb, Sb = N[words][:, words].toarray(), S[words][:, words].toarray()
        block = Nb * (Sb @ Nb @ Sb) - (Sb @ Nb) * (Nb @ Sb)  # the Hadamard terms, on the supervised block only
        E = sp.csr_matrix(sp.coo_matrix(block).tocsr(), shape=(len(words), len(words)))
        place = sp.csr_matrix((np.ones(len(words)), (words, np.arange(len(words)))), shape=(N.shape[0], len(words)))
        E = (place @ E @ place.T).tocsr()
        Sc, Sr = S @ c, S @ r
        square = (Sb @ Nb) * (Nb @ Sb)

        def product(W):
            NW = N @ W
            return (n * NW + N @ (Sc[:, None] * W) + Sr[:, None] * NW - N @ (S @ (c[:, None] * W))
                    - r[:, None] * (S @ NW) + E @ W) / n**2

        def rproduct(W):
            NtW = N.T @ W
            return (n * NtW + Sc[:, None] * NtW + N.T @ (Sr[:, None] * W) - c[:, None] * (S @ NtW)
                    - N.T @ (S @ (r[:, None] * W)) + E.T @ W) / n**2

        row = n * r + N @ Sc + r * Sr
        row[words] += square.sum(axis=1)
        col = n * c + c * Sc + N.T @ Sr
        col[words] += square.sum(axis=0)
        self.define(product, rproduct, r / n, c / n, row / n**2, col / n**2)
        self.words, self.Sw, self.Sr, self.Sc = words, sp.csr_matrix(Sb), Sr, Sc
        self.block_bracket = (Nb * (n + Sr[words][:, None] + Sc[words][None, :]) - (Nb @ Sb) * c[words]
                              - r[words][:, None] * (Sb @ Nb) - np.outer(r[words], c[words]) + block)

    def total_inertia(self) -> float:
        """||M||_F^2 = the sum of every squared singular value of M, exactly, without forming M.

        M = D(rho) B D(kappa) / n^2 with B the bracket n N - r c^T + N D(S c) + D(S r) N - N S D(c)
        - D(r) S N + Hadamard terms. Off the supervised words' rows and columns (the rest, U) S is zero and
        B = n N - r c^T: that part is summed over N's non-zeros plus the closed form of the rank-one term,
        as CAOperator.total_inertia does. The rest of B is formed a block of rows at a time: the columns of
        the supervised words W on the rows U, N_UW D(n + S c) - (N_UW S) D(c) - r c^T (a sparse product
        with S, which fills in at most |U| x |W| entries), the rows W on the columns U (the same, transposed,
        with r and c swapped), and the W x W block (kept dense from the operator's construction). Memory:
        N's columns and rows of W, |W|^2, and about 2^20 entries per block of rows; nothing is estimated.
        """
        n, words = self.n, self.words
        rho, kappa = self.row_scale / n, self.col_scale / n  # M_ij = rho_i B_ij kappa_j
        out = np.ones(self.shape[0], dtype=bool)
        out[words] = False
        rest = np.flatnonzero(out)
        N = self.N.tocoo()
        keep = out[N.row] & out[N.col]
        i, j, v = N.row[keep], N.col[keep], N.data[keep]
        left, right = rho * self.r, kappa * self.c
        total = float(((rho[i] * kappa[j]) ** 2 * v * (n * n * v - 2 * n * self.r[i] * self.c[j])).sum()
                      + (left[rest] ** 2).sum() * (right[rest] ** 2).sum())
        if words.size == 0:
            return total
        total += _rows_norm(self.N[:, words][rest].tocsr(), self.Sw, n + self.Sc[words], self.c[words],
                            self.r[rest], rho[rest], kappa[words])
        total += _rows_norm(self.N[words][:, rest].T.tocsr(), self.Sw, n + self.Sr[words], self.r[words],
                            self.c[rest], kappa[rest], rho[words])
        return total + float(((rho[words][:, None] * self.block_bracket * kappa[words]) ** 2).sum())


def _rows_norm(C: sp.csr_matrix, S: sp.csr_matrix, scale: np.ndarray, margin: np.ndarray, other: np.ndarray,
               row_weight: np.ndarray, col_weight: np.ndarray) -> float:
    """sum of (row_weight_i col_weight_j X_ij)^2 over X = C D(scale) - (C S) D(margin) - other margin^T,
    formed a block of at most about 2^20 entries at a time."""
    step = max(1, (1 << 20) // max(C.shape[1], 1))
    total = 0.0
    for start in range(0, C.shape[0], step):
        part = C[start : start + step]
        X = part.toarray() * scale - (part @ S).toarray() * margin - np.outer(other[start : start + step], margin)
        total += float(((row_weight[start : start + step, None] * X * col_weight) ** 2).sum())
    return total


def sca_operator(N: sp.spmatrix, S: sp.spmatrix) -> SCAOperator:
    """The operator of SCA (Niitsuma 2022, Def. 5) of N with the supervision S (supervision_matrix)."""
    return SCAOperator(N, S)
