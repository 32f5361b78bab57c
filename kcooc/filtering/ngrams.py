"""The hashed n-grams the learned filter's corpus models count and look up (corpus.py): each side's character
trigrams, its words and word bigrams (whole tokens or their stems, tokens.STEM), with the sentence's start and
end as id 0, the pairs of spelling keys (word_typicality.spelling) and the words' shapes (word_typicality.shape_ids).
"""

from __future__ import annotations

import numba
import numpy as np

from ..hashing import mix64, splitmix64
from .damage import misdecoded_sentences
from .tokens import folded_grams, token_and_stem_ids
from .word_typicality import FOLD, GRAM, last_words, shape_ids, spelling_keys


def trigram_ids(text: tuple, buckets: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Hashed ids of every character trigram and of its first two characters, and its sentence.

    ``text`` is ``lowered(sentences)``: each sentence is followed by an end mark, so a trigram
    may end a sentence but not span two. The hash is splitmix64 of the three code points packed
    into 63 bits (code points are < 2^21).
    """
    codes, sentence_of, _ = text
    return _trigrams(codes.astype(np.uint64), sentence_of, np.uint64(buckets))


@numba.njit(cache=True, nogil=True)
def _trigrams(codes, sentence_of, buckets):  # pragma: no cover - compiled
    size = max(len(codes) - 2, 0)
    trigram, context, sentence = np.empty(size, np.int64), np.empty(size, np.int64), np.empty(size, np.int64)
    k = 0
    for i in range(size):
        if codes[i] == 10 or sentence_of[i] != sentence_of[i + 2]:
            continue
        pair = codes[i] | (codes[i + 1] << np.uint64(21))
        trigram[k] = np.int64(splitmix64(pair | (codes[i + 2] << np.uint64(42))) % buckets)
        context[k] = np.int64(splitmix64(pair) % buckets)
        sentence[k] = sentence_of[i]
        k += 1
    return trigram[:k], context[:k], sentence[:k]


def word_bigrams(text: tuple, word_buckets: int) -> tuple[np.ndarray, ...]:
    """Every word of the sentences (``text``: their ``lowered`` code points; tokens.token_ids: hashed into ids
    1 .. word_buckets - 1) with the word before it (0 before the first), its sentence, and the same two of the
    words' stems (tokens.STEM, hashed as there): previous, word, sentence, previous stem, stem."""
    ids, stem_ids, indptr = token_and_stem_ids(text, word_buckets - 1)
    lengths = np.diff(indptr)
    first = np.zeros(ids.size, dtype=bool)
    first[indptr[:-1][lengths > 0]] = True
    word, stem = ids.astype(np.int64) + 1, stem_ids.astype(np.int64) + 1
    return (np.where(first, 0, np.r_[0, word[:-1]]), word, np.repeat(np.arange(text[2]), lengths),
            np.where(first, 0, np.r_[0, stem[:-1]]), stem)


def spelling_pairs(sentences: list[str], text: tuple, previous: np.ndarray, sentence: np.ndarray, word_buckets: int
                   ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Each word's spelling key and whether it had a diacritic (word_typicality.spelling_keys), and the hashed
    pair of the key of the word before it (0 before the first) and its own; ``previous``, ``sentence``:
    word_bigrams' of ``text``, the ``lowered`` code points of ``sentences``. A word of a sentence whose UTF-8 was
    read as Latin-1 or cp1252 (damage.misdecoded_sentences) had none: its ``Ã``, ``ì`` or ``ë`` are bytes shown
    as letters, and counted as accents they would make the corpus's every ``a``, ``i`` or ``e`` look like a word
    that lost one."""
    keys, had_accent = spelling_keys(text, word_buckets)
    with_accent = np.unique(sentence[had_accent])  # the only sentences where it matters
    misdecoded = np.zeros(text[2], dtype=bool)
    misdecoded[with_accent] = misdecoded_sentences([sentences[i] for i in with_accent.tolist()])
    return (keys, had_accent & ~misdecoded[sentence],
            bigram_ids(np.where(previous == 0, 0, np.r_[0, keys[:-1]]), keys, word_buckets))


def spelling_grams(text: tuple, word_buckets: int, had_accent: np.ndarray, wanted: np.ndarray | None = None
                   ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The words' folded character n-grams (tokens.folded_grams, ``GRAM`` characters; ``wanted``: of those
    words only): their ids, whether a letter of each folded (only in a word that ``had_accent``: spelling_pairs),
    and each gram's word."""
    grams, folded, token = folded_grams(text, word_buckets, FOLD, GRAM, wanted)
    return grams, folded & had_accent[token], token


def word_shapes(sentences: list[str], previous: np.ndarray, sentence: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``word_bigrams``' previous and word of the words' shapes (word_typicality.shape_ids): ``previous``,
    ``sentence`` of the words of ``sentences`` as ``word_bigrams`` gives them."""
    shape = shape_ids(sentences, np.bincount(sentence, minlength=len(sentences)))
    return np.where(previous == 0, 0, np.r_[0, shape[:-1]]), shape


def bigram_ids(previous: np.ndarray, word: np.ndarray, word_buckets: int) -> np.ndarray:
    return (mix64(previous.astype(np.uint64) * np.uint64(word_buckets) + word.astype(np.uint64))
            % np.uint64(word_buckets)).astype(np.int64)


def sentence_bigram_ids(previous: np.ndarray, word: np.ndarray, word_buckets: int) -> np.ndarray:
    """The ids of every bigram of the sentences: each word after the one before it (the start, 0, before the
    first), and the end (0) after each sentence's last word, in the order of the words, each end after its word."""
    ids = bigram_ids(previous, word, word_buckets)
    last = np.flatnonzero(last_words(previous))
    return np.insert(ids, last + 1, bigram_ids(word[last], np.zeros(last.size, np.int64), word_buckets))


def sentence_bigram_rows(previous: np.ndarray, sentence: np.ndarray) -> np.ndarray:
    """The sentence of each id of ``sentence_bigram_ids``."""
    last = np.flatnonzero(last_words(previous))
    return np.insert(sentence, last + 1, sentence[last])
