"""Hashing primitives shared by the encoders and the filter, on arrays and inside compiled loops.

* splitmix64's finaliser (Steele, Lea & Flood 2014): :func:`mix64` on arrays, :func:`splitmix64`
  on one uint64 inside numba code; the hashing encoder's n-gram hashes, the filter's trigram ids,
  MinHash signatures and sample priorities.
* FNV-1a over code points (``FNV_OFFSET``, ``FNV_PRIME``) cut to 32 bits by :func:`finish32`: the
  hash of the numbers, placeholders and capitalised tokens that must agree across a pair
  (:func:`item_hashes` for whole strings).
* :func:`pair_hashes`: a 64-bit hash of each pair's code points (FNV-1a through both sides, each side's end
  mixed in by splitmix64), for exact-duplicate detection.
"""

from __future__ import annotations

import numba
import numpy as np

from .text import code_points

FNV_OFFSET, FNV_PRIME, _FINAL = np.uint64(0xCBF29CE484222325), np.uint64(0x100000001B3), np.uint64(0xBF58476D1CE4E5B9)


def mix64(x: np.ndarray) -> np.ndarray:
    """splitmix64 finaliser (elementwise, wrapping uint64 arithmetic)."""
    x = np.asarray(x, dtype=np.uint64)
    with np.errstate(over="ignore"):
        x = (x ^ (x >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
        x = (x ^ (x >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
        return x ^ (x >> np.uint64(31))


@numba.njit(cache=True, nogil=True)
def splitmix64(x):  # pragma: no cover - compiled; as mix64
    x = (x ^ (x >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
    x = (x ^ (x >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
    return x ^ (x >> np.uint64(31))


@numba.njit(cache=True, nogil=True)
def finish32(h):  # pragma: no cover - compiled; the 32-bit end of the span hash
    h ^= h >> np.uint64(29)
    h *= _FINAL
    return np.int64(h >> np.uint64(32))


@numba.njit(cache=True, nogil=True)
def _fnv_hashes(codes, lengths):  # pragma: no cover - compiled
    out = np.empty(lengths.size, np.int64)
    start = 0
    for r in range(lengths.size):
        h = FNV_OFFSET
        for i in range(start, start + lengths[r]):
            h = (h ^ np.uint64(codes[i])) * FNV_PRIME
        out[r] = finish32(h)
        start += lengths[r] + 1
    return out


def item_hashes(strings: list[str]) -> np.ndarray:
    """The 32-bit FNV-1a hash (``finish32``) of each string's code points: the hash that the filter's
    item scan gives a number written in ASCII digits or a capitalised token."""
    codes, _, lengths = code_points(strings, "\n")
    return _fnv_hashes(codes, lengths)


def pair_hashes(src_codes: np.ndarray, src_lengths: np.ndarray, tgt_codes: np.ndarray, tgt_lengths: np.ndarray
                ) -> np.ndarray:
    """A 64-bit hash of each pair, for exact-duplicate detection, from each side's ``code_points`` (code points of
    the sentences joined by one separator, and their lengths, as text.TextStats holds them): FNV-1a over the
    source's code points, its length mixed in by splitmix64 (("ab", "c") and ("a", "bc") differ), then on over
    the target's, finished the same way. Two pairs share a hash by chance with probability about 2^-64."""
    return _pair_hashes(src_codes, np.asarray(src_lengths, dtype=np.int64), tgt_codes,
                        np.asarray(tgt_lengths, dtype=np.int64))


@numba.njit(cache=True, nogil=True)
def _pair_hashes(s_codes, s_lengths, t_codes, t_lengths):  # pragma: no cover - compiled
    out = np.empty(s_lengths.size, np.uint64)
    s_at = t_at = 0
    for r in range(s_lengths.size):
        h = FNV_OFFSET
        for i in range(s_at, s_at + s_lengths[r]):
            h = (h ^ np.uint64(s_codes[i])) * FNV_PRIME
        h = splitmix64(h ^ np.uint64(s_lengths[r]))
        for i in range(t_at, t_at + t_lengths[r]):
            h = (h ^ np.uint64(t_codes[i])) * FNV_PRIME
        out[r] = splitmix64(h ^ np.uint64(t_lengths[r]))
        s_at += s_lengths[r] + 1
        t_at += t_lengths[r] + 1
    return out
