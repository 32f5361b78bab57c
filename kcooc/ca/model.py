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
from ..errors import InputError, check_fitted
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
        """The word vectors of the top ``dims`` singular triples of ``op`` (what ``fit`` calls).

        Parameters
        ----------
        op : DelayedOperator
            The matrix to decompose, applied by products only (kcooc.ca.svd).
        progress : callable, optional
            ``progress(iteration, worst relative residual)`` after the sketch and each power iteration.

        Returns
        -------
        self
            With ``vectors_``, ``singular_values_``, ``relative_residuals_``, ``power_iterations_``
            and ``total_inertia_``.
        """
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
        hash, the table's non-zeros and the convergence report) with the total inertia.

        Parameters
        ----------
        path : str
            The ``.npz`` file to write (atomically).
        words : list of str
            The word of every row of ``vectors_``.
        counts : ndarray of int
            Each word's corpus count.
        **header
            Further JSON-serialisable header entries.
        """
        check_fitted(self, "vectors_")
        arrays = {"vocab": np.array(words), "counts": counts, "vectors": self.vectors_,
                  "singular_values": self.singular_values_, "relative_residuals": self.relative_residuals_}
        artifact.save(path, KIND, arrays, {**header, "total_inertia": self.total_inertia_})


class CorrespondenceAnalysis(SpectralWordVectors):
    """Word vectors by linear correspondence analysis of a word x context table raised to a power.

    CA of N^power (Niitsuma 2022, Def. 3, Eq. 33-40): ``power`` 1 is the paper's CA, 0.5 and 0.25
    are ROOT-CA and ROOTROOT-CA (Qi, Bagheri, Hessen & van der Heijden 2024). The margins are those
    of N^power, and the dense CA matrix is never formed: a randomized SVD applies it by sparse
    products (kcooc.ca.svd). With ``supervision``, :meth:`fit` computes the semi-supervised SCA
    instead (Niitsuma 2022, Def. 5).

    Parameters
    ----------
    dims : int, default 300
        Vector dimensions (at most one less than the table's smaller side).
    weight : float, default 0.0
        Vectors are U S^weight: 0 the singular vectors (CA's standard coordinates up to the row
        scaling, which cosine similarity ignores), 1 the principal coordinates.
    power : float, default 1.0
        The elementwise power of the counts, in (0, 1].
    vectors : {"row", "row+column"}, default "row"
        U S^weight, or (U + V) S^weight for a square word x word table (word + context vectors).
    oversample : int, default 10
        Extra columns of the randomized sketch.
    power_iterations : int, default 4
        The most power iterations of the randomized SVD.
    tol : float, optional
        Stop iterating once every relative residual ||M v - s u|| / s is below it.
    seed : int, default 0
        Seed of the random sketch.

    Attributes
    ----------
    vectors_ : ndarray of shape (words, dims), float32
        One vector per row of the table.
    singular_values_ : ndarray of shape (dims,)
    relative_residuals_ : ndarray of shape (dims,)
        ||M v - s u|| / s of each singular triple: how far it is from converged.
    power_iterations_ : int
        The power iterations done.
    total_inertia_ : float
        The sum of all squared singular values: chi^2 / n of the table, or with ``supervision`` the
        squared norm of the SCA matrix (computed exactly, kcooc.ca.sca.SCAOperator).

    Raises
    ------
    InputError
        ``power`` outside (0, 1] or an unknown ``vectors``.

    References
    ----------
    Hirotaka Niitsuma and Minho Lee, "Word2Vec is a special case of Kernel Correspondence Analysis
    and Kernels for Natural Language Processing", 2022. Omer Levy, Yoav Goldberg and Ido Dagan,
    "Improving Distributional Similarity with Lessons Learned from Word Embeddings", TACL 2015
    (the word + context vectors).

    Examples
    --------
    Forty words in two topics; a word co-occurs mostly with words of its own topic:

    >>> import numpy as np
    >>> import scipy.sparse as sp
    >>> from kcooc import CorrespondenceAnalysis
    >>> topic = np.repeat([0, 1], 20)
    >>> rate = np.where(topic[:, None] == topic[None, :], 5.0, 0.5)
    >>> N = sp.csr_matrix(np.random.default_rng(0).poisson(rate))
    >>> ca = CorrespondenceAnalysis(dims=2, power=0.5, seed=0).fit(N)
    >>> ca.vectors_.shape
    (40, 2)
    >>> V = ca.vectors_ / np.linalg.norm(ca.vectors_, axis=1, keepdims=True)
    >>> bool((V[:20] @ V[:20].T).mean() > (V[:20] @ V[20:].T).mean())  # same topic, closer
    True
    """

    def __init__(self, dims: int = 300, weight: float = 0.0, power: float = 1.0, **options):
        if not 0 < power <= 1:
            raise InputError(f"power must be in (0, 1], got {power}")
        super().__init__(dims, weight, **options)
        self.power = power

    def fit(self, N: sp.spmatrix, supervision: sp.spmatrix | None = None, progress=None) -> "CorrespondenceAnalysis":
        """Decompose the word x context table ``N``.

        Parameters
        ----------
        N : sparse matrix of shape (words, contexts)
            The contingency table of counts (kcooc.ca.counting.contingency_table).
        supervision : sparse matrix, optional
            S of kcooc.ca.sca: the semi-supervised SCA of N^power (Niitsuma 2022, Def. 5) instead of LCA.
        progress : callable, optional
            ``progress(iteration, worst relative residual)`` after the sketch and each power iteration.

        Returns
        -------
        CorrespondenceAnalysis
            self, with ``vectors_`` (words x dims, float32), ``singular_values_``,
            ``relative_residuals_``, ``power_iterations_`` and ``total_inertia_``.
        """
        N = elementwise_power(N, self.power) if self.power != 1 else N
        return self.decompose(CAOperator(N) if supervision is None else sca_operator(N, supervision), progress)


class PPMISVD(SpectralWordVectors):
    """Word vectors from the SVD of the PPMI matrix with context-distribution smoothing: a reference, not CA.

    PPMI(w, c) = max(0, log P(w, c) / (P(w) P_alpha(c))) with the context distribution raised to
    ``smoothing`` (Levy, Goldberg & Dagan 2015, §3.2), decomposed by the same randomized SVD as
    :class:`CorrespondenceAnalysis` without forming the dense matrix.

    Parameters
    ----------
    dims : int, default 300
        Vector dimensions.
    weight : float, default 0.0
        Vectors are U S^weight (Levy et al. 2015, §3.3: 0 or 0.5 work best).
    smoothing : float, default 0.75
        The power alpha of the context distribution.
    **options
        ``vectors``, ``oversample``, ``power_iterations``, ``tol`` and ``seed``, as
        :class:`CorrespondenceAnalysis`.

    Attributes
    ----------
    vectors_ : ndarray of shape (words, dims), float32
    singular_values_ : ndarray of shape (dims,)
    relative_residuals_ : ndarray of shape (dims,)
    power_iterations_ : int
    total_inertia_ : float
        The squared Frobenius norm of the PPMI matrix.

    References
    ----------
    Omer Levy, Yoav Goldberg and Ido Dagan, "Improving Distributional Similarity with Lessons
    Learned from Word Embeddings", TACL 2015.

    Examples
    --------
    >>> import numpy as np
    >>> import scipy.sparse as sp
    >>> from kcooc import PPMISVD
    >>> topic = np.repeat([0, 1], 20)
    >>> rate = np.where(topic[:, None] == topic[None, :], 5.0, 0.5)
    >>> N = sp.csr_matrix(np.random.default_rng(0).poisson(rate))
    >>> ppmi = PPMISVD(dims=2, seed=0).fit(N)
    >>> V = ppmi.vectors_ / np.linalg.norm(ppmi.vectors_, axis=1, keepdims=True)
    >>> bool((V[:20] @ V[:20].T).mean() > (V[:20] @ V[20:].T).mean())
    True
    """

    def __init__(self, dims: int = 300, weight: float = 0.0, smoothing: float = 0.75, **options):
        super().__init__(dims, weight, **options)
        self.smoothing = smoothing

    def fit(self, N: sp.spmatrix, progress=None) -> "PPMISVD":
        """Decompose the PPMI matrix of the word x context table ``N``.

        Parameters
        ----------
        N : sparse matrix of shape (words, contexts)
            The contingency table of counts.
        progress : callable, optional
            ``progress(iteration, worst relative residual)`` after the sketch and each power iteration.

        Returns
        -------
        PPMISVD
            self, with ``vectors_`` and the attributes above.
        """
        return self.decompose(PPMIOperator(N, self.smoothing), progress)


def word_similarity(words: list[str], vectors: np.ndarray, pairs: list[tuple[str, str, float]]) -> dict:
    """Spearman's rho between cosine similarities and human scores over the pairs with both words
    known, and the share of pairs left out (as gensim's evaluate_word_pairs); rho is None (undefined) with
    fewer than three such pairs or when either side is constant (every score the same, zero vectors)."""
    index = {w: i for i, w in enumerate(words)}
    known = [(index[a], index[b], score) for a, b, score in pairs if a in index and b in index]
    result = {"pairs": len(pairs), "oov_ratio": 1 - len(known) / len(pairs) if pairs else 0.0, "spearman": None}
    if len(known) >= 3:
        V = normalize_rows(np.asarray(vectors, dtype=np.float64))
        left, right, human = (np.array(column) for column in zip(*known))
        cosine = np.einsum("ij,ij->i", V[left], V[right])
        if np.ptp(cosine) > 0 and np.ptp(human) > 0:
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
    words = arrays["vocab"].tolist()
    if not all(words) or len(set(words)) < len(words) or (arrays["counts"] < 0).any():
        raise InputError("vocab holds an empty word or a word twice, or counts a negative number")
    return words, arrays["vectors"]


def load_vectors(path: str) -> tuple[list[str], np.ndarray]:
    """(words, vectors) of a ``ca-vectors`` artifact (``.npz``) or of a word2vec text file (told apart by content)."""
    if path != "-" and (path.endswith(".npz") or artifact.is_array_file(path)):
        return artifact.load(path, KIND, vectors_from_artifact)[1]
    return read_word2vec_text(path)
