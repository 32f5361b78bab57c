"""Linear correspondence analysis (Niitsuma, Def. 3, Eq. 33-40) of a word x context table by the
delayed sparse randomized SVD (svd.py), or its semi-supervised form SCA (Def. 5, sca.py), and
word-pair similarity evaluation."""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp
from scipy.stats import spearmanr

from ..artifact import check_arrays
from ..errors import InputError
from .sca import sca_operator
from .svd import CAOperator, randomized_svd, residuals


class CorrespondenceAnalysis:
    """``fit(N)`` -> ``row_vectors_`` = U S^weight (the rows of the SVD of Xi_hat, Eq. 39).

    ``weight`` is the singular-value weighting: 1 gives CA's principal coordinates up to the
    row scaling D(r)^-1/2 (which cosine similarity ignores), 0 the standard coordinates (the default:
    best of 0, 0.5, 1 on the offline text8 stand-in; 0.5 is the usual compromise for word vectors,
    Levy, Goldberg & Dagan, 2015).
    """

    def __init__(self, dims: int = 300, weight: float = 0.0, oversample: int = 10, power_iterations: int = 4,
                 seed: int = 0):
        self.dims, self.weight, self.oversample = dims, weight, oversample
        self.power_iterations, self.seed = power_iterations, seed

    def fit(self, N: sp.spmatrix, supervision: sp.spmatrix | None = None) -> "CorrespondenceAnalysis":
        """LCA of N; with ``supervision`` (S of sca.py) the semi-supervised SCA of Def. 5."""
        op = CAOperator(N) if supervision is None else sca_operator(N, supervision)
        k = min(self.dims, min(op.shape) - 1)
        U, s, Vt = randomized_svd(op, k, oversample=self.oversample, power_iterations=self.power_iterations,
                                  seed=self.seed)
        self.singular_values_ = s
        self.row_vectors_ = (U * s**self.weight).astype(np.float32)
        self.total_inertia_ = op.total_inertia()
        self.residuals_ = residuals(op, U[:, :5], s[:5], Vt[:5])
        return self


def unit_rows(V: np.ndarray) -> np.ndarray:
    norms = np.linalg.norm(V, axis=1, keepdims=True)
    return V / np.where(norms > 0, norms, 1)


def word_similarity(words: list[str], vectors: np.ndarray, pairs: list[tuple[str, str, float]]) -> dict:
    """Spearman's rho between cosine similarities and human scores over the pairs with both words
    known, and the share of pairs left out (as gensim's evaluate_word_pairs)."""
    index = {w: i for i, w in enumerate(words)}
    known = [(index[a], index[b], score) for a, b, score in pairs if a in index and b in index]
    result = {"pairs": len(pairs), "oov_ratio": 1 - len(known) / len(pairs) if pairs else 0.0, "spearman": None}
    if len(known) >= 3:
        V = unit_rows(np.asarray(vectors, dtype=np.float64))
        left, right, human = (np.array(column) for column in zip(*known))
        cosine = np.einsum("ij,ij->i", V[left], V[right])
        result["spearman"] = float(spearmanr(cosine, human).statistic)
    return result


def vectors_from_artifact(header: dict, arrays: dict[str, np.ndarray]) -> tuple[list[str], np.ndarray]:
    """(words, vectors) of a ``ca-vectors`` artifact, checked against the kind's schema: vocab (n words),
    counts (n integers), vectors (n x dims floats), singular_values (dims floats)."""
    if not isinstance(header.get("config"), dict):
        raise InputError("the header has no config")
    check_arrays(arrays, {"vocab": ("U", ("n",)), "counts": ("iu", ("n",)), "vectors": ("f", ("n", "dims")),
                          "singular_values": ("f", ("dims",))})
    return arrays["vocab"].tolist(), arrays["vectors"]
