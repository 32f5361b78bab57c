"""Tokens of the learned filter's features: maximal runs of non-separators of the ``lowered`` sentences
(letters and digits, lower-cased), each kana and Han character a token of its own (Japanese and Chinese
have no spaces), hashed into ids (FNV-1a over the code points, then one xor-shift-multiply mixing step). The corpus
models (corpus.py), the spelling and order features (word_typicality.py), the damage features and the synthetic
noise see the same tokens with the same boundaries. The alignment (alignment.py) sees words: a run of katakana
is one token there (``KATAKANA_WORDS``: ``ファイル``, ``フィールド``, apart from the Latin letters, kanji and
hiragana around it), and it hashes only each token's first code points (its stem, ``STEM``), as the order test's
model of stems does (word_typicality.swaps).
"""

from __future__ import annotations

import numba
import numpy as np

from ..text import CJK, SEPARATORS, SPACE, lowered

WHOLE = (1 << 30, 1 << 30)  # a stem that is the whole token
STEM = (4, 2)  # a word's stem: its first 4 code points, or 2 if they are Hangul syllables (alignment, order test)


def _katakana_words() -> np.ndarray:
    """``CJK`` as token kinds (1: a token of its own), with katakana (and the prolonged sound mark) kind 2: a
    run of them is one token, a word (loanwords, which technical Japanese writes most of its terms in)."""
    kinds = CJK.astype(np.int8)
    kinds[0x30A1 : 0x30FB] = kinds[0x30FC] = 2
    kinds[0xFF66 : 0xFFA0] = 2
    return kinds


KATAKANA_WORDS = _katakana_words()


def token_sequences(sentences: list[str], buckets: int, stem: tuple[int, int] = WHOLE, kinds: np.ndarray = CJK
                    ) -> tuple[np.ndarray, np.ndarray]:
    """Each sentence's hashed token ids (int32 in [0, buckets)) in their order, as CSR rows (ids, indptr); ``stem``:
    the code points of a token that are hashed, its first ``stem[0]`` (``stem[1]`` if it starts with a Hangul
    syllable); ``kinds``: which characters are tokens of their own (``CJK``) or make runs of their own kind
    (``KATAKANA_WORDS``)."""
    return token_ids(lowered(sentences), buckets, stem, kinds)


def token_ids(text: tuple, buckets: int, stem: tuple[int, int] = WHOLE, kinds: np.ndarray = CJK
              ) -> tuple[np.ndarray, np.ndarray]:
    """``token_sequences`` of ``text``, the sentences' ``lowered`` code points (for a caller that has them)."""
    _, stems, indptr = token_and_stem_ids(text, buckets, stem, kinds)
    return stems, indptr


