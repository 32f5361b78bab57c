"""Tokens of the learned filter's features: maximal runs of non-separators of the ``lowered`` sentences
(letters and digits, lower-cased), each kana and Han character a token of its own (Japanese and Chinese
have no spaces), hashed into ids (FNV-1a over the code points, then one xor-shift-multiply mixing step). The alignment
(alignment.py), the corpus models (corpus.py), the spelling and order features (word_typicality.py) and
the synthetic noise see the same tokens with the same boundaries; the alignment hashes only each token's
first code points (its ``stem``).
"""

from __future__ import annotations

import numba
import numpy as np

from ..text import CJK, SEPARATORS, lowered

WHOLE = (1 << 30, 1 << 30)  # a stem that is the whole token


def token_sequences(sentences: list[str], buckets: int,
                    stem: tuple[int, int] = WHOLE) -> tuple[np.ndarray, np.ndarray]:
    """Each sentence's hashed token ids (int32 in [0, buckets)) in their order, as CSR rows (ids, indptr); ``stem``:
    the code points of a token that are hashed, its first ``stem[0]`` (``stem[1]`` if it starts with a Hangul
    syllable)."""
    return token_ids(lowered(sentences), buckets, stem)


def token_ids(text: tuple, buckets: int, stem: tuple[int, int] = WHOLE) -> tuple[np.ndarray, np.ndarray]:
    """``token_sequences`` of ``text``, the sentences' ``lowered`` code points (for a caller that has them)."""
    ids, counts, _ = _token_sequences(*text, buckets, SEPARATORS, CJK, IDENTITY, False, *stem)
    return ids, np.concatenate([[0], np.cumsum(counts)])


def folded_tokens(text: tuple, buckets: int, fold: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The tokens of ``token_ids(text)`` (same order and boundaries), hashed with each BMP code point
    mapped by ``fold`` and a letter equal to the one before it skipped, and whether a letter of each
    token folded (word_typicality.py's spelling keys)."""
    ids, _, folded = _token_sequences(*text, buckets, SEPARATORS, CJK, fold, True, *WHOLE)
    return ids, folded


IDENTITY = np.arange(1 << 16, dtype=np.int32)
ARGUMENT_MARKS = np.array([ord("%"), ord("$"), ord("{")])


def argument_tokens(text: tuple) -> np.ndarray:
    """Whether each token of ``token_ids(text)`` (same order) stands for a program's argument rather than a
    word: it follows ``%``, ``$`` or ``{`` (a placeholder's name: ``%s``, ``$HOME``, ``{0}``) or starts with an
    ASCII digit (a number, a width such as ``%3d``'s)."""
    codes, sentence_of, n = text
    starts, _, _ = token_bounds(codes, sentence_of, n, SEPARATORS, CJK)
    first = codes[starts]
    return ((starts > 0) & np.isin(codes[np.maximum(starts - 1, 0)], ARGUMENT_MARKS)) | ((first >= 48) & (first <= 57))


@numba.njit(cache=True, nogil=True)
def token_bounds(codes, sentence_of, n, separators, cjk):  # pragma: no cover - compiled
    """Start and end (exclusive) of every token of the joined sentences' code points (a maximal run of
    non-separators, each kana or Han character apart), and the tokens of each of the ``n`` sentences."""
    starts, ends, counts = np.empty(codes.size, np.int64), np.empty(codes.size, np.int64), np.zeros(n, np.int64)
    k, inside, previous_cjk = 0, False, False
    for i in range(codes.size + 1):
        c = codes[i] if i < codes.size else 10
        b = min(c, 0xFFFF)
        split = separators[b] or (inside and (cjk[b] or previous_cjk))
        if inside and (split or i == codes.size):
            ends[k] = i
            counts[sentence_of[i - 1]] += 1
            k += 1
            inside = False
        if i == codes.size or separators[b]:
            continue
        if not inside:
            inside, starts[k] = True, i
        previous_cjk = cjk[b]
    return starts[:k], ends[:k], counts


@numba.njit(cache=True, nogil=True)
def _token_sequences(codes, sentence_of, n, buckets, separators, cjk, fold, collapse, stem,
                     hangul_stem):  # pragma: no cover - compiled
    """Token ids, tokens per sentence, and whether a letter of each token folded: each BMP code point
    is hashed as ``fold`` maps it, and with ``collapse`` a letter equal to the one before is skipped; only
    the first ``stem`` code points of a token are hashed (``hangul_stem`` if it starts with a Hangul syllable)."""
    starts, ends, counts = token_bounds(codes, sentence_of, n, separators, cjk)
    ids, folded = np.empty(starts.size, np.int32), np.zeros(starts.size, np.bool_)
    for k in range(starts.size):
        h, last, changed = np.uint64(0xCBF29CE484222325), -1, False
        hangul = 0xAC00 <= codes[starts[k]] <= 0xD7A3
        for i in range(starts[k], min(ends[k], starts[k] + (hangul_stem if hangul else stem))):
            c = codes[i]
            f = fold[c] if c <= 0xFFFF else c
            changed = changed or f != c
            if collapse and f == last:
                continue
            last = f
            h = (h ^ np.uint64(f)) * np.uint64(0x100000001B3)
        h ^= h >> np.uint64(29)
        h *= np.uint64(0xBF58476D1CE4E5B9)
        ids[k] = np.int32((h >> np.uint64(32)) % np.uint64(buckets))
        folded[k] = changed
    return ids, counts, folded
