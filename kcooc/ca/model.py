"""Word vectors from the truncated SVD of a word x context table: linear correspondence analysis
(Niitsuma 2022, Def. 3, Eq. 33-40) of the table or of its elementwise power, its semi-supervised form SCA
(Niitsuma 2022, Def. 5, sca.py), and the PPMI-SVD reference (ppmi.py); word-pair similarity evaluation.

References: Hirotaka Niitsuma and Minho Lee, "Word2Vec is a special case of Kernel Correspondence Analysis
and Kernels for Natural Language Processing", 2022; Omer Levy, Yoav Goldberg and Ido Dagan, "Improving
Distributional Similarity with Lessons Learned from Word Embeddings", TACL 2015.
"""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp
from scipy.stats import spearmanr

from .. import artifact
from ..artifact import check_arrays
from ..config import from_dict
from ..errors import InputError
from ..linalg import normalize_rows
from ..wordvectors import read_word2vec_text
from .config import CaConfig
from .ppmi import PPMIOperator
from .sca import sca_operator
from .svd import CAOperator, DelayedOperator, randomized_svd

VECTORS = ("row", "row+column")
KIND = "ca-vectors"


def elementwise_power(N: sp.spmatrix, power: float) -> sp.csr_matrix:
    """N^power entry by entry: only the non-zeros change, so the table stays as sparse as it was."""
    N = sp.csr_matrix(N, dtype=np.float64, copy=True)
    N.data **= power
    return N


class SpectralWordVectors:
    """``vectors_`` from the top ``dims`` singular triples of an operator: U S^weight (``vectors="row"``) or
    (U + V) S^weight (``"row+column"``: word + context vectors, Levy, Goldberg & Dagan 2015, §3.3; the table
    must be square with rows and columns indexed by the same words).

    ``weight`` 0 gives the singular vectors (CA's standard coordinates up to the row scaling D(r)^-1/2, which
    cosine similarity ignores), 1 the principal coordinates; 0.5 is the usual compromise (Levy et al. 2015).
    ``tol``: stop the power iterations once every relative residual is below it (at most ``power_iterations``).
    """

    def __init__(self, dims: int = 300, weight: float = 0.0, vectors: str = "row", oversample: int = 10,
                 power_iterations: int = 4, tol: float | None = None, seed: int = 0):
        if vectors not in VECTORS:
            raise InputError(f"vectors must be one of {VECTORS}, got {vectors!r}")
        self.dims, self.weight, self.vectors, self.oversample = dims, weight, vectors, oversample
        self.power_iterations, self.tol, self.seed = power_iterations, tol, seed

    def decompose(self, op: DelayedOperator, progress=None) -> "SpectralWordVectors":
        if self.vectors == "row+column" and op.shape[0] != op.shape[1]:
            raise InputError(f"row+column vectors need a square table, got {op.shape[0]} x {op.shape[1]}")
        k = min(self.dims, min(op.shape) - 1)
        U, s, Vt, self.relative_residuals_, self.power_iterations_ = randomized_svd(
            op, k, oversample=self.oversample, power_iterations=self.power_iterations, tol=self.tol, seed=self.seed,
            progress=progress)
        vectors = U if self.vectors == "row" else U + Vt.T
        self.singular_values_ = s
        self.vectors_ = (vectors * s**self.weight).astype(np.float32)
        self.total_inertia_ = op.total_inertia()
        return self

    def save(self, path: str, words: list[str], counts: np.ndarray, **header) -> None:
        """Write a ``ca-vectors`` artifact: the vocabulary ``words`` with their corpus ``counts``, the vectors,
        singular values and relative residuals, and ``header`` (``kcooc ca embed`` adds the config, the data
        hash, the table's non-zeros and the convergence report) with the total inertia."""
        arrays = {"vocab": np.array(words), "counts": counts, "vectors": self.vectors_,
                  "singular_values": self.singular_values_, "relative_residuals": self.relative_residuals_}
        artifact.save(path, KIND, arrays, {**header, "total_inertia": self.total_inertia_})


