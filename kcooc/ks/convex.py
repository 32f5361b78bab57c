"""Convex kernelized sorting (Djuric, Grbovic & Vucetic, 2012): for a permutation pi,
||K pi - pi L||_F^2 = ||K||^2 + ||L||^2 - 2 tr(K pi L pi^T), so minimising it is kernelized sorting;
over the doubly stochastic matrices (the convex hull of the permutations) it is a convex quadratic
programme, solved here by Frank-Wolfe: each step's linear minimisation over the polytope is a linear
assignment problem (its vertices are the permutations), and the step length is exact for a quadratic.
The relaxed matrix is rounded to a permutation by one more LAP (max tr(P^T pi)).

Our choices, not the paper's: zero diagonals (as the KS baseline) without centring (centred kernels
make the uniform matrix 11^T/n an optimum, K 1 = 0 = 1^T L), each kernel scaled to unit Frobenius
norm so neither side dominates the residual; seeds are forced into every LAP vertex, so every iterate
keeps them (the S-U/S-Z seeds, on the face of the polytope they define).
"""

from __future__ import annotations

import numpy as np

from .align import reference_kernels, zero_diagonal
from .sorting import Trace, assign, force_seeds, objective


def permuted_columns(K: np.ndarray, match: np.ndarray, n_targets: int) -> np.ndarray:
    """K S for the 0/1 matrix S with S[i, match[i]] = 1 (a column gather, no GEMM)."""
    KS = np.zeros((K.shape[0], n_targets))
    hit = match >= 0
    KS[:, match[hit]] = K[:, hit]
    return KS


def permuted_rows(L: np.ndarray, match: np.ndarray) -> np.ndarray:
    """S L for the same S (a row gather)."""
    SL = np.zeros((match.size, L.shape[1]))
    hit = match >= 0
    SL[hit] = L[match[hit]]
    return SL


def relaxed_objective(K: np.ndarray, L: np.ndarray, P: np.ndarray) -> float:
    """||K P - P L||_F^2 (Djuric et al. 2012, the convex objective)."""
    return float(np.sum((K @ P - P @ L) ** 2))


def convex_sorting(K: np.ndarray, L: np.ndarray, seeds: dict[int, int] | None = None, *, max_iter: int = 300,
                   tol: float = 1e-6) -> Trace:
    """Frank-Wolfe on min ||K P - P L||^2 over {P >= 0, P 1 = 1, P^T 1 <= 1} (doubly stochastic when
    square); ``history`` holds the relaxed objective per iteration. Stops when the Frank-Wolfe
    duality gap falls below ``tol`` times the first objective."""
    reference = reference_kernels(K, L)
    K, L = (zero_diagonal(M) / max(np.linalg.norm(zero_diagonal(M)), 1e-300) for M in (K, L))
    n, m = K.shape[0], L.shape[0]
    seeds = seeds or {}
    seed_rows = np.fromiter(seeds, dtype=np.int64, count=len(seeds))
    seed_cols = np.fromiter(seeds.values(), dtype=np.int64, count=len(seeds))
    if seeds:  # a vertex holding the seeds
        start = np.zeros((n, m))
        force_seeds(start, seed_rows, seed_cols, 1.0)
        P = permuted_rows(np.eye(m), assign(start)[0])  # the 0/1 matrix of that vertex
    else:
        P = np.full((n, m), 1.0 / max(n, m))
    KP, PL = K @ P, P @ L
    history: list[float] = []
    for _ in range(max_iter):
        R = KP - PL
        history.append(float(np.sum(R * R)))
        G = 2.0 * (K @ R - R @ L)  # gradient of ||K P - P L||^2 (K, L symmetric)
        W = -G
        if seeds:
            force_seeds(W, seed_rows, seed_cols, 1.0 + 2.0 * np.abs(G).max() * n)
        vertex = assign(W)[0]
        rows = np.flatnonzero(vertex >= 0)
        if float(np.sum(G * P) - G[rows, vertex[rows]].sum()) <= tol * history[0]:  # Frank-Wolfe duality gap
            break
        KS, SL = permuted_columns(K, vertex, m), permuted_rows(L, vertex)
        E = (KS - KP) - (SL - PL)  # K D - D L for the direction D = S - P
        step = float(np.clip(-np.sum(R * E) / max(np.sum(E * E), 1e-300), 0.0, 1.0))
        P *= 1.0 - step  # P + step (S - P), S the 0/1 matrix of the vertex
        P[rows, vertex[rows]] += step
        KP += step * (KS - KP)
        PL += step * (SL - PL)
    if seeds:
        P[seed_rows, seed_cols] += 2.0  # rounding keeps the seeds
    match, confidence = assign(P)
    if seeds:
        confidence[seed_rows] -= 2.0
    return Trace(match, confidence, objective(*reference, match), history)
