"""Kernels on sentence vectors and the pivoted incomplete Cholesky decomposition.

Kernels (Yokoi 2018, Appendix A, Eq. 23-24): linear, cosine, RBF (Gaussian), Laplacian,
polynomial. Linear and cosine have explicit feature maps (Yokoi 2018, Eq. 19); every kernel can be turned into
one by the incomplete Cholesky decomposition (Fine & Scheinberg 2001; PHSIC Appendix B,
Yokoi 2018, Eq. 28-29), whose out-of-sample rows are computed "from halfway" by Yokoi 2018, Eq. 34.

Inputs may be dense arrays or scipy sparse rows (the hashing encoder); nothing here densifies
more than the ``d`` pivot rows.
"""

from __future__ import annotations

import abc
from typing import Callable

import numpy as np
from scipy.linalg import solve_triangular
from scipy.spatial.distance import cdist

from .errors import InputError
from .linalg import dense, normalize_rows, squared_norms


def _cross(X, Y) -> np.ndarray:
    product = X @ Y.T
    return dense(product).astype(np.float64, copy=False)


class Kernel(abc.ABC):
    """A positive definite kernel on rows of a matrix; ``k(X, Y)`` is the Gram matrix."""

    name = ""
    feature_space = False  # True when the feature map is explicit (Yokoi 2018, Eq. 19)

    @abc.abstractmethod
    def __call__(self, X, Y) -> np.ndarray:
        """The Gram matrix between the rows of X and the rows of Y."""

    @abc.abstractmethod
    def diag(self, X) -> np.ndarray:
        """k(x, x) for every row x of X."""

    def columns(self, X):
        """A function p -> k(X, x_p) for pivot rows of X, reusing per-row work across pivots."""
        return lambda p: self(X, X[p : p + 1]).ravel()

    def params(self) -> dict:
        return {"name": self.name}


class LinearKernel(Kernel):
    """k(x, x') = x^T x'; feature map phi(x) = x (Yokoi 2018, Eq. 19)."""

    name, feature_space = "linear", True

    def __call__(self, X, Y):
        return _cross(X, Y)

    def diag(self, X):
        return squared_norms(X)

    def feature_map(self, X):
        return X


class CosineKernel(Kernel):
    """k(x, x') = cos(x, x') (Yokoi 2018, Eq. 23); feature map phi(x) = x / ||x|| (Yokoi 2018, Eq. 19), phi(0) = 0."""

    name, feature_space = "cos", True

    def __call__(self, X, Y):
        return _cross(normalize_rows(X), normalize_rows(Y))

    def diag(self, X):
        return (squared_norms(X) > 0).astype(np.float64)

    def feature_map(self, X):
        return normalize_rows(X)


class RBFKernel(Kernel):
    """k(x, x') = exp(-||x - x'||^2 / (2 sigma^2)) (Yokoi 2018, Eq. 24)."""

    name = "rbf"

    def __init__(self, sigma: float):
        self.sigma = float(sigma)

    def __call__(self, X, Y):
        distances = squared_norms(X)[:, None] + squared_norms(Y)[None, :] - 2.0 * _cross(X, Y)
        return np.exp(-np.maximum(distances, 0.0) / (2.0 * self.sigma**2))

    def diag(self, X):
        return np.ones(X.shape[0])

    def columns(self, X):
        norms = squared_norms(X)
        return lambda p: np.exp(-np.maximum(norms + norms[p] - 2.0 * _cross(X, X[p : p + 1]).ravel(), 0.0)
                                / (2.0 * self.sigma**2))

    def params(self):
        return {"name": self.name, "sigma": self.sigma}


class LaplacianKernel(Kernel):
    """k(x, x') = exp(-||x - x'||_1 / sigma)."""

    name = "laplacian"

    def __init__(self, sigma: float):
        self.sigma = float(sigma)

    def __call__(self, X, Y):
        return np.exp(-cdist(dense(X), dense(Y), metric="cityblock") / self.sigma)

    def diag(self, X):
        return np.ones(X.shape[0])

    def params(self):
        return {"name": self.name, "sigma": self.sigma}


class PolynomialKernel(Kernel):
    """k(x, x') = (gamma x^T x' + coef0)^degree."""

    name = "poly"

    def __init__(self, degree: int = 2, gamma: float = 1.0, coef0: float = 1.0):
        self.degree, self.gamma, self.coef0 = int(degree), float(gamma), float(coef0)

    def __call__(self, X, Y):
        return (self.gamma * _cross(X, Y) + self.coef0) ** self.degree

    def diag(self, X):
        return (self.gamma * squared_norms(X) + self.coef0) ** self.degree

    def params(self):
        return {"name": self.name, "degree": self.degree, "gamma": self.gamma, "coef0": self.coef0}