class CorrespondenceAnalysis(SpectralWordVectors):
    """LCA of N^power (``power`` in (0, 1]; 1 is the paper's CA, 0.5 and 0.25 are ROOT-CA and ROOTROOT-CA of
    Qi, Bagheri, Hessen & van der Heijden 2024): margins are those of N^power, and the dense CA matrix is never
    formed (svd.py)."""

    def __init__(self, dims: int = 300, weight: float = 0.0, power: float = 1.0, **options):
        if not 0 < power <= 1:
            raise InputError(f"power must be in (0, 1], got {power}")
        super().__init__(dims, weight, **options)
        self.power = power

    def fit(self, N: sp.spmatrix, supervision: sp.spmatrix | None = None, progress=None) -> "CorrespondenceAnalysis":
        """Decompose the word x context table ``N`` (scipy sparse, counts).

        Parameters
        ----------
        N : sparse matrix of shape (words, contexts)
            The contingency table (kcooc.ca.counting.contingency_table).
        supervision : sparse matrix, optional
            S of sca.py: the semi-supervised SCA of N^power (Niitsuma 2022, Def. 5) instead of LCA.
        progress : callable, optional
            ``progress(iteration, worst relative residual)`` after the sketch and each power iteration.

        Returns
        -------
        self, with ``vectors_`` (words x dims, float32), ``singular_values_``, ``relative_residuals_``,
        ``power_iterations_`` and ``total_inertia_``.
        """
        N = elementwise_power(N, self.power) if self.power != 1 else N
        return self.decompose(CAOperator(N) if supervision is None else sca_operator(N, supervision), progress)


class PPMISVD(SpectralWordVectors):
    """SVD of the PPMI matrix with context-distribution smoothing (Levy et al. 2015) -- a reference, not CA."""

    def __init__(self, dims: int = 300, weight: float = 0.0, smoothing: float = 0.75, **options):
        super().__init__(dims, weight, **options)
        self.smoothing = smoothing

    def fit(self, N: sp.spmatrix, progress=None) -> "PPMISVD":
        return self.decompose(PPMIOperator(N, self.smoothing), progress)


def word_similarity(words: list[str], vectors: np.ndarray, pairs: list[tuple[str, str, float]]) -> dict:
    """Spearman's rho between cosine similarities and human scores over the pairs with both words
    known, and the share of pairs left out (as gensim's evaluate_word_pairs)."""
    index = {w: i for i, w in enumerate(words)}
    known = [(index[a], index[b], score) for a, b, score in pairs if a in index and b in index]
    result = {"pairs": len(pairs), "oov_ratio": 1 - len(known) / len(pairs) if pairs else 0.0, "spearman": None}
    if len(known) >= 3:
        V = normalize_rows(np.asarray(vectors, dtype=np.float64))
        left, right, human = (np.array(column) for column in zip(*known))
        cosine = np.einsum("ij,ij->i", V[left], V[right])
        result["spearman"] = float(spearmanr(cosine, human).statistic)
    return result


def vectors_from_artifact(header: dict, arrays: dict[str, np.ndarray]) -> tuple[list[str], np.ndarray]:
    """(words, vectors) of a ``ca-vectors`` artifact, checked against the kind's schema: vocab (n words),
    counts (n integers), vectors (n x dims floats), singular_values (dims floats) and, from runs that
    report convergence, relative_residuals (dims floats)."""
    if not isinstance(header.get("config"), dict):
        raise InputError("the header has no config")
    from_dict(CaConfig, header["config"], prefix="config.")
    check_arrays(arrays, {"vocab": ("U", ("n",)), "counts": ("iu", ("n",)), "vectors": ("f", ("n", "dims")),
                          "singular_values": ("f", ("dims",)), "relative_residuals": ("f", ("dims",))},
                 optional=("relative_residuals",))
    return arrays["vocab"].tolist(), arrays["vectors"]


def load_vectors(path: str) -> tuple[list[str], np.ndarray]:
    """(words, vectors) of a ``ca-vectors`` artifact (``.npz``) or of a word2vec text file (told apart by content)."""
    if path != "-" and (path.endswith(".npz") or artifact.is_array_file(path)):
        return artifact.load(path, KIND, vectors_from_artifact)[1]
    return read_word2vec_text(path)
