"""Objects -> monolingual kernel matrices (the paper's "Experimental setup"): TF-IDF documents with
stop words removed by document frequency and optional Snowball stemming, character 1-3-gram count
vectors for names (optionally of romanised consonant skeletons, binary or square-root weighted,
cosine-normalised), linear kernels; or a user's kernel matrix."""

from __future__ import annotations

import re

import numpy as np
import scipy.sparse as sp

from ..artifact import npy_file
from ..errors import InputError
from ..extras import import_optional


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

        def tokenize(text):
            return stemmer.stemWords(analyzer(text))
    else:
        tokenize = analyzer
    vectorizer = TfidfVectorizer(analyzer=tokenize, max_df=max_df if len(texts) > 2 else 1.0, min_df=min_df)
    try:
        return vectorizer.fit_transform(texts).tocsr()
    except ValueError as exc:  # every word pruned, empty input
        raise InputError(f"no features left after stop-word pruning ({exc})") from None


WEIGHTINGS = ("count", "binary", "sqrt")
# look-alike consonants merged in skeletons: Arabic has no p or v, Japanese no l; c/q/k and z/s vary by romanisation
LOOK_ALIKES = (("ph", "f"), ("c", "k"), ("q", "k"), ("p", "b"), ("v", "f"), ("z", "s"), ("x", "ks"), ("j", "g"),
               ("l", "r"))
ARABIC_ARTICLE = re.compile(r"(?<![\u0621-\u064a])\u0627\u0644(?=[\u0621-\u064a]{2})")  # al- glued to a word
LATIN_ARTICLE = re.compile(r"(?i)\b[ae]l[- ](?=\w)")  # Al-, El- (El Salvador, Al Ain)


def romanised(texts: list[str]) -> list[str]:
    """The paper romanised its Arabic names before counting n-grams; anyascii (ISC) does it for any script."""
    anyascii = import_optional("anyascii", "by ks features.romanise and features.skeleton").anyascii
    return [anyascii(text) for text in texts]


def skeleton(text: str, *, drop_article: bool = True, keep_spaces: bool = True) -> str:
    """The consonant skeleton of a name in any script, so that transliterations of it look alike:
    romanised (anyascii), lowercased, the definite article dropped (Arabic al- glued to a word,
    Latin Al-/El-), look-alike consonants merged (LOOK_ALIKES), vowels and the glides w, y, h dropped
    (Arabic writes short vowels not at all and long ones as w/y), repeated letters collapsed.
    Stockholm -> stkrm, ستوكهولم -> stkrm."""
    if drop_article:
        text = LATIN_ARTICLE.sub("", ARABIC_ARTICLE.sub("", text))
    s = re.sub(r"[^a-z ]" if keep_spaces else r"[^a-z]", "", romanised([text])[0].lower())
    for old, new in LOOK_ALIKES:
        s = s.replace(old, new)
    s = re.sub(r"(.)\1+", r"\1", re.sub(r"[aeiouwyh]", "", s))
    return re.sub(" +", " ", s).strip()


def char_ngram_vectors(texts: list[str], low: int = 1, high: int = 3, weighting: str = "count",
                       normalise: bool = False) -> sp.csr_matrix:
    """Counts of every character n-gram, low <= n <= high (the paper's transliteration features);
    ``weighting`` binary (present or not) or sqrt (square root of the count) damps repeated n-grams,
    ``normalise`` scales rows to unit length (a cosine kernel: long names no longer dominate)."""
    from sklearn.feature_extraction.text import CountVectorizer

    if weighting not in WEIGHTINGS:
        raise ValueError(f"weighting must be one of {WEIGHTINGS}")
    try:
        V = CountVectorizer(analyzer="char", ngram_range=(low, high), lowercase=True).fit_transform(texts)
    except ValueError as exc:  # every name empty (e.g. skeletons of vowel-only names)
        raise InputError(f"no character n-grams in the names ({exc})") from None
    V = V.tocsr().astype(np.float64)
    if weighting == "binary":
        V.data[:] = 1.0
    elif weighting == "sqrt":
        V.data = np.sqrt(V.data)
    if normalise:
        norms = np.sqrt(np.asarray(V.multiply(V).sum(axis=1)).ravel())
        V = sp.diags(1.0 / np.maximum(norms, 1e-300)) @ V
    return V.tocsr()


def linear_kernel(V: sp.csr_matrix) -> np.ndarray:
    return np.asarray((V @ V.T).todense(), dtype=np.float64)


def load_kernel(path: str, n: int) -> np.ndarray:
    """The (n x n) kernel matrix of the ``.npy`` file ``path``, checked (artifact.npy_file) before it is read."""
    K = npy_file(path)
    if K.shape != (n, n):
        raise InputError(f"{path}: kernel of shape {K.shape}, expected ({n}, {n}) for {n} objects")
    if not np.isfinite(K).all():
        raise InputError(f"{path}: a kernel matrix must hold finite real numbers")
    return np.asarray(K, dtype=np.float64)
