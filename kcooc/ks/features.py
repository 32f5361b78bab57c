"""Objects -> monolingual kernel matrices (the paper's "Experimental setup"): TF-IDF documents with
stop words removed by document frequency and optional Snowball stemming, character 1-3-gram count
vectors for names, linear kernels; or a user's kernel matrix."""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp

from ..errors import InputError


def tfidf_vectors(texts: list[str], language: str | None = None, max_df: float = 0.5, min_df: int = 1) -> sp.csr_matrix:
    """L2-normalised TF-IDF rows; words in more than ``max_df`` of the documents are stop words."""
    from sklearn.feature_extraction.text import TfidfVectorizer

    analyzer = TfidfVectorizer(lowercase=True).build_analyzer()
    if language:
        import snowballstemmer

        try:
            stemmer = snowballstemmer.stemmer(language)
        except KeyError:
            raise InputError(f"no Snowball stemmer for {language!r}") from None
        tokenize = lambda text: stemmer.stemWords(analyzer(text))  # noqa: E731
    else:
        tokenize = analyzer
    vectorizer = TfidfVectorizer(analyzer=tokenize, max_df=max_df if len(texts) > 2 else 1.0, min_df=min_df)
    try:
        return vectorizer.fit_transform(texts).tocsr()
    except ValueError as exc:  # every word pruned, empty input
        raise InputError(f"no features left after stop-word pruning ({exc})") from None


def char_ngram_vectors(texts: list[str], low: int = 1, high: int = 3) -> sp.csr_matrix:
    """Counts of every character n-gram, low <= n <= high (the paper's transliteration features)."""
    from sklearn.feature_extraction.text import CountVectorizer

    return CountVectorizer(analyzer="char", ngram_range=(low, high), lowercase=True).fit_transform(texts).tocsr()


def linear_kernel(V: sp.csr_matrix) -> np.ndarray:
    return np.asarray((V @ V.T).todense(), dtype=np.float64)


def load_kernel(path: str, n: int) -> np.ndarray:
    try:
        K = np.load(path, allow_pickle=False)
    except (OSError, ValueError) as exc:
        raise InputError(f"{path}: not a .npy kernel matrix ({exc})") from None
    if K.shape != (n, n):
        raise InputError(f"{path}: kernel of shape {K.shape}, expected ({n}, {n}) for {n} objects")
    if K.dtype.kind not in "biuf" or not np.isfinite(K).all():
        raise InputError(f"{path}: a kernel matrix must hold finite real numbers (dtype {K.dtype})")
    return np.asarray(K, dtype=np.float64)
