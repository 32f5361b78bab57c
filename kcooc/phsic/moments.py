"""The sufficient statistics of PHSIC and the feature map of each side (Yokoi et al., 2018).

:class:`CrossMoments`: n, sum phi, sum psi and sum phi psi^T, which give C_XY (Yokoi 2018, Eq. 21) and
merge across shards; :class:`FeatureMap`: phi, explicit for linear and cosine kernels (Eq. 19), the
incomplete Cholesky map for the others (Appendix B, Eq. 28-29, 34).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import scipy.sparse as sp

from ..kernels import BANDWIDTH_KERNELS, KERNELS, IncompleteCholeskyMap, Kernel, make_kernel, median_distance
from ..linalg import add_cross_product, normalize_rows, with_ones_column


@dataclass
class CrossMoments:
    """Sufficient statistics of PHSIC: n, sum phi, sum psi and sum phi psi^T (float64)."""

    n: int
    sum_x: np.ndarray
    sum_y: np.ndarray
    sum_xy: np.ndarray

    @classmethod
    def zeros(cls, dim_x: int, dim_y: int) -> "CrossMoments":
        return cls(0, np.zeros(dim_x), np.zeros(dim_y), np.zeros((dim_x, dim_y)))

    def update(self, Phi, Psi) -> None:
        """Add a block of feature-mapped pairs (rows of Phi and Psi; dense or sparse).

        Products run in float64: C = E[phi psi^T] - E[phi] E[psi]^T cancels most of its digits
        (Yokoi 2018, Eq. 21), and single precision would make sharded and serial results differ visibly.
        Dense blocks get a ones column, so one GEMM gives sum phi psi^T, sum phi and sum psi.
        """
        self.n += Phi.shape[0]
        if sp.issparse(Phi) or sp.issparse(Psi):
            Phi, Psi = Phi.astype(np.float64, copy=False), Psi.astype(np.float64, copy=False)
            self.sum_x += np.asarray(Phi.sum(axis=0)).ravel()
            self.sum_y += np.asarray(Psi.sum(axis=0)).ravel()
            add_cross_product(self.sum_xy, Phi, Psi)
            return
        product = with_ones_column(Phi).T @ with_ones_column(Psi)
        self.sum_xy += product[:-1, :-1]
        self.sum_x += product[:-1, -1]
        self.sum_y += product[-1, :-1]

    def merge(self, other: "CrossMoments") -> "CrossMoments":
        return CrossMoments(self.n + other.n, self.sum_x + other.sum_x, self.sum_y + other.sum_y,
                            self.sum_xy + other.sum_xy)

    def add(self, other: "CrossMoments") -> "CrossMoments":
        """``merge`` in place (the same sums, no new matrices): for a running total the caller owns."""
        self.n += other.n
        for mine, theirs in ((self.sum_x, other.sum_x), (self.sum_y, other.sum_y), (self.sum_xy, other.sum_xy)):
            mine += theirs
        return self

    def means(self) -> tuple[np.ndarray, np.ndarray]:
        return self.sum_x / self.n, self.sum_y / self.n

    def covariance(self) -> np.ndarray:
        """The empirical cross-covariance C_XY of Yokoi 2018, Eq. 21 (C_ICD of Yokoi 2018, Eq. 32 on ICD features)."""
        mean_x, mean_y = self.means()
        return self.sum_xy / self.n - np.outer(mean_x, mean_y)


class FeatureMap:
    """phi for one side: explicit (linear, cos) or the incomplete Cholesky map (other kernels).

    With ``normalize`` the sentence vectors are scaled to unit length before the kernel (an RBF
    kernel then depends on their cosine only, not on sentence length).
    """

    def __init__(self, kernel: Kernel, icd: IncompleteCholeskyMap | None = None, normalize: bool = False):
        self.kernel, self.icd, self.normalize = kernel, icd, normalize

    @classmethod
    def fit(cls, kernel: str, sample, *, sigma: float | str = "median", rank: int = 100, tol: float = 1e-6,
            degree: int = 2, gamma: float = 1.0, coef0: float = 1.0, normalize: bool = False,
            seed: int = 0) -> "FeatureMap":
        """Build the map; data-space kernels need a sample to choose sigma and the pivots."""
        if KERNELS[kernel].feature_space:
            return cls(make_kernel(kernel), normalize=normalize)
        if normalize:
            sample = normalize_rows(sample)
        params: dict = {}
        if kernel in BANDWIDTH_KERNELS:
            params["sigma"] = (median_distance(sample, BANDWIDTH_KERNELS[kernel], seed=seed)
                               if sigma == "median" else float(sigma))
        elif kernel == "poly":
            params.update(degree=degree, gamma=gamma, coef0=coef0)
        k = make_kernel(kernel, **params)
        icd, _ = IncompleteCholeskyMap.fit(sample, k, rank, tol)
        return cls(k, icd, normalize)

    def dim(self, input_dim: int) -> int:
        return self.icd.dim if self.icd is not None else input_dim

    def __call__(self, X):
        if self.normalize:
            X = normalize_rows(X)
        return self.icd(X) if self.icd is not None else self.kernel.feature_map(X)

    def state(self, prefix: str) -> tuple[dict, dict[str, np.ndarray]]:
        arrays = {}
        if self.icd is not None:
            arrays = {f"{prefix}pivots": self.icd.pivot_points, f"{prefix}lower": self.icd.lower}
        return {**self.kernel.params(), "normalize": self.normalize}, arrays

    @classmethod
    def from_state(cls, params: dict, arrays: dict[str, np.ndarray], prefix: str) -> "FeatureMap":
        params = dict(params)
        normalize = params.pop("normalize", False)
        kernel = make_kernel(**params)
        if kernel.feature_space:
            return cls(kernel, normalize=normalize)
        icd = IncompleteCholeskyMap(kernel, arrays[f"{prefix}pivots"], arrays[f"{prefix}lower"])
        return cls(kernel, icd, normalize)
