"""Sentence -> vector encoders behind one interface (Yokoi 2018, §6.1, Eq. 22).

* ``fasttext``: sum (Yokoi 2018, Eq. 22) or mean of fastText word vectors (``.bin`` via the fasttext
  library; subword vectors make almost every token known).
* ``vectors``: sum or mean of static word vectors in the word2vec text format (``.vec``/``.txt``);
  unknown tokens are dropped.
* ``wordllama``: WordLlama's static token embeddings, mean-pooled (loaded offline from the package).
* ``hashing``: signed feature hashing of word n-grams and character n-grams; no model, no fitted
  vocabulary, so a sentence's vector never depends on what else was encoded.

Every encoder is deterministic. An empty sentence (or one whose tokens are all unknown) is the
zero vector; the cosine feature map keeps it at zero, so it scores 0 against everything
rather than a random value.
"""

from __future__ import annotations

import abc
import re
import string
from itertools import chain

import numba
import numpy as np
import scipy.sparse as sp

from .errors import InputError
from .extras import import_optional
from .hashing import splitmix64
from .text import SEPARATORS, code_points, lowered
from .wordvectors import FastTextVectors, TextVectors

_PUNCTUATION = str.maketrans({c: " " for c in string.punctuation})


_CJK_CHARACTER = re.compile("([\u3000-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\uff66-\uff9f])")


def tokenize(sentence: str, lowercase: bool, strip_punctuation: bool, split_cjk: bool = False) -> list[str]:
    """Whitespace tokens, optionally lower-cased and with ASCII punctuation removed (text8-like).

    ``split_cjk`` makes every kana and Han character a token of its own: Japanese and Chinese
    are written without spaces, and a word-vector model trained on the same split covers them.
    """
    if lowercase:
        sentence = sentence.lower()
    if strip_punctuation:
        sentence = sentence.translate(_PUNCTUATION)
    if split_cjk:
        sentence = _CJK_CHARACTER.sub(r" \1 ", sentence)
    return sentence.split()


class Encoder(abc.ABC):
    """Maps a list of sentences to a (n, dim) float matrix (dense, or scipy CSR for hashing)."""

    dim: int

    @abc.abstractmethod
    def encode(self, sentences: list[str]):
        """One row per sentence."""

    @abc.abstractmethod
    def spec(self) -> dict:
        """Everything needed to rebuild this encoder (stored in model headers)."""

    def encode_lowered(self, sentences: list[str], text: tuple):
        """``encode(sentences)``, given also their ``text.lowered`` code points ``text`` (for an encoder
        that reads them, so that a caller who lowered the sentences already does not pay twice)."""
        return self.encode(sentences)


class PooledWordVectors(Encoder):
    """Sum or mean of per-token vectors, with a cache of the vectors of tokens seen so far.

    The sum over a block is one sparse (sentences x tokens) count matrix times the token-vector
    matrix, so no Python loop runs per sentence beyond tokenisation.
    """

    max_cache = 2_000_000

    def __init__(self, dim: int, pooling: str = "sum", lowercase: bool = True, strip_punctuation: bool = True,
                 split_cjk: bool = False):
        if pooling not in ("sum", "mean"):
            raise InputError(f"pooling must be 'sum' or 'mean', got {pooling!r}")
        self.dim, self.pooling = dim, pooling
        self.lowercase, self.strip_punctuation, self.split_cjk = lowercase, strip_punctuation, split_cjk
        self._reset_cache()

    def _reset_cache(self) -> None:
        self._index: dict[str, int] = {}
        self._known = np.zeros(1024, dtype=bool)
        self._table = np.zeros((1024, self.dim), dtype=np.float32)

    @abc.abstractmethod
    def lookup(self, words: list[str]) -> tuple[np.ndarray, np.ndarray]:
        """Vectors for ``words`` (len(words) x dim) and whether each word is known."""

    def _token_ids(self, tokens: list[str]) -> np.ndarray:
        new = set(tokens).difference(self._index)
        if len(self._index) + len(new) > self.max_cache:
            self._reset_cache()
            new = set(tokens)
        if new:
            words = sorted(new)
            vectors, known = self.lookup(words)
            start, stop = len(self._index), len(self._index) + len(words)
            if stop > len(self._table):  # grow geometrically: amortised O(1) per new token
                capacity = max(stop, 2 * len(self._table))
                self._table = np.resize(self._table, (capacity, self.dim))
                self._known = np.resize(self._known, capacity)
            self._table[start:stop] = np.where(known[:, None], vectors, 0.0)
            self._known[start:stop] = known
            self._index.update(zip(words, range(start, stop)))
        return np.fromiter(map(self._index.__getitem__, tokens), dtype=np.int64, count=len(tokens))

    def encode(self, sentences: list[str]) -> np.ndarray:
        tokenized = [tokenize(s, self.lowercase, self.strip_punctuation, self.split_cjk) for s in sentences]
        lengths = np.fromiter(map(len, tokenized), dtype=np.int64, count=len(tokenized))
        ids = self._token_ids(list(chain.from_iterable(tokenized)))
        indptr = np.concatenate([[0], np.cumsum(lengths)])
        vocabulary = len(self._index)
        counts = sp.csr_matrix((np.ones(ids.size, np.float32), ids, indptr), shape=(len(sentences), vocabulary))
        pooled = np.asarray(counts @ self._table[:vocabulary], dtype=np.float32)
        if self.pooling == "mean":
            n_known = np.asarray(counts @ self._known[:vocabulary].astype(np.float32)).ravel()
            pooled /= np.maximum(n_known, 1.0)[:, None]
        return pooled


