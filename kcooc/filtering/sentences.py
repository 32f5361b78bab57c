"""How often the corpus has each sentence of a side: the occurrences a corpus model leaves out of its
counts when it looks a sentence up.

corpus.CorpusModel scores a sentence under n-gram counts made on the corpus, without the sentence's
own occurrence (leave-one-out): an n-gram that only the sentence itself has is no evidence for it. A
sentence the corpus has k times (the same lower-cased text on that side, with other partners) added
its n-grams k times; leaving out one of them still counts it k - 1 times as evidence for itself, and a
target copied from another pair (a misaligned pair that repeats another line's target) then looks more
fluent than any sentence the corpus has once. :class:`SentenceCounts` holds k for every sentence the
corpus has more than once (a sorted table of 64-bit keys, so its size is that of the repeated
sentences, not of the corpus); every other sentence, and one the corpus does not have, counts once
(for a corpus the counts were not made on, absolute discounting by one, as before).
"""

from __future__ import annotations

import dataclasses

import numba
import numpy as np

from ..errors import InputError
from ..hashing import FNV_OFFSET, FNV_PRIME, splitmix64

_SIDE_SALT = (np.uint64(0), np.uint64(0x9E3779B97F4A7C15))


def sentence_keys(text: tuple, side: int) -> np.ndarray:
    """A 64-bit key of each sentence of one side (``text``: its ``lowered`` code points): FNV-1a of the
    code points, finished by splitmix64, salted by the side (0: source, 1: target)."""
    codes, sentence_of, n = text
    return _keys(codes, sentence_of, n, _SIDE_SALT[side])


@numba.njit(cache=True, nogil=True)
def _keys(codes, sentence_of, n, salt):  # pragma: no cover - compiled
    keys = np.empty(n, np.uint64)
    h = FNV_OFFSET
    for i in range(codes.size):
        h = (h ^ np.uint64(codes[i])) * FNV_PRIME
        if i + 1 == codes.size or sentence_of[i + 1] != sentence_of[i]:  # the sentence's end mark
            if sentence_of[i] < n:
                keys[sentence_of[i]] = splitmix64(h ^ salt)
            h = FNV_OFFSET
    return keys


@dataclasses.dataclass(frozen=True)
class SentenceCounts:
    """``keys`` (sorted) of the sentences the corpus has more than once, and how many times (``counts``)."""

    keys: np.ndarray
    counts: np.ndarray

    @classmethod
    def of(cls, keys: np.ndarray) -> "SentenceCounts":
        """From the ``sentence_keys`` of every counted sentence of both sides."""
        unique, counts = np.unique(np.asarray(keys, dtype=np.uint64), return_counts=True)
        repeated = counts > 1
        return cls(unique[repeated], counts[repeated].astype(np.int64))

    @classmethod
    def from_arrays(cls, arrays: dict[str, np.ndarray]) -> "SentenceCounts":
        """The table ``arrays`` wrote (a TypeError if a part is missing or unknown), refused (InputError) unless its
        keys are sorted distinct 64-bit keys and its counts integers above 1, one per key."""
        table = cls(**arrays)
        keys, counts = table.keys, table.counts
        if not (keys.dtype == np.uint64 and keys.ndim == 1 and counts.shape == keys.shape
                and counts.dtype.kind in "iu" and bool(np.all(keys[1:] > keys[:-1])) and bool(np.all(counts > 1))):
            raise InputError("its repeated sentences are not a sorted table")
        return table

    @classmethod
    def none(cls) -> "SentenceCounts":
        return cls(np.zeros(0, np.uint64), np.zeros(0, np.int64))

    def occurrences(self, keys: np.ndarray) -> np.ndarray:
        """How many times the corpus has each sentence of ``keys``, at least 1."""
        return counts_of(self.keys, self.counts, keys, missing=1)

    def arrays(self) -> dict[str, np.ndarray]:
        return {"keys": self.keys, "counts": self.counts}


def without_own(counts: np.ndarray, ids: np.ndarray, own: np.ndarray) -> np.ndarray:
    """``counts[ids]`` less the looked-up sentence's ``own`` occurrences, floored at 0."""
    return np.maximum(counts[ids].astype(np.int64) - own, 0)


class Multiset:
    """The ids each row has and how many times (a sorted table of row * size + id): the n-grams of the
    corpus pair a synthetic example replaces, to be left out of the counts it is looked up with."""

    def __init__(self, rows: np.ndarray, ids: np.ndarray, size: int):
        self.size = np.int64(size)
        self.keys, self.counts = np.unique(rows.astype(np.int64) * self.size + ids, return_counts=True)

    def __call__(self, rows: np.ndarray, ids: np.ndarray) -> np.ndarray:
        """How many times each row of ``rows`` has the id beside it."""
        return counts_of(self.keys, self.counts, rows.astype(np.int64) * self.size + ids, missing=0)


def counts_of(keys: np.ndarray, counts: np.ndarray, query: np.ndarray, missing: int) -> np.ndarray:
    """The ``counts`` of each ``query`` in the sorted ``keys``, ``missing`` for one they do not hold."""
    found = np.full(query.size, missing, dtype=np.int64)
    if keys.size:
        at = np.minimum(np.searchsorted(keys, query), keys.size - 1)
        hit = keys[at] == query
        found[hit] = counts[at[hit]]
    return found
