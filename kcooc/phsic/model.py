"""Pointwise HSIC.

Reference: Sho Yokoi, Sosuke Kobayashi, Kenji Fukumizu, Jun Suzuki and Kentaro Inui, "Pointwise HSIC:
A Linear-Time Kernelized Co-occurrence Norm for Sparse Linguistic Expressions", EMNLP 2018.

PHSIC(x, y) = (phi(x) - mean phi)^T C_XY (psi(y) - mean psi)      (Yokoi 2018, Eq. 14; estimator Eq. 18)
C_XY = 1/n sum_i phi(x_i) psi(y_i)^T - mean phi mean psi^T          (Yokoi 2018, Eq. 21)

* Linear and cosine kernels use their explicit feature maps (Yokoi 2018, Eq. 19).
* Any other kernel (RBF: Yokoi 2018, Eq. 24; Laplacian; polynomial) uses the incomplete Cholesky
  feature map a(x) (Yokoi 2018, Appendix B, Eq. 28-29, 34):
  PHSIC_ICD(x, y) = (a - mean a)^T C_ICD (b - mean b) (Yokoi 2018, Eq. 32-33).

Both cases reduce training to the mergeable sufficient statistics (n, sum phi, sum psi, sum phi psi^T)
of :class:`~kcooc.phsic.moments.CrossMoments`, so shards can be trained apart and merged, and scoring a
block is two matrix products. HSIC itself (Yokoi 2018, Eq. 30-31) is ||C||_F^2. The module is long (over
350 lines) because :class:`PHSIC` is one estimator documented by doctested numpydoc; a saved model's
checks are :mod:`kcooc.phsic.persistence`.
"""

from __future__ import annotations

import numpy as np

from .. import artifact
from ..errors import InputError, check_fitted
from ..linalg import dense, rowwise_bilinear
from .moments import CrossMoments, FeatureMap
from .persistence import KIND, check_artifact, check_header


