"""Gram matrices of sentence pairs: SRK/TESRK terms per k, the PR kernel, normalised sums (computed a tile
of rows at a time, each tile kept in a cache when there is one: cache.py).

Gleize & Grau (2015, §4.1): every kernel is normalised, K(x,y) / sqrt(K(x,x) K(y,y)), and "+"
is a sum of kernels normalised before and after summing. A TESRK "with k from 1 to 4" is the sum
of the four kb-SRKs, so every (term, k) is one normalised kernel of the sum. A pair whose own
kernel value is 0 (e.g. k longer than a sentence) contributes 0 to that kernel.
"""

from __future__ import annotations

import collections

import numpy as np
import snowballstemmer

from ..linalg import normalize_kernel
from .kernel import EncodedPairs
from .types import TypingScheme


class Vocabulary:
    """Word ids for a list of tokenised pairs (ids only index the relations; values never depend on them)."""

    def __init__(self, pairs: list[tuple[list[str], list[str]]]):
        self.words = sorted({w for s, t in pairs for w in s + t})
        index = {w: i for i, w in enumerate(self.words)}
        self.sources = [np.array([index[w] for w in s], np.int64) for s, _ in pairs]
        self.targets = [np.array([index[w] for w in t], np.int64) for _, t in pairs]


class SrkTerm:
    """kb-SRK / TESRK counts for every k of one typing scheme (Gleize & Grau 2015, Eq. 3-6)."""

    def __init__(self, ks: list[int], pattern_types: list[str], variable_types: list[str],
                 wordnet_dir: str | None = None):
        self.ks = sorted(set(ks))
        self.scheme = TypingScheme(pattern_types, variable_types, wordnet_dir)
        self.spec = {"kind": "srk", "k": self.ks, "pattern_types": list(pattern_types),
                     "variable_types": list(variable_types)}
        self.encoded: EncodedPairs | None = None

    @property
    def names(self) -> list[str]:
        types = f"{'+'.join(self.spec['pattern_types'])}/{'+'.join(self.spec['variable_types'])}"
        return [f"srk{k}[{types}]" for k in self.ks]

    def prepare(self, vocabulary: Vocabulary) -> None:
        pattern, variable = self.scheme.relations(vocabulary.words)
        self.encoded = EncodedPairs(vocabulary.sources, vocabulary.targets, pattern, variable, max(self.ks))

    def block(self, rows: np.ndarray, cols: np.ndarray, upper: bool) -> np.ndarray:
        """(len(ks), len(rows), len(cols)) float64 counts."""
        counts = self.encoded.counts(rows, cols, upper)
        return np.moveaxis(counts[:, :, [k - 1 for k in self.ks]], 2, 0).astype(np.float64)

    def diagonal(self) -> np.ndarray:
        return self.encoded.diagonal()[:, [k - 1 for k in self.ks]].T.astype(np.float64)


class PrTerm:
    """The PR kernel (Bu et al. 2012 after Wan et al. 2006): a linear kernel on unigram precision and recall.

    Features of (s, t): precision |s & t| / |t| and recall |s & t| / |s| of Porter stems (multiset
    overlap), plus a constant 1: without it the normalised kernel would keep only their ratio.
    """

    names = ["pr"]
    spec = {"kind": "pr"}

    def __init__(self):
        self._stemmer = snowballstemmer.stemmer("porter")
        self.features: np.ndarray | None = None

    def prepare(self, vocabulary: Vocabulary) -> None:
        stems = np.array([self._stemmer.stemWord(w) for w in vocabulary.words], dtype=object)
        rows = []
        for s, t in zip(vocabulary.sources, vocabulary.targets):
            cs, ct = collections.Counter(stems[s]), collections.Counter(stems[t])
            common = sum((cs & ct).values())
            rows.append((common / max(len(t), 1), common / max(len(s), 1), 1.0))
        self.features = np.array(rows, np.float64).reshape(-1, 3)

    def block(self, rows: np.ndarray, cols: np.ndarray, upper: bool) -> np.ndarray:
        return (self.features[rows] @ self.features[cols].T)[None]

    def diagonal(self) -> np.ndarray:
        return np.einsum("ij,ij->i", self.features, self.features)[None]


def build_terms(kernels: list, wordnet_dir: str | None) -> list:
    return [PrTerm() if k.kind == "pr" else SrkTerm(k.k, k.pattern_types, k.variable_types, wordnet_dir)
            for k in kernels]


def raw_block(term, rows: np.ndarray, cols: np.ndarray, upper: bool, key: str, cache, tile_rows: int,
              on_tile=None) -> np.ndarray:
    """The term's (n_kernels, len(rows), len(cols)) block, computed (or loaded) ``tile_rows`` rows at a time;
    ``cache`` (cache.TileCache) loads and saves the tiles under ``key``."""
    out = np.zeros((len(term.names), rows.size, cols.size))
    for start in range(0, rows.size, tile_rows):
        stop = min(start + tile_rows, rows.size)
        block = cache.load(key, start)
        if block is None or block.shape != (len(term.names), stop - start, cols.size):
            block = term.block(rows[start:stop], cols, upper)
            cache.save(key, start, block)
        out[:, start:stop] = block
        if on_tile:
            on_tile(stop - start)
    if upper:  # mirror the upper triangle of a symmetric block
        lower = np.tril_indices(rows.size, -1)
        out[:, lower[0], lower[1]] = out[:, lower[1], lower[0]]
    return out


def combine(blocks: list[np.ndarray], diagonals: list[np.ndarray], rows: np.ndarray,
            cols: np.ndarray) -> np.ndarray:
    """Normalise every kernel, sum, normalise the sum (§4.1)."""
    total = np.zeros((rows.size, cols.size))
    row_total, col_total = np.zeros(rows.size), np.zeros(cols.size)
    for block, diag in zip(blocks, diagonals):
        total += normalize_kernel(block, diag[:, rows], diag[:, cols]).sum(axis=0)
        row_total += (diag[:, rows] > 0).sum(axis=0)  # a normalised kernel's own value is 1 (or 0)
        col_total += (diag[:, cols] > 0).sum(axis=0)
    return normalize_kernel(total, row_total, col_total)
