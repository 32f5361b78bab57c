"""Semi-supervised correspondence analysis (Niitsuma 2022, Def. 5, Eq. 57-58) as a delayed operator.

With tuning tables Gamma^r = Gamma^c = 11^T + S (S: the supervised pairs' ratio changes, weight x
score / max score, symmetric, zero elsewhere; S = 0 gives LCA exactly), SCA decomposes
    D(r')^-1/2 [N o (Gamma N Gamma) - (Gamma N) o (N Gamma)] D(c')^-1/2,
    r' = ((Gamma N) o (N Gamma)) 1,  c' = ((Gamma N) o (N Gamma))^T 1.
Expanding Gamma = 11^T + S splits the bracket into n N - r c^T (LCA), terms that are products with
N and S (kept delayed: N D(S c), D(S r) N, N S D(c), D(r) S N) and two Hadamard terms that are non-zero
only on the block of supervised words (formed there, a |words| x |words| matrix):
    N o (S N S) - (S N) o (N S).
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


def sca_operator(N: sp.spmatrix, S: sp.spmatrix) -> CAOperator:
    op = CAOperator(N)
    N, n, r, c = op.N, op.n, op.r, op.c
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
    op.define(product, rproduct, r / n, c / n, row / n**2, col / n**2)
    return op
