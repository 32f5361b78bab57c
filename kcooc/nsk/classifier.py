"""k-NN classification of paths and trees with the nonstationary convolution kernel, shaped like scikit-learn.

Reference: Sahil Garg, Greg Ver Steeg and Aram Galstyan, "Stochastic Learning of Nonstationary Kernels
for Natural Language Modeling", AAAI 2018: the kernel K(.,.; sigma) of §5.1 (model.py, kernels.py),
Loss Function 1 and Algorithm 1 (learn.py), k-NN by random-subspace hashing (§7, hashing.py).
"""

from __future__ import annotations

from typing import Callable

import numpy as np

from ..errors import InputError
from .hashing import METHODS, NeighbourIndex, knn_predict
from .learn import learn_sigma
from .model import ConvolutionKernel
from .structures import Structures


class NSKClassifier:
    """Majority vote of the k nearest training structures under K(.,.; sigma), sigma learned by Algorithm 1.

    Parameters
    ----------
    kernel : ConvolutionKernel, optional
        The kernel (default: the path kernel with lambda 0.8, subsequences up to 4). Its sigma is the
        start of the learning, and is kept as it is with ``learn=False``.
    k : int, default 8
        Voting neighbours.
    hashing : {"exact", "random-knn", "klsh"}, default "random-knn"
        How neighbours are found; ``bits``, ``reference_size`` and ``subset_size`` tune the hashing.
    learn : bool, default True
        Learn binary sigma for the ``label_share`` most frequent edge labels (Garg et al. 2018,
        Algorithm 1 with ``beta`` inducing structures, ``alpha`` trials, a ``k_graph``-NN graph and
        ``iterations`` sweeps).
    seed : int, default 0

    Attributes
    ----------
    kernel_ : ConvolutionKernel
        The kernel with the learned sigma (``sigma_``); ``learned_labels_``, ``losses_`` and
        ``evaluations_`` report the learning.
    """

    def __init__(self, kernel: ConvolutionKernel | None = None, *, k: int = 8, hashing: str = "random-knn",
                 bits: int | None = None, reference_size: int | None = None, subset_size: int | None = None,
                 learn: bool = True, label_share: float = 0.5, beta: int = 25, alpha: int = 10, k_graph: int = 4,
                 iterations: int = 1, seed: int = 0):
        if hashing not in METHODS:
            raise InputError(f"hashing must be one of {METHODS}, got {hashing!r}")
        if k < 1 or not 0 < label_share <= 1 or min(beta, alpha, k_graph, iterations) < 1:
            raise InputError("need k >= 1, 0 < label_share <= 1 and beta, alpha, k_graph, iterations >= 1")
        self.kernel = kernel if kernel is not None else ConvolutionKernel("path")
        self.k, self.learn, self.seed = k, learn, seed
        self.index_options = {"method": hashing, "bits": bits, "reference_size": reference_size,
                              "subset_size": subset_size}
        self.learn_options = {"beta": beta, "alpha": alpha, "k_graph": k_graph, "iterations": iterations}
        self.label_share = label_share

    def labels_to_learn(self, X: Structures, n_edges: int | None = None) -> list[int]:
        """The edge ids whose sigma ``fit`` learns: the ``label_share`` most frequent in ``X``."""
        n_edges = int(X.edges.max()) + 1 if n_edges is None and X.edges.size else n_edges or 0
        frequency = X.edge_frequencies(n_edges)
        ranked = [int(e) for e in np.argsort(-frequency, kind="stable") if frequency[e] > 0]
        return ranked[: max(1, int(round(self.label_share * len(ranked))))] if self.learn else []

    def fit(self, X: Structures, n_edges: int | None = None,
            on_label: Callable[[int, float, float, float], None] | None = None) -> "NSKClassifier":
        """Learn sigma on the labelled structures ``X`` (labels 1/0) and keep them as the neighbours.

        ``n_edges``: how many edge labels there are (default: the largest id in ``X`` + 1);
        ``on_label(edge id, loss with sigma 0, loss with sigma 1, chosen sigma)`` follows each decision.
        """
        if len(np.unique(X.labels)) < 2 or (X.labels < 0).any():
            raise InputError("the training structures need both labels (1 and 0), and no unknown label")
        n_edges = int(X.edges.max()) + 1 if n_edges is None and X.edges.size else n_edges or 0
        to_learn = self.labels_to_learn(X, n_edges)
        if to_learn:
            report = learn_sigma(self.kernel, X, to_learn, self.learn_options["beta"], self.learn_options["alpha"],
                                 self.learn_options["k_graph"], self.learn_options["iterations"], self.index_options,
                                 self.seed, on_label)
            self.sigma_, self.losses_, self.evaluations_ = report.sigma, report.losses, report.evaluations
            self.kernel_ = self.kernel.with_sigma(self.sigma_)
        else:
            self.sigma_, self.losses_, self.evaluations_ = np.r_[self.kernel.sigma, np.ones(n_edges - self.kernel.sigma.size)], [], 0
            self.kernel_ = self.kernel
        self.learned_labels_, self.train_ = to_learn, X
        return self

    def vote(self, X: Structures) -> tuple[np.ndarray, np.ndarray]:
        """(predicted labels, share of positive neighbours) of every structure of ``X``."""
        index = NeighbourIndex(self.kernel_, self.train_, seed=self.seed, **self.index_options)
        neighbours, _ = index.query(X, self.k)
        return knn_predict(self.train_.labels[np.maximum(neighbours, 0)], neighbours)

    def predict(self, X: Structures) -> np.ndarray:
        return self.vote(X)[0]

    def score(self, X: Structures) -> float:
        """Accuracy on the labelled structures ``X``."""
        return float(np.mean(self.predict(X) == X.labels))
