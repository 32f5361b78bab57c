"""Kernelized sorting (Quadrianto, Song & Smola, 2009) with the NLP variants of Jagarlamudi,
Juarez & Daume III (2010): sub-polynomial smoothing, seed alignments (S-U, S-Z).

A matching is an index vector: ``match[i]`` is the target matched to source i, or -1. With centred
kernels K = HKH and L = HLH the objective is tr(K pi^T L pi) = sum_ij K_ij L_{match_i match_j}
(Eq. 1). One iteration linearises it at the current (relaxed) matching P and solves the linear
assignment problem max_pi tr(pi^T G) with G = K P L (paper Fig. 1, steps 1-3); P is never formed:
its rows are rows of L picked by ``match`` (or their mean, for S-U's uniform rows).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
from scipy.optimize import linear_sum_assignment

FILLS = ("uniform", "zero")


def centre(K: np.ndarray) -> np.ndarray:
    """HKH with H = I - 11^T/n, without forming H."""
    return K - K.mean(axis=0) - K.mean(axis=1)[:, None] + K.mean()


def sub_polynomial(K: np.ndarray, p: float) -> np.ndarray:
    """The p-smoothed kernel: K^p element-wise (sign kept), rows to unit length, then K_sp K_sp^T."""
    S = np.sign(K) * np.abs(K) ** p
    S /= np.maximum(np.linalg.norm(S, axis=1, keepdims=True), 1e-300)
    return S @ S.T


def objective(K: np.ndarray, L: np.ndarray, match: np.ndarray) -> float:
    """tr(K pi^T L pi) over the matched sources (K, L centred)."""
    rows = np.flatnonzero(match >= 0)
    targets = match[rows]
    return float(np.einsum("ij,ij->", K[np.ix_(rows, rows)], L[np.ix_(targets, targets)]))


def assign(G: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """max-weight assignment of sources to targets (rectangular: the smaller side is fully matched).

    Returns the match vector (-1 for unmatched sources) and each matched source's edge weight.
    """
    rows, cols = linear_sum_assignment(G, maximize=True)
    match = np.full(G.shape[0], -1)
    match[rows] = cols
    weight = np.full(G.shape[0], -np.inf)
    weight[rows] = G[rows, cols]
    return match, weight


def force_seeds(G: np.ndarray, seed_rows: np.ndarray, seed_cols: np.ndarray, big: float) -> None:
    """Make the LAP keep the seeds: their edges gain ``big``, every other edge of theirs loses it."""
    G[seed_rows, :] -= big
    G[:, seed_cols] -= big
    G[seed_rows, seed_cols] += 3 * big


def most_confident(match: np.ndarray, weight: np.ndarray, seed_rows: np.ndarray, count: int) -> tuple[np.ndarray, bool]:
    """The ``count`` non-seed sources with the heaviest assigned edges, and whether that is all of them."""
    others = np.setdiff1d(np.flatnonzero(match >= 0), seed_rows)
    return others[np.argsort(-weight[others], kind="stable")[:count]], count >= others.size


def relaxed_rows(L: np.ndarray, match: np.ndarray, fill: str) -> np.ndarray:
    """P L: row i is L's row of source i's target; unmatched rows are the mean of the free
    targets' rows (S-U, uniform weights) or zero (S-Z), as in the paper's Table 1."""
    PL = np.zeros((match.size, L.shape[1]))
    hit = match >= 0
    PL[hit] = L[match[hit]]
    if fill == "uniform" and not hit.all():
        free = np.setdiff1d(np.arange(L.shape[0]), match[hit])
        if free.size:
            PL[~hit] = L[free].mean(axis=0)
    return PL


def pca_initialisations(K: np.ndarray, L: np.ndarray) -> list[np.ndarray]:
    """Match sources and targets by their projections on the first principal component of each
    centred kernel, for both signs of the target's eigenvector (Quadrianto et al.)."""
    u = np.linalg.eigh(K)[1][:, -1]
    v = np.linalg.eigh(L)[1][:, -1]
    return [assign(-np.abs(u[:, None] - sign * v[None, :]))[0] for sign in (1.0, -1.0)]


@dataclass
class Trace:
    """Objective per iteration (accepted or not) and the final matching with its confidences."""

    match: np.ndarray
    confidence: np.ndarray
    objective: float
    history: list[float] = field(default_factory=list)


def sort(K: np.ndarray, L: np.ndarray, init: np.ndarray, *, step: float = 0.5, max_iter: int = 100,
         patience: int = 5, tol: float = 1e-9) -> Trace:
    """Unsupervised kernelized sorting from ``init`` on centred K, L.

    The relaxed matching is the convex combination (1 - step) P_old + step pi_new of successive
    LAP solutions (Quadrianto et al.), kept as weighted index vectors; it keeps moving while the
    LAP solutions do not improve, for up to ``patience`` iterations. A solution is accepted only
    if it raises the objective, so the returned objective never decreases.
    """
    match, best = init, objective(K, L, init)
    mixture = [(1.0, init)]
    confidence = np.zeros(init.size)
    history = [best]
    stale = 0
    for _ in range(max_iter):
        PL = sum(w * relaxed_rows(L, m, "zero") for w, m in mixture)
        new, weight = assign(K @ PL)
        value = objective(K, L, new)
        history.append(value)
        mixture = [(w * (1 - step), m) for w, m in mixture if w * (1 - step) > 1e-3] + [(step, new)]
        if value > best + tol * max(1.0, abs(best)):
            match, best, confidence, stale = new, value, weight, 0
        else:
            stale += 1
            if stale >= patience:
                break
    if not confidence.any():
        confidence = assign(K @ relaxed_rows(L, match, "zero"))[1]
    return Trace(match, confidence, best, history)


def sort_with_seeds(K: np.ndarray, L: np.ndarray, seeds: dict[int, int], *, fill: str = "zero", delta: int = 2,
                    max_iter: int | None = None) -> Trace:
    """Semi-supervised kernelized sorting (S-U with ``fill='uniform'``, S-Z with ``'zero'``).

    Each iteration solves the LAP with the seed edges forced, then keeps the seeds plus the
    k + delta most confident other assignments (k: how many it kept before); the others get
    uniform or zero weight in the next relaxed matching. Ends when every source is matched.
    """
    if fill not in FILLS:
        raise ValueError(f"fill must be one of {FILLS}")
    n = K.shape[0]
    seed_rows = np.fromiter(seeds, dtype=np.int64, count=len(seeds))
    seed_cols = np.fromiter(seeds.values(), dtype=np.int64, count=len(seeds))
    match = np.full(n, -1)
    match[seed_rows] = seed_cols
    big = 1.0 + 2.0 * (np.abs(K).sum() * np.abs(L).max() + 1.0)
    kept, history = 0, []
    for _ in range(max_iter or n):
        G = K @ relaxed_rows(L, match, fill)
        force_seeds(G, seed_rows, seed_cols, big)
        assignment, weight = assign(G)
        history.append(objective(K, L, assignment))
        kept += delta
        confident, complete = most_confident(assignment, weight, seed_rows, kept)
        match = np.full(n, -1)
        match[seed_rows] = seed_cols
        match[confident] = assignment[confident]
        if complete:
            break
    weight[seed_rows] -= big  # back to the seed edges' own weight
    return Trace(assignment, weight, objective(K, L, assignment), history)