class FileWordVectorsEncoder(PooledWordVectors):
    """Sum/mean of the vectors of a word-vector file (:mod:`kcooc.wordvectors`)."""

    name: str
    source: type

    def __init__(self, model: str, **kwargs):
        self.model_path = model
        self._source = self.source(model)
        super().__init__(self._source.dim, **kwargs)

    def lookup(self, words):
        return self._source.lookup(words)

    def spec(self):
        return {"name": self.name, "model": self.model_path, "pooling": self.pooling, "dim": self.dim,
                "lowercase": self.lowercase, "strip_punctuation": self.strip_punctuation, "split_cjk": self.split_cjk}


class FastTextEncoder(FileWordVectorsEncoder):
    """Sum/mean of fastText ``get_word_vector`` (Yokoi 2018, Eq. 22); any user ``.bin`` model."""

    name, source = "fasttext", FastTextVectors


class StaticVectorsEncoder(FileWordVectorsEncoder):
    """Sum/mean of static word vectors read from the word2vec text format (``.vec``)."""

    name, source = "vectors", TextVectors


class WordLlamaEncoder(Encoder):
    """WordLlama static token embeddings, mean-pooled (loaded offline from the installed package)."""

    def __init__(self, dim: int = 256):
        import pathlib

        wordllama = import_optional("wordllama", "by the wordllama encoder")
        self.dim = dim
        self._model = wordllama.WordLlama.load(
            cache_dir=pathlib.Path(wordllama.__file__).parent, disable_download=True, dim=dim
        )

    def encode(self, sentences):
        return np.asarray(self._model.embed(list(sentences), norm=False), dtype=np.float32).reshape(-1, self.dim)

    def spec(self):
        return {"name": "wordllama", "dim": self.dim}


_BASE = 0x100000001B3  # the polynomial hash's base (odd)


