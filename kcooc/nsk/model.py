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

    gamma : float, default 0.6
        Sparsity of the word-vector kernel, in (-1, 1).

    Attributes
    ----------
    evaluations : int
        Kernel values computed so far (the cost measure of Garg et al. 2018, Table 6).

    Raises
    ------
    InputError
        An unknown ``kind``, or ``lam``, ``max_length`` or ``gamma`` out of range.

    References
    ----------
    Sahil Garg, Greg Ver Steeg and Aram Galstyan, "Stochastic Learning of Nonstationary Kernels for
    Natural Language Modeling", AAAI 2018. Raymond J. Mooney and Razvan C. Bunescu, "Subsequence
    Kernels for Relation Extraction", NIPS 2005 (the path kernel). Dmitry Zelenko, Chinatsu Aone and
    Anthony Richardella, "Kernel Methods for Relation Extraction", JMLR 2003 (the tree kernel).

    Examples
    --------
    Three sentences as paths of (part-of-speech tag, word) tuples, read from JSON lines:

    >>> import os, tempfile
    >>> import numpy as np
    >>> from kcooc import ConvolutionKernel
    >>> from kcooc.nsk.structures import Labels, read_structures
    >>> lines = ['{"label": 1, "tuples": [["dt", "the"], ["nn", "market"], ["vbd", "fell"]]}',
    ...          '{"label": 1, "tuples": [["dt", "the"], ["nn", "index"], ["vbd", "fell"]]}',
    ...          '{"label": 0, "tuples": [["prp", "she"], ["vbd", "smiled"], ["rb", "softly"]]}']
    >>> folder = tempfile.TemporaryDirectory()
    >>> path = os.path.join(folder.name, "paths.jsonl")
    >>> with open(path, "w", encoding="utf-8") as f:
    ...     _ = f.write("\\n".join(lines))
    >>> X = read_structures(path, Labels(), Labels())
    >>> folder.cleanup()
    >>> K = ConvolutionKernel("path", lam=0.8, max_length=2)(X, np.arange(3), X, np.arange(3))
    >>> K.round(2)  # the two news paths share "the" and "fell"; the fiction path shares no tuple
    array([[1.  , 0.51, 0.  ],
           [0.51, 1.  , 0.  ],
           [0.  , 0.  , 1.  ]])
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
        """The same kernel with other edge-label weights.

        Parameters
        ----------
        sigma : ndarray
            One weight per edge-label id.

        Returns
        -------
        ConvolutionKernel
            A new kernel sharing the node vectors.
        """
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
        """The unnormalised K(., .; sigma) between X[rows] and Y[cols] (Garg et al. 2018, §5.1).

        Parameters
        ----------
        X, Y : Structures
        rows, cols : ndarray of int
            Indices into X and Y.

        Returns
        -------
        ndarray of shape (len(rows), len(cols))
        """
        rows, cols = np.asarray(rows, np.int64), np.asarray(cols, np.int64)
        self.evaluations += rows.size * cols.size
        return raw_gram(KINDS[self.kind], rows, *self._arrays(X), cols, *self._arrays(Y), self._sigma_for(X, Y),
                        self.vectors, self.gamma, self.lam, self.max_length)

    def diagonal(self, X: Structures) -> np.ndarray:
        """K(x, x) for every structure of X, computed once per set.

        Parameters
        ----------
        X : Structures

        Returns
        -------
        ndarray of shape (len(X),)
        """
        key = id(X)
        if key not in self._diagonals or self._diagonals[key][0] is not X:
            self.evaluations += len(X)
            values = raw_diagonal(KINDS[self.kind], np.arange(len(X)), *self._arrays(X), self._sigma_for(X),
                                  self.vectors, self.gamma, self.lam, self.max_length)
            self._diagonals[key] = (X, values)
        return self._diagonals[key][1]

    def __call__(self, X: Structures, rows: np.ndarray, Y: Structures, cols: np.ndarray) -> np.ndarray:
        """The normalised kernel K / sqrt(K(x,x) K(y,y)) between X[rows] and Y[cols] (0 when either is 0).

        Parameters
        ----------
        X, Y : Structures
            Paths or trees (kcooc.nsk.structures.read_structures), with label ids from shared tables.
        rows, cols : ndarray of int
            Indices into X and Y.

        Returns
        -------
        ndarray of shape (len(rows), len(cols))
            Values in [0, 1]; 1 on the diagonal of a set against itself.
        """
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
    if not all(isinstance(names, list) and all(isinstance(n, str) for n in names)
               for names in (edge_names, node_names)):
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
