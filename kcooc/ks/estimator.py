"""Kernelized sorting as one scikit-learn shaped estimator over the methods of this package.

References: Jagadeesh Jagarlamudi, Seth Juarez and Hal Daumé III, "Kernelized Sorting for Natural
Language Processing", AAAI 2010 (p-smooth, S-U, S-Z, the MCCA baseline); Novi Quadrianto, Le Song and
Alex J. Smola, "Kernelized Sorting", NIPS 21, 2009 (the baseline); Nemanja Djuric, Mihajlo Grbovic and
Slobodan Vucetic, "Convex Kernelized Sorting", AAAI 2012.
"""

from __future__ import annotations

import numpy as np

from ..errors import InputError
from .align import kernelized_sorting, p_smooth
from .convex import convex_sorting
from .mcca import mcca

SEEDED = {"s-u": "uniform", "s-z": "zero", "mcca": None}  # methods that use seeds (and the fill of S-U/S-Z)
UNSEEDED = ("ks", "p-smooth")  # methods that cannot use seeds; convex may
SWEEPS = ("p-smooth", "s-u", "s-z")  # methods that sweep p (on an engine)
METHODS = ("ks", "p-smooth", "s-u", "s-z", "mcca", "convex")


class KernelizedSorting:
    """Match n source objects to m target objects from two within-side kernel matrices.

    Kernelized sorting finds the permutation under which the two sides' kernel matrices agree most
    (it maximises tr(K P L P^T), an HSIC between the sides), so no kernel between a source and a
    target object is needed: names in two scripts, documents in two languages.

    Parameters
    ----------
    method : {"ks", "p-smooth", "s-u", "s-z", "mcca", "convex"}, default "p-smooth"
        ks: the baseline (Quadrianto et al.); p-smooth: the sub-polynomial kernels K^p swept over
        ``p_values`` (Jagarlamudi et al. 2010, §3); s-u / s-z: p-smooth grown from seed alignments with
        uniform / zero weights for unconfident rows (§4); mcca: matching CCA on the seeds; convex:
        convex kernelized sorting by Frank-Wolfe (Djuric et al. 2012).
    p_values : list of float or None, default 0.05, 0.1, ..., 1
        The p grid of the sweeps; None in it stands for the unsmoothed kernels (not in the paper).
    delta : int, default 2
        Confident alignments added per iteration (s-u, s-z, mcca).
    max_iter : int, default 100
        Iterations per start (ks, p-smooth, s-u, s-z); ``convex_iter`` for convex.
    step : float, default 0.5
        ks: weight of the new assignment in the convex combination of successive solutions.
    convex_iter : int, default 300
        convex: Frank-Wolfe iterations.
    mcca_dims, mcca_reg : int, float, default 20, 0.1
        mcca: kernel PCA dimensions per side and the ridge on the covariances.

    Attributes
    ----------
    match_ : ndarray of int
        The target index of every source object (-1: unmatched).
    confidence_ : ndarray of float
        The weight of each source object's edge in the final assignment.
    objective_ : float
        tr(K P L P^T) of the matching found.
    trace_ : object
        The final iteration's match, confidence and objective, and the objective per iteration.
    p_ : float or None
        The p sweeps: the p whose matching has the best objective (None for the other methods).
    objective_per_p_ : list of (float, float)
        The p sweeps: (p, objective) of every p tried.

    Raises
    ------
    InputError
        An unknown ``method``, or a p value, count or step out of range.

    References
    ----------
    Jagadeesh Jagarlamudi, Seth Juarez and Hal Daumé III, "Kernelized Sorting for Natural Language
    Processing", AAAI 2010. Novi Quadrianto, Le Song and Alex J. Smola, "Kernelized Sorting",
    NIPS 2009. Nemanja Djuric, Mihajlo Grbovic and Slobodan Vucetic, "Convex Kernelized Sorting",
    AAAI 2012.

    Examples
    --------
    The target side is the source side shuffled, with a little noise:

    >>> import numpy as np
    >>> from kcooc import KernelizedSorting
    >>> rng = np.random.default_rng(0)
    >>> X = rng.normal(size=(30, 4))
    >>> order = rng.permutation(30)
    >>> Y = X[order] + 0.05 * rng.normal(size=(30, 4))
    >>> sorting = KernelizedSorting("p-smooth").fit(X @ X.T, Y @ Y.T)
    >>> bool((sorting.match_ == np.argsort(order)).all())  # source i found at target argsort(order)[i]
    True
    """

    def __init__(self, method: str = "p-smooth", *, p_values: list[float] | None = None, delta: int = 2,
                 max_iter: int = 100, step: float = 0.5, convex_iter: int = 300, mcca_dims: int = 20,
                 mcca_reg: float = 0.1):
        if method not in METHODS:
            raise InputError(f"method must be one of {METHODS}, got {method!r}")
        self.p_values = [round(0.05 * i, 6) for i in range(1, 21)] if p_values is None else list(p_values)
        if (not self.p_values or any(p is not None and p <= 0 for p in self.p_values)
                or min(delta, max_iter, convex_iter, mcca_dims) < 1 or not 0 < step <= 1):
            raise InputError("need p values > 0, delta, max_iter, convex_iter, mcca_dims >= 1 and 0 < step <= 1")
        self.method, self.delta, self.max_iter, self.step = method, delta, max_iter, step
        self.convex_iter, self.mcca_dims, self.mcca_reg = convex_iter, mcca_dims, mcca_reg

    def fit(self, K, L, seeds: dict[int, int] | None = None, engine=None) -> "KernelizedSorting":
        """Match the source objects to the target objects.

        Parameters
        ----------
        K : array-like of shape (n, n)
            The kernel among the source objects.
        L : array-like of shape (m, m)
            The kernel among the target objects.
        seeds : dict of int to int, optional
            Known source -> target indices (needed by s-u, s-z and mcca; used by convex).
        engine : optional
            A kcooc.engine back end that runs the p sweep in parallel.

        Returns
        -------
        KernelizedSorting
            self, with ``match_``, ``confidence_`` and ``objective_``.
        """
        K, L = np.asarray(K, np.float64), np.asarray(L, np.float64)
        if K.ndim != 2 or K.shape[0] != K.shape[1] or L.ndim != 2 or L.shape[0] != L.shape[1]:
            raise InputError(f"need square kernel matrices, got {K.shape} and {L.shape}")
        seeds = dict(seeds or {})
        if self.method in SEEDED and not seeds:
            raise InputError(f"method {self.method} needs seed alignments")
        self.p_ = None
        if self.method == "ks":
            trace = kernelized_sorting(K, L, step=self.step, max_iter=self.max_iter)
        elif self.method == "convex":
            trace = convex_sorting(K, L, seeds, max_iter=self.convex_iter)
        elif self.method == "mcca":
            trace = mcca(K, L, seeds, dims=self.mcca_dims, reg=self.mcca_reg, delta=self.delta)
        else:
            trace, self.p_, self.objective_per_p_ = p_smooth(
                K, L, self.p_values, seeds=seeds if SEEDED.get(self.method) else None,
                fill=SEEDED.get(self.method) or "zero", delta=self.delta, max_iter=self.max_iter, engine=engine)
        self.trace_ = trace
        self.match_, self.confidence_, self.objective_ = trace.match, trace.confidence, trace.objective
        return self