class HashingEncoder(Encoder):
    """Signed feature hashing of word n-grams and character n-grams, in one compiled pass over a block.

    A block is turned into one array of code points; tokens are maximal runs of characters
    that are neither whitespace nor punctuation. Each n-gram is hashed with a polynomial hash
    mod 2^64 (code points + 1 as digits in base ``_BASE``), finalised with splitmix64; the low bits
    pick the column and the top bit the sign. Char n-grams stay inside a token, word n-grams
    inside a sentence. Same text, same vector: there is no vocabulary and no fitting.
    """

    def __init__(self, n_features: int = 1024, word_ngrams: int = 2, char_ngrams: list[int] | None = None,
                 lowercase: bool = True):
        if n_features < 1 or word_ngrams < 0 or any(n < 1 for n in char_ngrams or []):
            raise InputError("hashing encoder: n_features >= 1, word_ngrams >= 0 and char_ngrams >= 1 are required")
        if word_ngrams == 0 and not char_ngrams:
            raise InputError("hashing encoder: enable word_ngrams or char_ngrams")
        self.dim, self.word_ngrams = int(n_features), int(word_ngrams)
        self.char_ngrams, self.lowercase = sorted(set(char_ngrams or [])), lowercase

    def spec(self):
        return {"name": "hashing", "n_features": self.dim, "word_ngrams": self.word_ngrams,
                "char_ngrams": self.char_ngrams, "lowercase": self.lowercase}

    def encode(self, sentences: list[str]) -> sp.csr_matrix:
        if self.lowercase:
            return self.encode_lowered(sentences, lowered(sentences))
        return self._rows(*code_points(sentences, " ")[:2], len(sentences))

    def encode_lowered(self, sentences: list[str], text: tuple) -> sp.csr_matrix:
        # the newline after each lowered sentence separates tokens as the space between them would
        return self._rows(*text) if self.lowercase else self.encode(sentences)

    def _rows(self, codes: np.ndarray, sentence_of: np.ndarray, n: int) -> sp.csr_matrix:
        """The hashed rows of the ``n`` sentences whose code points (separated) are ``codes``."""
        data, indices, indptr = _hashed_rows(codes, sentence_of, n, SEPARATORS,
                                             np.array(self.char_ngrams, dtype=np.int64), self.word_ngrams, self.dim)
        matrix = sp.csr_matrix((data, indices, indptr), shape=(n, self.dim))
        matrix.has_sorted_indices = True  # sorted columns: the scoring and statistics kernels walk C's rows in order
        return matrix


@numba.njit(cache=True, nogil=True)
def sort_segment(keys, values, lo, hi):  # pragma: no cover - compiled
    """Sort keys[lo:hi] in place, values[lo:hi] alongside (may be the same array): insertion sort
    on the short segments of one sentence, no allocation; a stable merge sort on long ones."""
    if hi - lo > 32:
        order = np.argsort(keys[lo:hi], kind="mergesort")
        sorted_keys, sorted_values = keys[lo:hi][order], values[lo:hi][order]
        keys[lo:hi], values[lo:hi] = sorted_keys, sorted_values
        return
    for i in range(lo + 1, hi):
        key, value = keys[i], values[i]
        j = i - 1
        while j >= lo and keys[j] > key:
            keys[j + 1], values[j + 1] = keys[j], values[j]
            j -= 1
        keys[j + 1], values[j + 1] = key, value


@numba.njit(cache=True, nogil=True)
def lower_bound(values, lo, hi, value):  # pragma: no cover - compiled
    """The first position in the sorted values[lo:hi] whose value is not below ``value`` (hi if none)."""
    while lo < hi:
        middle = (lo + hi) >> 1
        if values[middle] < value:
            lo = middle + 1
        else:
            hi = middle
    return lo


@numba.njit(cache=True, nogil=True)
def _polynomial(codes, start, end):  # pragma: no cover - compiled
    """sum_i (codes[i] + 1) B^(i - start) mod 2^64 over [start, end)."""
    h, power = np.uint64(0), np.uint64(1)
    for i in range(start, end):
        h += (np.uint64(codes[i]) + np.uint64(1)) * power
        power *= np.uint64(_BASE)
    return h


