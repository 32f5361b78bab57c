"""Matching CCA (Haghighi et al., 2008), the paper's baseline: CCA on the matched pairs, match
everything in the CCA space, keep the seeds and the most confident new pairs, repeat."""

from __future__ import annotations

import numpy as np

from .sorting import Trace, assign, centre, force_seeds, most_confident, objective


def kernel_pca(K: np.ndarray, dims: int) -> np.ndarray:
    """Coordinates of the objects on the top ``dims`` principal components of the centred kernel."""
    values, vectors = np.linalg.eigh(centre(K))
    top = np.argsort(values)[::-1][:dims]
    return vectors[:, top] * np.sqrt(np.maximum(values[top], 0.0))


def _inverse_sqrt(C: np.ndarray) -> np.ndarray:
    values, vectors = np.linalg.eigh(C)
    return (vectors / np.sqrt(np.maximum(values, 1e-12))) @ vectors.T


def cca_projections(X: np.ndarray, Y: np.ndarray, reg: float) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Regularised CCA of paired rows: (W_x, W_y, mean_x, mean_y); columns by decreasing correlation."""
    mean_x, mean_y = X.mean(axis=0), Y.mean(axis=0)
    Xc, Yc = X - mean_x, Y - mean_y
    m = X.shape[0]
    Cxx = Xc.T @ Xc / m + reg * np.eye(X.shape[1])
    Cyy = Yc.T @ Yc / m + reg * np.eye(Y.shape[1])
    Wx, Wy = _inverse_sqrt(Cxx), _inverse_sqrt(Cyy)
    U, _, Vt = np.linalg.svd(Wx @ (Xc.T @ Yc / m) @ Wy)
    return Wx @ U, Wy @ Vt.T, mean_x, mean_y


def mcca(K: np.ndarray, L: np.ndarray, seeds: dict[int, int], *, dims: int = 20, reg: float = 0.1,
         delta: int = 2) -> Trace:
    X, Y = kernel_pca(K, dims), kernel_pca(L, dims)
    seed_rows = np.fromiter(seeds, dtype=np.int64, count=len(seeds))
    seed_cols = np.fromiter(seeds.values(), dtype=np.int64, count=len(seeds))
    rows, cols = seed_rows, seed_cols
    kept = 0
    while True:
        Wx, Wy, mean_x, mean_y = cca_projections(X[rows], Y[cols], reg)
        k = min(len(rows), dims)
        Px, Py = (X - mean_x) @ Wx[:, :k], (Y - mean_y) @ Wy[:, :k]
        Px /= np.maximum(np.linalg.norm(Px, axis=1, keepdims=True), 1e-12)
        Py /= np.maximum(np.linalg.norm(Py, axis=1, keepdims=True), 1e-12)
        S = Px @ Py.T
        force_seeds(S, seed_rows, seed_cols, 4.0)  # cosines lie in [-1, 1]
        match, weight = assign(S)
        kept += delta
        confident, complete = most_confident(match, weight, seed_rows, kept)
        rows, cols = np.concatenate([seed_rows, confident]), np.concatenate([seed_cols, match[confident]])
        if complete:
            weight[seed_rows] -= 4.0
            return Trace(match, weight, objective(centre(K), centre(L), match), [])