KERNELS = {
    "linear": LinearKernel,
    "cos": CosineKernel,
    "rbf": RBFKernel,
    "laplacian": LaplacianKernel,
    "poly": PolynomialKernel,
}
BANDWIDTH_KERNELS = {"rbf": "euclidean", "laplacian": "cityblock"}


def make_kernel(name: str, **params) -> Kernel:
    if name not in KERNELS:
        raise InputError(f"unknown kernel {name!r}; choose from {sorted(KERNELS)}")
    return KERNELS[name](**params)


def median_distance(X, metric: str = "euclidean", sample: int = 1000, seed: int = 0) -> float:
    """Median pairwise distance of a seeded sample of rows (the median heuristic for sigma)."""
    n = X.shape[0]
    rows = np.sort(np.random.default_rng(seed).choice(n, size=min(n, sample), replace=False))
    points = dense(X[rows]).astype(np.float64)
    distances = cdist(points, points, metric=metric)[np.triu_indices(len(points), k=1)]
    positive = distances[distances > 0]
    if positive.size == 0:
        raise InputError("cannot choose a kernel bandwidth: all sampled vectors are identical; set sigma")
    return float(np.median(positive))


def incomplete_cholesky(X, kernel: Kernel, rank: int, tol: float = 1e-6) -> tuple[np.ndarray, np.ndarray]:
    """Pivoted incomplete Cholesky: A (n x d) with A A^T ~ K (Yokoi 2018, Eq. 28-29) and the pivot indices.

    Greedy: each step takes the row with the largest residual diagonal as the next pivot and
    stops after ``rank`` pivots or once every residual is at most ``tol``. O(n d^2) time plus
    ``n d`` kernel evaluations; the loop runs over pivots, never over examples.
    """
    n = X.shape[0]
    rank = min(rank, n)
    X = X.astype(np.float64, copy=False)
    A = np.zeros((n, rank), order="F")  # column j is written and A[:, :j] read as one block per step
    residual = _finite(lambda: kernel.diag(X).astype(np.float64), kernel)
    column_of = kernel.columns(X)
    pivots: list[int] = []
    for j in range(rank):
        p = int(np.argmax(residual))
        if residual[p] <= tol:
            break
        pivots.append(p)
        column = _finite(lambda p=p: column_of(p), kernel)
        A[:, j] = (column - A[:, :j] @ A[p, :j]) / np.sqrt(residual[p])
        residual -= A[:, j] ** 2
        residual[pivots] = 0.0
    return A[:, : len(pivots)], np.asarray(pivots, dtype=np.int64)


def _finite(compute: Callable[[], np.ndarray], kernel: Kernel) -> np.ndarray:
    """The values ``compute()`` gets from ``kernel``, or an InputError (not a warning) if they overflow
    (a poly kernel of large gamma or degree)."""
    with np.errstate(over="ignore", invalid="ignore"):
        values = compute()
    if not np.isfinite(values).all():
        raise InputError(f"the {kernel.name} kernel {kernel.params()} overflows on these vectors (infinite values); "
                         "choose smaller parameters or kernel.normalize: true")
    return values


class IncompleteCholeskyMap:
    """The feature map x -> a in R^d of an incomplete Cholesky decomposition.

    ``pivot_points`` are the pivots x^(1..d) and ``lower`` the pivots' rows of A (lower
    triangular); a new x is mapped by Yokoi 2018, Eq. 34, i.e. forward substitution with ``lower``.
    """

    def __init__(self, kernel: Kernel, pivot_points: np.ndarray, lower: np.ndarray):
        self.kernel, self.pivot_points, self.lower = kernel, pivot_points, lower

    @classmethod
    def fit(cls, X, kernel: Kernel, rank: int, tol: float = 1e-6) -> tuple["IncompleteCholeskyMap", np.ndarray]:
        """Decompose the Gram matrix of X; returns the map and the in-sample rows A."""
        A, pivots = incomplete_cholesky(X, kernel, rank, tol)
        return cls(kernel, dense(X[pivots]).astype(np.float64), A[pivots]), A

    @property
    def dim(self) -> int:
        return self.lower.shape[0]

    def __call__(self, X) -> np.ndarray:
        """Yokoi 2018, Eq. 34 for every row of X at once: a = L^{-1} k(x, x^(1..d))."""
        gram = self.kernel(X, self.pivot_points)
        return solve_triangular(self.lower, gram.T, lower=True, check_finite=False).T
