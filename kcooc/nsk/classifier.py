"""k-NN classification of paths and trees with the nonstationary convolution kernel, shaped like scikit-learn.

Reference: Sahil Garg, Greg Ver Steeg and Aram Galstyan, "Stochastic Learning of Nonstationary Kernels
for Natural Language Modeling", AAAI 2018: the kernel K(.,.; sigma) of §5.1 (model.py, kernels.py),
Loss Function 1 and Algorithm 1 (learn.py), k-NN by random-subspace hashing (§7, hashing.py).
"""

from __future__ import annotations

from typing import Callable

import numpy as np

from ..errors import InputError, check_fitted
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
        How neighbours are found: exactly, by the paper's random-subspace k-NN hashing (§7) or by
        kernel LSH.
    bits, reference_size, subset_size : int, optional
        Tune the hashing (hash bits, reference structures, subset size; defaults chosen from the
        training size).
    learn : bool, default True
        Learn binary sigma for the ``label_share`` most frequent edge labels (Garg et al. 2018,
        Algorithm 1); False keeps the kernel's sigma (the stationary baseline when it is all ones).
    label_share : float, default 0.5
        The share of edge labels, most frequent first, whose sigma is learned.
    beta, alpha, k_graph, iterations : int, default 25, 10, 4, 1
        Algorithm 1's inducing structures, trials, neighbours in its k-NN graph and sweeps.
    seed : int, default 0
        Seed of the learning and the hashing.

    Attributes
    ----------
    kernel_ : ConvolutionKernel
        The kernel with the learned sigma.
    sigma_ : ndarray
        The weight of every edge label (0: its tuples are skipped).
    learned_labels_ : list of int
        The edge-label ids whose sigma was learned.
    losses_ : list
        Per learned label, the losses with sigma 0 and 1 behind the choice.
    evaluations_ : int
        Kernel values computed while learning.
    train_ : Structures
        The training structures: the neighbours of the vote.

    Raises
    ------
    InputError
        An unknown ``hashing`` or a count or share out of range.

    References
    ----------
    Sahil Garg, Greg Ver Steeg and Aram Galstyan, "Stochastic Learning of Nonstationary Kernels for
    Natural Language Modeling", AAAI 2018.

    Examples
    --------
    News and fiction sentences as paths of (part-of-speech tag, word) tuples:

    >>> import json, os, tempfile
    >>> import numpy as np
    >>> from kcooc import ConvolutionKernel, NSKClassifier
    >>> from kcooc.nsk.structures import Labels, read_structures
    >>> news = [[["dt", "the"], ["nn", "market"], ["vbd", "fell"]], [["nn", "stocks"], ["vbd", "rose"]],
    ...         [["dt", "the"], ["nn", "bank"], ["vbd", "said"]], [["nn", "prices"], ["vbd", "fell"]]]
    >>> fiction = [[["prp", "she"], ["vbd", "smiled"], ["rb", "softly"]], [["prp", "he"], ["vbd", "whispered"]],
    ...            [["prp", "she"], ["vbd", "laughed"], ["rb", "again"]], [["prp", "he"], ["vbd", "smiled"]]]
    >>> records = [(1, path) for path in news * 3] + [(0, path) for path in fiction * 3]
    >>> records += [(1, [["dt", "the"], ["nn", "index"], ["vbd", "fell"]]),
    ...             (0, [["prp", "she"], ["vbd", "whispered"], ["rb", "softly"]])]
    >>> folder = tempfile.TemporaryDirectory()
    >>> jsonl = os.path.join(folder.name, "paths.jsonl")
    >>> with open(jsonl, "w", encoding="utf-8") as f:
    ...     f.writelines(json.dumps({"label": label, "tuples": path}) + "\\n" for label, path in records)
    >>> structures = read_structures(jsonl, Labels(), Labels())
    >>> folder.cleanup()
    >>> train, test = structures.subset(np.arange(24)), structures.subset([24, 25])
    >>> kernel = ConvolutionKernel("path", lam=0.8, max_length=2)
    >>> classifier = NSKClassifier(kernel, k=3, hashing="exact", beta=4, alpha=2).fit(train)
    >>> classifier.predict(test).tolist()
    [1, 0]
    >>> len(classifier.sigma_) == len(set(train.edges.tolist()))
    True
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
        """The edge ids whose sigma ``fit`` learns: the ``label_share`` most frequent in ``X``.

        Parameters
        ----------
        X : Structures
        n_edges : int, optional
            How many edge labels there are (default: the largest id in ``X`` + 1).

        Returns
        -------
        list of int
            Most frequent first; empty when ``learn`` is False.
        """
        n_edges = int(X.edges.max()) + 1 if n_edges is None and X.edges.size else n_edges or 0
        frequency = X.edge_frequencies(n_edges)
        ranked = [int(e) for e in np.argsort(-frequency, kind="stable") if frequency[e] > 0]
        return ranked[: max(1, int(round(self.label_share * len(ranked))))] if self.learn else []

    def fit(self, X: Structures, n_edges: int | None = None,
            on_label: Callable[[int, float, float, float], None] | None = None) -> "NSKClassifier":
        """Learn sigma on the labelled structures ``X`` and keep them as the neighbours.

        Parameters
        ----------
        X : Structures
            Labelled paths or trees (labels 1 and 0, both present).
        n_edges : int, optional
            How many edge labels there are (default: the largest id in ``X`` + 1).
        on_label : callable, optional
            ``on_label(edge id, loss with sigma 0, loss with sigma 1, chosen sigma)`` after each decision.

        Returns
        -------
        NSKClassifier
            self, fitted.
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
            self.sigma_ = np.r_[self.kernel.sigma, np.ones(n_edges - self.kernel.sigma.size)]
            self.losses_, self.evaluations_ = [], 0
            self.kernel_ = self.kernel
        self.learned_labels_, self.train_ = to_learn, X
        return self

    def vote(self, X: Structures) -> tuple[np.ndarray, np.ndarray]:
        """The k nearest training structures' vote on every structure of ``X``.

        Parameters
        ----------
        X : Structures
            Paths or trees with label ids from the training set's tables.

        Returns
        -------
        labels : ndarray of int
            The majority label.
        share : ndarray of float
            The share of positive neighbours.
        """
        check_fitted(self, "kernel_")
        index = NeighbourIndex(self.kernel_, self.train_, seed=self.seed, **self.index_options)
        neighbours, _ = index.query(X, self.k)
        return knn_predict(self.train_.labels[np.maximum(neighbours, 0)], neighbours)

    def predict(self, X: Structures) -> np.ndarray:
        """The predicted label (1 or 0) of every structure of ``X``.

        Parameters
        ----------
        X : Structures

        Returns
        -------
        ndarray of int, shape (len(X),)
        """
        return self.vote(X)[0]

    def score(self, X: Structures) -> float:
        """Accuracy on labelled structures.

        Parameters
        ----------
        X : Structures
            Structures with labels 1 or 0.

        Returns
        -------
        float
            The share predicted right.
        """
        return float(np.mean(self.predict(X) == X.labels))
