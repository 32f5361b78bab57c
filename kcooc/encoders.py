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

import numpy as np
import scipy.sparse as sp

from .errors import InputError
from .extras import import_optional
from .text import code_points
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


class HashingEncoder(Encoder):
    """Signed feature hashing of word n-grams and character n-grams, vectorised over a block.

    A block is turned into one array of code points; tokens are maximal runs of characters
    that are neither whitespace nor punctuation. Each n-gram is hashed with a polynomial hash
    mod 2^64 computed from prefix sums, finalised with splitmix64; the low bits pick the
    column and the top bit the sign. Char n-grams stay inside a token, word n-grams inside a
    sentence. Same text, same vector: there is no vocabulary and no fitting.
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
            sentences = [s.lower() for s in sentences]
        codes, sentence_of, _ = code_points(sentences, " ")
        hashes, rows = [], []
        in_token = ~_is_separator(codes)
        prefix, inverse_power = _prefix_hashes(codes)
        token_id = np.cumsum(in_token & ~np.concatenate([[False], in_token[:-1]]))
        for n in self.char_ngrams:
            start = np.arange(codes.size - n + 1)
            end = start + n
            inside = in_token[start] & (token_id[start] == token_id[end - 1]) & in_token[end - 1]
            start = start[inside]
            hashes.append(mix64((prefix[start + n] - prefix[start]) * inverse_power[start] + np.uint64(n)))
            rows.append(sentence_of[start])
        if self.word_ngrams:
            edges = np.diff(np.concatenate([[0], in_token.view(np.int8), [0]]))
            starts, ends = np.flatnonzero(edges == 1), np.flatnonzero(edges == -1)
            words = mix64((prefix[ends] - prefix[starts]) * inverse_power[starts])
            word_sentence = sentence_of[starts]
            combined = words
            for n in range(1, self.word_ngrams + 1):
                if n > 1:
                    same = word_sentence[n - 1 :] == word_sentence[: len(word_sentence) - n + 1]
                    combined = mix64(combined[:-1] * np.uint64(0x9E3779B97F4A7C15) + words[n - 1 :])
                    hashes.append(mix64(combined[same] ^ np.uint64(n << 56)))
                    rows.append(word_sentence[: len(word_sentence) - n + 1][same])
                else:
                    hashes.append(words)
                    rows.append(word_sentence)
        h = np.concatenate(hashes) if hashes else np.zeros(0, np.uint64)
        r = np.concatenate(rows) if rows else np.zeros(0, np.int64)
        columns = (h % np.uint64(self.dim)).astype(np.int64)
        signs = np.where(h >> np.uint64(63), -1.0, 1.0).astype(np.float32)
        matrix = sp.csr_matrix((signs, (r, columns)), shape=(len(sentences), self.dim), dtype=np.float32)
        matrix.sort_indices()  # sorted columns: the scoring and statistics kernels then walk C's rows in order
        return matrix


def _separator_table() -> np.ndarray:
    """Separators among the first 65536 code points: ASCII whitespace and punctuation, Latin-1
    symbols, general punctuation, CJK symbols and punctuation, full-width punctuation."""
    table = np.zeros(1 << 16, dtype=bool)
    table[[ord(c) for c in string.whitespace + string.punctuation]] = True
    for low, high in [(0x80, 0xBF), (0x2000, 0x206F), (0x3000, 0x303F), (0xFF01, 0xFF0F), (0xFF1A, 0xFF20),
                      (0xFF3B, 0xFF40), (0xFF5B, 0xFF65)]:
        table[low : high + 1] = True
    return table


_SEPARATORS = _separator_table()


def _is_separator(codes: np.ndarray) -> np.ndarray:
    """One table look-up per code point; code points beyond the BMP are never separators."""
    return _SEPARATORS[np.minimum(codes, 0xFFFF)]


_BASE = 0x100000001B3  # odd, so invertible mod 2^64
_BASE_INVERSE = pow(_BASE, -1, 1 << 64)


def _prefix_hashes(codes: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """P[k] = sum_{i<k} c_i B^i and B^-i (mod 2^64), so hash[s:e] = (P[e] - P[s]) B^-s."""
    with np.errstate(over="ignore"):
        power = np.cumprod(np.full(codes.size, _BASE, dtype=np.uint64)) * np.uint64(_BASE_INVERSE)
        inverse = np.cumprod(np.full(codes.size, _BASE_INVERSE, dtype=np.uint64)) * np.uint64(_BASE)
        prefix = np.concatenate([[np.uint64(0)], np.cumsum((codes.astype(np.uint64) + np.uint64(1)) * power)])
    return prefix, inverse


def mix64(x: np.ndarray) -> np.ndarray:
    """splitmix64 finaliser (elementwise, wrapping uint64 arithmetic)."""
    x = np.asarray(x, dtype=np.uint64)
    with np.errstate(over="ignore"):
        x = (x ^ (x >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
        x = (x ^ (x >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
        return x ^ (x >> np.uint64(31))


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