def token_and_stem_ids(text: tuple, buckets: int, stem: tuple[int, int] = STEM, kinds: np.ndarray = CJK
                       ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The ids of ``token_ids(text, buckets)`` and of ``token_ids(text, buckets, stem, kinds)`` (the same tokens,
    whole and their stems: one pass over the code points), and their rows' indptr."""
    ids, stems, counts, _ = _token_sequences(*text, buckets, SEPARATORS, kinds, IDENTITY, False, *stem)
    return ids, stems, np.concatenate([[0], np.cumsum(counts)])


def folded_tokens(text: tuple, buckets: int, fold: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The tokens of ``token_ids(text)`` (same order and boundaries), hashed with each BMP code point
    mapped by ``fold`` and a letter equal to the one before it skipped, and whether a letter of each
    token folded (word_typicality.py's spelling keys)."""
    ids, _, _, folded = _token_sequences(*text, buckets, SEPARATORS, CJK, fold, True, *WHOLE)
    return ids, folded


def folded_grams(text: tuple, buckets: int, fold: np.ndarray, size: int, wanted: np.ndarray | None = None
                 ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The character ``size``-grams of the tokens of ``token_ids(text)`` in Latin script (a first code point
    below U+0250; ``wanted``: of those tokens only), each BMP code point mapped by ``fold``, a letter equal to
    the one before skipped (as the spelling keys, folded_tokens), and the token's start and end as two more
    characters (a token shorter than a gram is one gram): the grams' hashed ids, whether a letter of each gram
    folded, and each gram's token."""
    wanted = np.ones(0, np.bool_) if wanted is None else wanted
    return _folded_grams(*text, buckets, SEPARATORS, CJK, fold, size, wanted)


@numba.njit(cache=True, nogil=True)
def _bucket(h, buckets):  # pragma: no cover - compiled
    """An FNV-1a hash ``h`` after one xor-shift-multiply mixing step, into [0, buckets)."""
    h ^= h >> np.uint64(29)
    h *= np.uint64(0xBF58476D1CE4E5B9)
    return np.int64((h >> np.uint64(32)) % np.uint64(buckets))


@numba.njit(cache=True, nogil=True)
def _folded_grams(codes, sentence_of, n, buckets, separators, kinds, fold, size, wanted):  # pragma: no cover
    starts, ends, _ = token_bounds(codes, sentence_of, n, separators, kinds)
    bound = codes.size + 3 * starts.size
    ids, folded, token = np.empty(bound, np.int64), np.empty(bound, np.bool_), np.empty(bound, np.int64)
    chars, changed = np.empty(codes.size + 2, np.int64), np.empty(codes.size + 2, np.bool_)
    g = 0
    for k in range(starts.size):
        if codes[starts[k]] >= 0x250 or (wanted.size and not wanted[k]):
            continue
        chars[0], changed[0], m = 1, False, 1  # the token's start
        for i in range(starts[k], ends[k]):
            c = codes[i]
            f = fold[c] if c <= 0xFFFF else c
            if f == chars[m - 1]:
                changed[m - 1] = changed[m - 1] or f != c
                continue
            chars[m], changed[m] = f, f != c
            m += 1
        chars[m], changed[m] = 2, False  # and its end
        m += 1
        for j in range(max(m - size, 0) + 1):
            h, accent = np.uint64(0xCBF29CE484222325), False
            for i in range(j, min(j + size, m)):
                h = (h ^ np.uint64(chars[i])) * np.uint64(0x100000001B3)
                accent = accent or changed[i]
            ids[g], folded[g], token[g] = _bucket(h, buckets), accent, k
            g += 1
    return ids[:g], folded[:g], token[:g]


IDENTITY = np.arange(1 << 16, dtype=np.int32)
ARGUMENT_MARKS = np.array([ord("%"), ord("$"), ord("{")])


def argument_tokens(text: tuple) -> np.ndarray:
    """Whether each token of ``token_ids(text)`` (same order) stands for a program's argument rather than a
    word: it follows ``%``, ``$`` or ``{`` (a placeholder's name: ``%s``, ``$HOME``, ``{0}``) or starts with an
    ASCII digit (a number, a width such as ``%3d``'s)."""
    codes, sentence_of, n = text
    starts, _, _ = token_bounds(codes, sentence_of, n, SEPARATORS, CJK)
    return _arguments(codes, starts)


def token_marks(text: tuple) -> tuple[np.ndarray, np.ndarray]:
    """``argument_tokens(text)``, and whether white space lies between each token and the token before it (a
    sentence's first token: the end mark before it is white space): the tokens that start a word written between
    spaces (``l'icône`` is one such word of two tokens); one pass over the tokens' bounds for both."""
    codes, sentence_of, n = text
    starts, ends, _ = token_bounds(codes, sentence_of, n, SEPARATORS, CJK)
    spaces = np.r_[0, np.cumsum(SPACE[np.minimum(codes, 0xFFFF)])]
    spaced = np.r_[True, spaces[starts[1:]] > spaces[ends[:-1]]] if starts.size else np.zeros(0, dtype=bool)
    return _arguments(codes, starts), spaced


def _arguments(codes: np.ndarray, starts: np.ndarray) -> np.ndarray:
    first = codes[starts]
    return ((starts > 0) & np.isin(codes[np.maximum(starts - 1, 0)], ARGUMENT_MARKS)) | ((first >= 48) & (first <= 57))


@numba.njit(cache=True, nogil=True)
def token_bounds(codes, sentence_of, n, separators, kinds):  # pragma: no cover - compiled
    """Start and end (exclusive) of every token of the joined sentences' code points (a maximal run of
    non-separators of one kind, ``kinds``: ``CJK``, or a table of kinds as ``KATAKANA_WORDS``; a character of kind 1,
    kana or Han, apart), and the tokens of each of the ``n`` sentences."""
    starts, ends, counts = np.empty(codes.size, np.int64), np.empty(codes.size, np.int64), np.zeros(n, np.int64)
    k, inside, previous = 0, False, 0
    for i in range(codes.size + 1):
        c = codes[i] if i < codes.size else 10
        b = min(c, 0xFFFF)
        kind = np.int64(kinds[b])
        split = separators[b] or (inside and (kind == 1 or kind != previous))  # kind 1 apart, a run one kind
        if inside and (split or i == codes.size):
            ends[k] = i
            counts[sentence_of[i - 1]] += 1
            k += 1
            inside = False
        if i == codes.size or separators[b]:
            continue
        if not inside:
            inside, starts[k] = True, i
        previous = kind
    return starts[:k], ends[:k], counts


@numba.njit(cache=True, nogil=True)
def _token_sequences(codes, sentence_of, n, buckets, separators, kinds, fold, collapse, stem,
                     hangul_stem):  # pragma: no cover - compiled
    """Token ids, the ids of their stems, tokens per sentence, and whether a letter of each token folded: each
    BMP code point is hashed as ``fold`` maps it, and with ``collapse`` a letter equal to the one before is
    skipped; a stem's id hashes only the token's first ``stem`` code points (``hangul_stem`` if it starts with a
    Hangul syllable)."""
    starts, ends, counts = token_bounds(codes, sentence_of, n, separators, kinds)
    ids, stems, folded = np.empty(starts.size, np.int32), np.empty(starts.size, np.int32), np.zeros(starts.size,
                                                                                                      np.bool_)
    for k in range(starts.size):
        h, last, changed = np.uint64(0xCBF29CE484222325), -1, False
        stem_end = starts[k] + (hangul_stem if 0xAC00 <= codes[starts[k]] <= 0xD7A3 else stem)
        for i in range(starts[k], ends[k]):
            if i == stem_end:
                stems[k] = _bucket(h, buckets)
            c = codes[i]
            f = fold[c] if c <= 0xFFFF else c
            changed = changed or f != c
            if collapse and f == last:
                continue
            last = f
            h = (h ^ np.uint64(f)) * np.uint64(0x100000001B3)
        ids[k] = _bucket(h, buckets)
        if ends[k] <= stem_end:
            stems[k] = ids[k]
        folded[k] = changed
    return ids, stems, counts, folded
