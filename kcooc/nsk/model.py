"""The nonstationary convolution kernel as an object (parameters, normalisation, cached diagonals, counts),
the word vectors of node labels, and the saved model of ``kcooc nsk train``.

Reference: Sahil Garg, Greg Ver Steeg and Aram Galstyan, "Stochastic Learning of Nonstationary Kernels
for Natural Language Modeling", AAAI 2018.
"""

from __future__ import annotations

import dataclasses

import numpy as np

from .. import artifact
from ..artifact import check_arrays
from ..config import from_dict
from ..errors import InputError
from ..linalg import normalize_kernel, normalize_rows
from ..wordvectors import open_word_vectors
from .config import NskConfig
from .kernels import raw_diagonal, raw_gram
from .structures import STRUCTURE_ARRAYS, Labels, Structures

KINDS = {"path": 0, "tree": 1}
KIND = "nsk"


def node_vectors(names: list[str], path: str) -> np.ndarray:
    """Unit vectors of node labels from a word2vec .vec or fastText .bin file; zeros where there is none."""
    vectors, _ = open_word_vectors(path).lookup(names)
    return normalize_rows(np.asarray(vectors, np.float64))


class ConvolutionKernel:
    """K(.,.; sigma) of Garg 2018, §5.1 on paths or trees, normalised; ``evaluations`` counts kernel values computed.

    Parameters
    ----------
    kind : {"path", "tree"}
        Mooney & Bunescu's subsequence kernel on tuple sequences, or Zelenko et al.'s tree kernel.
    lam : float, default 0.8
        The gap / span decay lambda in (0, 1].
    max_length : int, default 4
        path: the longest common subsequence counted.
    sigma : ndarray, optional
        One weight per edge-label id (1 = attend, 0 = skip the label's tuples); labels beyond its
        length weigh 1.
    vectors : ndarray, optional
        (node id x d, unit rows; all-zero rows = no vector, compared by exact match): switches k_n to
        the word-vector kernel exp(w'w - 1)((w'w - gamma)/(1 - gamma))_+ with sparsity ``gamma``.

    Calling it with (X, rows, Y, cols) returns the normalised kernel between X[rows] and Y[cols].
    """

    def __init__(self, kind: str, lam: float = 0.8, max_length: int = 4, sigma: np.ndarray | None = None,
                 vectors: np.ndarray | None = None, gamma: float = 0.6):
        if kind not in KINDS:
            raise InputError(f"kind must be path or tree, got {kind!r}")
        if not 0 < lam <= 1 or max_length < 1 or not -1 < gamma < 1:
            raise InputError("need 0 < lambda <= 1, max_length >= 1, -1 < gamma < 1")
        self.kind, self.lam, self.max_length, self.gamma = kind, float(lam), int(max_length), float(gamma)
        self.sigma = np.ones(0) if sigma is None else np.asarray(sigma, np.float64)
        if vectors is None:
            self.vectors = np.zeros((0, 1))
        else:  # a last column flags the labels that have a vector
            vectors = np.asarray(vectors, np.float64)
            self.vectors = np.ascontiguousarray(np.c_[vectors, np.abs(vectors).sum(axis=1) > 0])
        self.evaluations = 0
        self._diagonals: dict = {}

    def with_sigma(self, sigma: np.ndarray) -> "ConvolutionKernel":
        other = ConvolutionKernel(self.kind, self.lam, self.max_length, sigma, None, self.gamma)
        other.vectors = self.vectors
        return other

    def _sigma_for(self, *sets: Structures) -> np.ndarray:
        n_edges = max([int(s.edges.max()) + 1 for s in sets if s.edges.size] + [self.sigma.size, 1])
        return np.r_[self.sigma, np.ones(n_edges - self.sigma.size)]

    @staticmethod
    def _arrays(s: Structures) -> tuple:
        return s.edges, s.nodes, s.ptr, s.child_ptr, s.children

    def raw(self, X: Structures, rows: np.ndarray, Y: Structures, cols: np.ndarray) -> np.ndarray:
        rows, cols = np.asarray(rows, np.int64), np.asarray(cols, np.int64)
        self.evaluations += rows.size * cols.size
        return raw_gram(KINDS[self.kind], rows, *self._arrays(X), cols, *self._arrays(Y), self._sigma_for(X, Y),
                        self.vectors, self.gamma, self.lam, self.max_length)

    def diagonal(self, X: Structures) -> np.ndarray:
        """K(x, x) for every structure of X (computed once per set)."""
        key = id(X)
        if key not in self._diagonals or self._diagonals[key][0] is not X:
            self.evaluations += len(X)
            values = raw_diagonal(KINDS[self.kind], np.arange(len(X)), *self._arrays(X), self._sigma_for(X),
                                  self.vectors, self.gamma, self.lam, self.max_length)
            self._diagonals[key] = (X, values)
        return self._diagonals[key][1]

    def __call__(self, X: Structures, rows: np.ndarray, Y: Structures, cols: np.ndarray) -> np.ndarray:
        """Normalised K between X[rows] and Y[cols]: K / sqrt(K(x,x) K(y,y)), 0 when either is 0."""
        rows, cols = np.asarray(rows, np.int64), np.asarray(cols, np.int64)
        return normalize_kernel(self.raw(X, rows, Y, cols), self.diagonal(X)[rows], self.diagonal(Y)[cols])


@dataclasses.dataclass
class SavedModel:
    """What ``nsk train`` saves: the training structures, the learned sigma and the label tables."""

    train: Structures
    sigma: np.ndarray
    edges: Labels
    nodes: Labels

    def save(self, path: str, **header) -> None:
        """Write an ``nsk`` artifact: sigma and the structures' arrays, the label tables and ``header``
        (``kcooc nsk train`` adds the config, the learned and zeroed labels and the data hash)."""
        artifact.save(path, KIND, {"sigma": self.sigma, **self.train.arrays()},
                      {**header, "structure_kind": self.train.kind, "edge_labels": self.edges.names,
                       "node_labels": self.nodes.names})


def model_from_artifact(header: dict, arrays: dict[str, np.ndarray]) -> SavedModel:
    """An ``nsk`` artifact checked against the kind's schema: the structures' arrays (Structures.from_arrays),
    sigma (one finite weight >= 0 per edge label), label tables of strings and a config mapping."""
    edge_names, node_names = header["edge_labels"], header["node_labels"]
    if not all(isinstance(names, list) and all(isinstance(n, str) for n in names) for names in (edge_names, node_names)):
        raise InputError("edge_labels and node_labels must be lists of strings")
    if not isinstance(header["config"], dict):
        raise InputError("the header has no config")
    from_dict(NskConfig, header["config"], prefix="config.")
    check_arrays({"sigma": arrays["sigma"]}, {"sigma": ("f", (len(edge_names),))})
    unknown = sorted(set(arrays) - {"sigma", *STRUCTURE_ARRAYS})
    if unknown:
        raise InputError(f"unexpected array {unknown[0]!r}")
    if (arrays["sigma"] < 0).any():
        raise InputError("sigma holds negative weights")
    train = Structures.from_arrays(header["structure_kind"], arrays, len(edge_names), len(node_names))
    if len(train) == 0:
        raise InputError("no training structures")
    return SavedModel(train, arrays["sigma"], Labels(edge_names), Labels(node_names))


def load_nsk(path: str) -> tuple[dict, SavedModel]:
    """The header and the model of an ``nsk`` artifact, checked against its schema (:func:`model_from_artifact`)."""
    return artifact.load(path, KIND, model_from_artifact)