class PHSIC:
    """Pointwise HSIC of sentence pairs, shaped like a scikit-learn estimator (Yokoi 2018, Eq. 18).

    ``fit(X, Y)`` learns the centred cross-covariance of the two sides' feature maps; ``score(X, Y)``
    gives each row pair its PHSIC, the co-occurrence of x and y beyond chance: positive when the pair
    looks like the training pairs, near 0 when x and y look independent. X and Y hold the encoded
    pairs row by row (dense arrays or scipy CSR, e.g. from :class:`kcooc.encoders.HashingEncoder`).
    For a stream, call :meth:`fit_maps` on a sample (data-space kernels only), then
    :meth:`partial_fit` block by block (or merge the :meth:`block_moments` of shards) and
    :meth:`finalize`.

    Parameters
    ----------
    kernel : {"linear", "cos", "rbf", "laplacian", "poly"}, default "cos"
        The kernel on both sides; linear and cos in feature space (Yokoi 2018, Eq. 19), the others by
        incomplete Cholesky (Yokoi 2018, Eq. 28-34).
    sigma : float or "median", default "median"
        rbf/laplacian bandwidth; "median" takes the median distance of a sample.
    rank : int, default 100
        Incomplete Cholesky rank d (at most); ``tol`` stops it earlier.
    tol : float, default 1e-6
        Incomplete Cholesky stops when the largest remaining diagonal is below it.
    degree, gamma, coef0 : int, float, float, default 2, 1.0, 1.0
        The poly kernel (gamma x'y + coef0)^degree.
    normalize : bool, default False
        Scale the sentence vectors to unit length before the kernel.
    seed : int, default 0
        Seed of the median-distance sample.

    Attributes
    ----------
    x_map, y_map : FeatureMap
        phi and psi, set by :meth:`fit_maps` (None before).
    moments : CrossMoments
        The sufficient statistics (n, sum phi, sum psi, sum phi psi^T); None before fitting.
    mean_x_, mean_y_ : ndarray
        The centring vectors, means of phi(x) and psi(y) (Yokoi 2018, Eq. 20).
    covariance_ : ndarray of shape (dim phi, dim psi)
        C_XY (Yokoi 2018, Eq. 21).

    Raises
    ------
    InputError
        ``rank`` below 1, or ``sigma`` neither "median" nor positive.

    References
    ----------
    Sho Yokoi, Sosuke Kobayashi, Kenji Fukumizu, Jun Suzuki and Kentaro Inui, "Pointwise HSIC: A
    Linear-Time Kernelized Co-occurrence Norm for Sparse Linguistic Expressions", EMNLP 2018.

    Examples
    --------
    >>> import numpy as np
    >>> from kcooc import PHSIC
    >>> rng = np.random.default_rng(0)
    >>> X = rng.normal(size=(300, 5))
    >>> Y = X @ rng.normal(size=(5, 4)) + 0.5 * rng.normal(size=(300, 4))  # y depends on x
    >>> model = PHSIC("linear").fit(X, Y)
    >>> paired, shuffled = model.score(X, Y), model.score(X, Y[::-1])
    >>> bool(paired.mean() > 10 * abs(shuffled.mean()))
    True
    >>> model.covariance_.shape
    (5, 4)
    >>> bool(np.isclose(model.hsic(), paired.mean()))  # HSIC is the mean in-sample PHSIC
    True
    """

    def __init__(self, kernel: str = "cos", *, sigma: float | str = "median", rank: int = 100,
                 tol: float = 1e-6, degree: int = 2, gamma: float = 1.0, coef0: float = 1.0,
                 normalize: bool = False, seed: int = 0):
        if rank < 1:
            raise InputError(f"rank must be >= 1, got {rank}")
        if sigma != "median" and not (isinstance(sigma, (int, float)) and sigma > 0):
            raise InputError(f"sigma must be 'median' or a positive number, got {sigma!r}")
        self.kernel = kernel
        self.map_params = dict(sigma=sigma, rank=rank, tol=tol, degree=degree, gamma=gamma, coef0=coef0,
                               normalize=normalize)
        self.seed = seed
        self.x_map: FeatureMap | None = None
        self.y_map: FeatureMap | None = None
        self.moments: CrossMoments | None = None

    # -- training -------------------------------------------------------------------------------
    def fit_maps(self, X_sample=None, Y_sample=None) -> "PHSIC":
        """Build phi and psi, and forget any statistics.

        Parameters
        ----------
        X_sample, Y_sample : array or sparse matrix, optional
            Rows of each side to choose the bandwidth and the pivots from; feature-space kernels
            (linear, cos) need none.

        Returns
        -------
        PHSIC
            self
        """
        self.x_map = FeatureMap.fit(self.kernel, X_sample, seed=self.seed, **self.map_params)
        self.y_map = FeatureMap.fit(self.kernel, Y_sample, seed=self.seed + 1, **self.map_params)
        self.moments = None
        return self

    def block_moments(self, X, Y) -> CrossMoments:
        """The statistics of one block of pairs, to add to others with ``CrossMoments.merge``.

        Parameters
        ----------
        X, Y : array or sparse matrix of shape (n, ·)
            The encoded pairs, row by row.

        Returns
        -------
        CrossMoments
            n, sum phi, sum psi and sum phi psi^T of the block.
        """
        check_fitted(self, "x_map", "fit_maps (or fit)")
        if X.shape[0] != Y.shape[0]:
            raise InputError(f"X has {X.shape[0]} rows but Y has {Y.shape[0]}")
        Phi, Psi = self.x_map(X), self.y_map(Y)
        moments = CrossMoments.zeros(Phi.shape[1], Psi.shape[1])
        moments.update(Phi, Psi)
        return moments

    def partial_fit(self, X, Y) -> "PHSIC":
        """Add a block of pairs to the statistics (after :meth:`fit_maps`; :meth:`finalize` at the end).

        Parameters
        ----------
        X, Y : array or sparse matrix of shape (n, ·)
            The encoded pairs, row by row.

        Returns
        -------
        PHSIC
            self
        """
        block = self.block_moments(X, Y)
        self.moments = block if self.moments is None else self.moments.merge(block)
        return self

    def fit_moments(self, moments: CrossMoments) -> "PHSIC":
        """Fit on statistics summed elsewhere with these maps (over shards, or by the passes of
        filter-parallel): ``moments`` becomes the model's, then :meth:`finalize`.

        Parameters
        ----------
        moments : CrossMoments
            The sums (n, sum phi, sum psi, sum phi psi^T) of the pairs, mapped by this model's maps.

        Returns
        -------
        PHSIC
            self
        """
        self.moments = moments
        return self.finalize()

    def fit(self, X, Y) -> "PHSIC":
        """Fit on all pairs at once (the maps from all rows, as in the paper).

        Parameters
        ----------
        X, Y : array or sparse matrix of shape (n, ·)
            The encoded pairs, row by row (x_i with y_i).

        Returns
        -------
        PHSIC
            self, fitted.
        """
        return self.fit_maps(X, Y).partial_fit(X, Y).finalize()

    def finalize(self) -> "PHSIC":
        """Freeze the statistics into the centring vectors and C (Yokoi 2018, Eq. 20-21).

        Returns
        -------
        PHSIC
            self, ready to score.
        """
        check_fitted(self, "moments", "partial_fit (or fit)")
        if self.moments.n == 0:
            raise InputError("no training pairs")
        self.mean_x_, self.mean_y_ = self.moments.means()
        self.covariance_ = self.moments.covariance()
        return self

    # -- scoring --------------------------------------------------------------------------------
    def score(self, X, Y) -> np.ndarray:
        """PHSIC of each row pair (Yokoi 2018, Eq. 18; Eq. 33 for incomplete Cholesky).

        Parameters
        ----------
        X, Y : array or sparse matrix of shape (n, ·)
            The encoded pairs to score, encoded as the training pairs were.

        Returns
        -------
        ndarray of shape (n,)
            PHSIC(x_i, y_i): above 0 where x and y co-occur more than chance predicts.
        """
        check_fitted(self, "covariance_")
        if X.shape[0] != Y.shape[0]:
            raise InputError(f"X has {X.shape[0]} rows but Y has {Y.shape[0]}")
        for side, M, feature_map, dim in (("x", X, self.x_map, self.covariance_.shape[0]),
                                          ("y", Y, self.y_map, self.covariance_.shape[1])):
            expected = feature_map.icd.pivot_points.shape[1] if feature_map.icd is not None else dim
            if M.shape[1] != expected:
                raise InputError(f"{side} vectors have {M.shape[1]} dimensions but the model expects {expected}")
        return self.score_features(self.x_map(X), self.y_map(Y))

    def score_features(self, Phi, Psi) -> np.ndarray:
        """(phi - m_x)^T C (psi - m_y) of feature-mapped rows, expanded so sparse rows are never centred.

        Parameters
        ----------
        Phi, Psi : array or sparse matrix of shape (n, ·)
            ``x_map(X)`` and ``y_map(Y)``.

        Returns
        -------
        ndarray of shape (n,)
            PHSIC of each row pair.
        """
        check_fitted(self, "covariance_")
        C = self.covariance_
        return (rowwise_bilinear(Phi, C, Psi) - dense(Phi @ (C @ self.mean_y_)).ravel()
                - dense(Psi @ (C.T @ self.mean_x_)).ravel() + self.mean_x_ @ C @ self.mean_y_)

    def score_matrix(self, X, Y) -> np.ndarray:
        """PHSIC of every x against every y (contexts x candidate responses).

        Parameters
        ----------
        X : array or sparse matrix of shape (n, ·)
        Y : array or sparse matrix of shape (m, ·)

        Returns
        -------
        ndarray of shape (n, m)
            PHSIC(x_i, y_j).
        """
        check_fitted(self, "covariance_")
        Z = dense(self.x_map(X) @ self.covariance_) - self.mean_x_ @ self.covariance_
        return dense(Z @ self.y_map(Y).T) - (Z @ self.mean_y_)[:, None]

    def hsic(self) -> float:
        """HSIC = mean of in-sample PHSIC = ||C||_F^2 (Yokoi 2018, Eq. 30-31).

        Returns
        -------
        float
            The dependence of the two sides over the training pairs (0: independent).
        """
        check_fitted(self, "covariance_")
        return float(np.sum(self.covariance_**2))

    # -- persistence ----------------------------------------------------------------------------
    def save(self, path: str, *, config: dict | None = None, encoders: list[dict] | dict | None = None,
             data_sha256: str | None = None, **header) -> None:
        """Write a ``phsic`` artifact (``.npz``: the statistics and maps, a JSON header).

        Parameters
        ----------
        path : str
            The file to write (atomically).
        config : dict, optional
            The resolved configuration the model was trained with (``kcooc phsic score`` reads
            its input options from it).
        encoders : list of dict or dict, optional
            The specs of the x and y sentence encoders, or the paths of precomputed vectors.
        data_sha256 : str, optional
            A hash of the training data.
        **header
            Further JSON-serialisable header entries.
        """
        params, arrays = self.state()
        encoders = [] if encoders is None else encoders
        artifact.save(path, KIND, arrays, {**header, "config": config or {}, "model": params,
                                           "data_sha256": data_sha256, "encoders": encoders})

    @classmethod
    def load(cls, path: str) -> "PHSIC":
        """The model saved at ``path`` by :meth:`save` (or ``kcooc phsic train``).

        Parameters
        ----------
        path : str
            A ``phsic`` artifact (``.npz``).

        Returns
        -------
        PHSIC
            The fitted model.

        Raises
        ------
        InputError
            The file is not a valid ``phsic`` artifact.
        """
        return load_phsic(path)[1]

    def state(self) -> tuple[dict, dict[str, np.ndarray]]:
        """The parameters (JSON-serialisable) and arrays that :meth:`from_state` rebuilds the model from.

        Returns
        -------
        params : dict
        arrays : dict of str to ndarray
        """
        check_fitted(self, "moments", "fit")
        x_params, x_arrays = self.x_map.state("x_")
        y_params, y_arrays = self.y_map.state("y_")
        arrays = {**x_arrays, **y_arrays, "sum_x": self.moments.sum_x, "sum_y": self.moments.sum_y,
                  "sum_xy": self.moments.sum_xy}
        return {"kernel": self.kernel, "x_kernel": x_params, "y_kernel": y_params, "n": self.moments.n,
                "map_params": self.map_params, "seed": self.seed}, arrays

    @classmethod
    def from_artifact(cls, header: dict, arrays: dict[str, np.ndarray]) -> "PHSIC":
        """The model of a ``phsic`` artifact, after checking it against the kind's schema
        (:func:`kcooc.phsic.persistence.check_artifact`).

        Parameters
        ----------
        header : dict
            The artifact's JSON header (``model``: the parameters, ``config``).
        arrays : dict of str to ndarray
            The artifact's arrays.

        Returns
        -------
        PHSIC
            The fitted model.

        Raises
        ------
        InputError
            A missing, misshapen or non-finite array, or a header that does not describe a model.
        """
        check_artifact(header, arrays)
        return cls.from_state(header["model"], arrays)

    @classmethod
    def from_state(cls, params: dict, arrays: dict[str, np.ndarray]) -> "PHSIC":
        """The fitted model of :meth:`state`'s parameters and arrays (unchecked: see :meth:`from_artifact`).

        Parameters
        ----------
        params : dict
        arrays : dict of str to ndarray

        Returns
        -------
        PHSIC
        """
        model = cls(params["kernel"], seed=params["seed"], **params["map_params"])
        model.x_map = FeatureMap.from_state(params["x_kernel"], arrays, "x_")
        model.y_map = FeatureMap.from_state(params["y_kernel"], arrays, "y_")
        return model.fit_moments(CrossMoments(params["n"], arrays["sum_x"], arrays["sum_y"], arrays["sum_xy"]))


def load_phsic(path: str) -> tuple[dict, PHSIC]:
    """The header and the model of a ``phsic`` artifact, its schema and config checked (:meth:`PHSIC.from_artifact`)."""
    def read(header: dict, arrays: dict) -> PHSIC:
        check_header(header)
        return PHSIC.from_artifact(header, arrays)

    return artifact.load(path, KIND, read)
