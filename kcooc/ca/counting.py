"""Contingency tables of word pairs from a token stream (Niitsuma 2022, §7, Eq. 62-64).

#(w_i *^k w_j) counts the places where w_j follows w_i with exactly k words in between. The
stream is read in chunks; each chunk's tokens become vocabulary ids (out-of-vocabulary tokens are
dropped first, as word2vec does) and, for each k, all pairs at that distance are counted at once
with scipy.sparse (COO -> CSR sums the duplicates); the last W + 1 ids of a chunk are carried over
so pairs across chunk boundaries are counted once.

* ``flat`` (Niitsuma 2022, Eq. 63): sum over k = 0..W of #(w_i *^k w_j) (w_j after w_i).
* ``skip`` (Niitsuma 2022, Eq. 62): word x context word within the window on either side: flat + flat^T.
* ``cut``  (Niitsuma 2022, Eq. 64, the tail-cut kernel): an offset's count is kept only where it exceeds what
  independence predicts. The paper prints the threshold #(w_i)#(w_j)/n^2, which is below one count
  for every pair and so keeps everything; the default here is the expected count at one offset,
  #(w_i)#(w_j)/n (``threshold: expected``); ``threshold: literal`` uses the printed formula.
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass
from typing import Iterable

import numpy as np
import scipy.sparse as sp

from ..errors import InputError

TABLES = ("flat", "skip", "cut")
WORD_OR_MARK = re.compile(r"\w+(?:['\u2019-]\w+)*|[^\w\s]")
NOTHING_TO_SPLIT = re.compile(r"[^a-z\s]")
# A saved vocabulary is a fixed-width text array, every entry as wide as the longest word: one legal
# 900,000-character word made each entry 3.6 MB (a 3.5 GB model from a 1.4 MB corpus). Longer tokens
# stay out of the vocabulary, as rare ones do (word2vec reads at most 100 bytes of a word).
MAX_WORD_CHARS = 100


def tokenize(text: str, lowercase: bool = True) -> list[str]:
    """Whitespace tokens as they are, or (``lowercase``) lower-cased words with punctuation split off:
    every punctuation mark is a token of its own, apostrophes and hyphens inside a word stay
    ("Don't stop-loss." -> don't, stop-loss, .). Text already like text8 (a-z and spaces) is unchanged."""
    if not lowercase:
        return text.split()
    text = text.lower()
    return text.split() if NOTHING_TO_SPLIT.search(text) is None else WORD_OR_MARK.findall(text)


@dataclass
class Vocabulary:
    """Words by decreasing count (ties alphabetical); ``counts[i]`` is #(w_i) in the corpus."""

    words: list[str]
    counts: np.ndarray
    too_long: int = 0  # distinct tokens over MAX_WORD_CHARS left out

    @classmethod
    def build(cls, chunks: Iterable[list[str]], min_count: int = 5, max_vocab: int | None = None) -> "Vocabulary":
        counter: Counter = Counter()
        for tokens in chunks:
            counter.update(tokens)
        too_long = [word for word in counter if len(word) > MAX_WORD_CHARS]
        for word in too_long:
            del counter[word]
        kept = sorted((item for item in counter.items() if item[1] >= min_count), key=lambda wc: (-wc[1], wc[0]))
        kept = kept[:max_vocab] if max_vocab else kept
        if len(kept) < 2:  # a word x context table needs two rows to have any inertia
            raise InputError(f"{'no word' if not kept else 'only one word'} occurs at least {min_count} times; "
                             "CA needs two")
        return cls([w for w, _ in kept], np.array([c for _, c in kept], dtype=np.int64), len(too_long))

    def ids(self, tokens: list[str]) -> np.ndarray:
        """Vocabulary ids of ``tokens`` with out-of-vocabulary tokens removed."""
        index = getattr(self, "_index", None)
        if index is None:
            index = self._index = {w: i for i, w in enumerate(self.words)}
        ids = np.fromiter(map(index.get, tokens, [-1] * len(tokens)), dtype=np.int64, count=len(tokens))
        return ids[ids >= 0]


def offset_tables(id_chunks: Iterable[np.ndarray], vocabulary_size: int, window: int,
                  separate: bool = True) -> list[sp.csr_matrix]:
    """T_k[i, j] = #(w_i *^k w_j) for k = 0..window, over a stream of id arrays.

    With ``separate=False`` the offsets are summed as they are counted (one table: flat and skip
    need no more, only the tail cut needs each offset), so memory holds one table instead of W + 1.
    """
    shape = (vocabulary_size, vocabulary_size)
    tables = [sp.csr_matrix(shape, dtype=np.int64) for _ in range(window + 1 if separate else 1)]
    carry = np.zeros(0, dtype=np.int64)
    for ids in id_chunks:
        x = np.concatenate([carry, ids])
        for k in range(window + 1):
            distance = k + 1
            if x.size <= distance:
                continue
            start = max(carry.size - distance, 0)  # pairs whose second word is new in this chunk
            first, second = x[start : x.size - distance], x[start + distance :]
            if first.size:
                counts = sp.coo_matrix((np.ones(first.size, dtype=np.int64), (first, second)), shape=shape).tocsr()
                slot = k if separate else 0
                tables[slot] = tables[slot] + counts
        carry = x[-(window + 1) :]
    return tables


def contingency_table(tables: list[sp.csr_matrix], kind: str, counts: np.ndarray | None = None,
                      threshold: str = "expected") -> sp.csr_matrix:
    """N^flat, N^skip or N^cut (float64 CSR) from the per-offset tables."""
    if kind not in TABLES:
        raise InputError(f"table must be one of {TABLES}, got {kind!r}")
    if kind == "cut":
        n = float(counts.sum())
        scale = n if threshold == "expected" else n * n
        total = None
        for T in tables:
            T = T.tocoo()
            keep = T.data > counts[T.row] * counts[T.col] / scale
            kept = sp.csr_matrix((T.data[keep].astype(np.float64), (T.row[keep], T.col[keep])), shape=T.shape)
            total = kept if total is None else total + kept
        return total
    flat = sum(tables[1:], tables[0]).astype(np.float64)
    return flat if kind == "flat" else (flat + flat.T).tocsr()