@numba.njit(cache=True, nogil=True)
def _hashed_rows(codes, sentence_of, n_rows, separators, char_ngrams, word_ngrams, dim):  # pragma: no cover
    """CSR (data float32, indices int32, indptr int32) of the signed hashed n-gram counts of each row."""
    size = codes.size
    starts, ends = np.empty(size, np.int64), np.empty(size, np.int64)
    tokens = 0
    i = 0
    while i < size:
        if separators[min(codes[i], 0xFFFF)]:
            i += 1
            continue
        j = i + 1
        while j < size and not separators[min(codes[j], 0xFFFF)]:
            j += 1
        starts[tokens], ends[tokens] = i, j
        tokens += 1
        i = j
    capacity = size * len(char_ngrams) + tokens * word_ngrams
    rows, hashes = np.empty(capacity, np.int64), np.empty(capacity, np.uint64)
    k = 0
    for t in range(tokens):
        for n in char_ngrams:
            for a in range(starts[t], ends[t] - n + 1):
                rows[k], hashes[k] = sentence_of[a], splitmix64(_polynomial(codes, a, a + n) + np.uint64(n))
                k += 1
    if word_ngrams:
        words = np.empty(tokens, np.uint64)
        for t in range(tokens):
            words[t] = splitmix64(_polynomial(codes, starts[t], ends[t]))
            rows[k], hashes[k] = sentence_of[starts[t]], words[t]
            k += 1
        combined = words.copy()
        for n in range(2, word_ngrams + 1):
            for t in range(tokens - n + 1):
                combined[t] = splitmix64(combined[t] * np.uint64(0x9E3779B97F4A7C15) + words[t + n - 1])
                if sentence_of[starts[t + n - 1]] == sentence_of[starts[t]]:
                    rows[k], hashes[k] = sentence_of[starts[t]], splitmix64(combined[t] ^ np.uint64(n << 56))
                    k += 1
    # group by row, then per row sort the columns and add the signs of equal columns
    indptr = np.zeros(n_rows + 1, np.int64)
    for x in range(k):
        indptr[rows[x] + 1] += 1
    indptr = np.cumsum(indptr)
    fill = indptr[:-1].copy()
    columns, signs = np.empty(k, np.int64), np.empty(k, np.float32)
    mask = np.uint64(dim - 1) if dim & (dim - 1) == 0 else np.uint64(0)  # h % dim for a power of two
    for x in range(k):
        slot = fill[rows[x]]
        columns[slot] = np.int64(hashes[x] & mask) if mask else np.int64(hashes[x] % np.uint64(dim))
        signs[slot] = np.float32(-1.0) if hashes[x] >> np.uint64(63) else np.float32(1.0)
        fill[rows[x]] += 1
    data, indices, out_ptr = np.empty(k, np.float32), np.empty(k, np.int32), np.zeros(n_rows + 1, np.int32)
    nnz = 0
    if dim <= 4096:  # narrow rows: add into a dense row and read its touched columns in order
        total, touched = np.zeros(dim, np.float32), np.full(dim, -1, np.int64)
        for r in range(n_rows):
            for x in range(indptr[r], indptr[r + 1]):
                total[columns[x]] += signs[x]
                touched[columns[x]] = r
            if indptr[r + 1] > indptr[r]:
                for c in range(dim):
                    if touched[c] == r:
                        indices[nnz], data[nnz] = c, total[c]
                        total[c] = 0
                        nnz += 1
            out_ptr[r + 1] = nnz
        return data[:nnz].copy(), indices[:nnz].copy(), out_ptr
    for r in range(n_rows):
        sort_segment(columns, signs, indptr[r], indptr[r + 1])
        for x in range(indptr[r], indptr[r + 1]):
            if nnz > out_ptr[r] and indices[nnz - 1] == columns[x]:
                data[nnz - 1] += signs[x]
            else:
                indices[nnz], data[nnz] = columns[x], signs[x]
                nnz += 1
        out_ptr[r + 1] = nnz
    return data[:nnz].copy(), indices[:nnz].copy(), out_ptr


def build_encoder(spec: dict) -> Encoder:
    """An encoder from its spec (a config section or a model header's ``encoder`` entry)."""
    spec = {k: v for k, v in spec.items() if v is not None}
    name = spec.pop("name", None)
    words = {k: spec[k] for k in ("pooling", "lowercase", "strip_punctuation", "split_cjk") if k in spec}
    if name in ("fasttext", "vectors"):
        if "model" not in spec:
            raise InputError(f"encoder {name!r} needs a model path (encoder.model)")
        cls = FastTextEncoder if name == "fasttext" else StaticVectorsEncoder
        encoder = cls(spec["model"], **words)
        if "dim" in spec and spec["dim"] != encoder.dim:
            raise InputError(f"{spec['model']}: has dimension {encoder.dim}, the model was trained with {spec['dim']}")
        return encoder
    if name == "wordllama":
        return WordLlamaEncoder(dim=spec.get("dim", 256))
    if name == "hashing":
        return HashingEncoder(spec.get("n_features", 1024), spec.get("word_ngrams", 2),
                              spec.get("char_ngrams"), spec.get("lowercase", True))
    raise InputError(f"unknown encoder {name!r}; choose fasttext, vectors, wordllama or hashing")


def build_pair_encoders(x_spec: dict, y_spec: dict | None = None) -> tuple[Encoder, Encoder]:
    """Encoders for the x and y sides; one shared instance (one model load) when the specs agree."""
    x_encoder = build_encoder(x_spec)
    if y_spec is None or y_spec == x_spec:
        return x_encoder, x_encoder
    return x_encoder, build_encoder(y_spec)
