"""How typical each side's words are of the corpus's own: their spelling and their order.

Spelling (``spelling_src``, ``spelling_tgt``): words written without the diacritics the corpus
writes them with. A target whose Latin letters lost their diacritics (``Größe`` -> ``Grosse``, ``fenêtre`` ->
``fenetre``, ``źródło`` -> ``zrodlo``: text that went through an ASCII-only tool) keeps its length,
its words' order, its numbers and mostly its character trigrams, so no other feature moves much. The
corpus itself says which spelling is the usual one: each word's *key* is the word lower-cased,
its Latin letters without diacritics (``FOLD``: the base letter of the canonical decomposition, and
ß, ł, ø, đ, æ, œ, ı by hand) and doubled letters written once (``Straße`` and ``Strasse`` share the
key ``strase``). The corpus counts, per key, the words that had a diacritic (``accented``); a word
without one is then as typical as its share of its key's words:

    spelling(w) = log (c(w) + 1/2) / (c(w) + accented(key(w)) + 1/2)

0 for a word whose key the corpus never writes with a diacritic, strongly negative for a word the
corpus writes with one nearly always. A side's ``spelling`` feature is its lowest word's (0 without
words). Only Latin letters fold: a Cyrillic й or a kana with its voicing mark is another letter, not
an accent.

Order (``swaps_src``, ``swaps_tgt``): words in an order the corpus itself makes unlikely (misordered
words, one of the noise kinds of Khayrallah & Koehn 2018). Under the corpus's interpolated word-bigram
model (corpus.CorpusModel: p(w | v) = (c(vw) + b p(w)) / (c(v) + b), with the sentence's start and end as
words), each sentence is compared with the same sentence in another order, the test of word-order errors
by language-model ranking:

    swap(k) = log p(sentence) - log p(sentence with its words k and k + 1 exchanged)

for every two adjacent words of a side with spaces (the three bigrams around them change:
c(u v) c(v w) c(w x) against c(u w) c(w v) c(v x), the contexts and unigrams cancel), and for a side written
without spaces (a kana or Han character: its tokens are characters, its misplaced units phrases)

    rotation(k) = log p(X Y) - log p(Y X),   X, Y the sentence's tokens before and after k,

which compares the bigrams at the start, the cut and the end. A side's feature is its lowest value and 0
(0 for fewer than two words): near 0 or above when the corpus shows no other order as likelier,
strongly negative when the other order is what the corpus writes. Every bigram is counted without the
occurrences the sentence itself added (corpus.CorpusModel).

Words and bigrams are hashed as the word fluency's (corpus.word_bigrams, ``CorpusCounts``).
"""

from __future__ import annotations

import unicodedata
from collections.abc import Callable

import numpy as np

from ..text import CJK
from .alignment import folded_tokens

WORD_TYPICALITY_FEATURES = ("spelling_src", "spelling_tgt", "swaps_src", "swaps_tgt")
_BY_HAND = {"ß": "s", "ł": "l", "ø": "o", "đ": "d", "æ": "a", "œ": "o", "ı": "i", "ŀ": "l", "ħ": "h", "þ": "t"}
_LATIN_RANGES = ((0x00C0, 0x0250), (0x1E00, 0x1F00))


def _fold_table() -> np.ndarray:
    """Each BMP code point's folded one: itself, unless a lower-case Latin letter with a diacritic."""
    table = np.arange(1 << 16, dtype=np.int32)
    for low, high in _LATIN_RANGES:
        for code in range(low, high):
            character = chr(code)
            base = _BY_HAND.get(character, unicodedata.normalize("NFD", character)[0])
            if character.islower() and base != character and base.isascii() and base.isalpha():
                table[code] = ord(base)
    return table


FOLD = _fold_table()


def spelling_keys(text: tuple, buckets: int) -> tuple[np.ndarray, np.ndarray]:
    """Each word's key, hashed into [0, buckets) (in the order and with the boundaries of
    ``alignment.token_ids``), and whether the word had a letter that folds; ``text``: the sentences'
    ``lowered`` code points."""
    keys, accented = folded_tokens(text, buckets, FOLD)
    return keys.astype(np.int64), accented


def accented_counts(text: tuple, buckets: int) -> np.ndarray:
    """accented(key): per hashed key, the words of ``text`` (``lowered`` sentences) with that key that had a
    diacritic."""
    keys, accented = spelling_keys(text, buckets)
    return np.bincount(keys[accented], minlength=buckets)


def spelling(text: tuple, word: np.ndarray, sentence: np.ndarray, count: np.ndarray,
             accented: np.ndarray) -> np.ndarray:
    """Each sentence's lowest spelling(w) (module docstring); ``text``: the sentences' ``lowered`` code
    points, ``word``, ``sentence``: their words' ids and their sentences (corpus.word_bigrams),
    ``count``: c(w) of each, without the sentence's own occurrences, ``accented``: accented_counts."""
    keys, had_accent = spelling_keys(text, accented.size)
    log_share = np.where(had_accent, 0.0, np.log((count + 0.5) / (count + accented[keys] + 0.5)))
    return lowest(log_share, sentence, text[2])


def last_words(previous: np.ndarray) -> np.ndarray:
    """Whether each word of corpus.word_bigrams (``previous``: the word before each, 0 before a first) is its
    sentence's last."""
    return np.r_[previous[1:] == 0, True] if previous.size else np.zeros(0, dtype=bool)


def unspaced(text: tuple) -> np.ndarray:
    """Whether each sentence (``text``: lowered code points) has a kana or Han character (its tokens are
    characters, not words)."""
    codes, sentence_of, n = text
    return np.bincount(sentence_of[CJK[np.minimum(codes, 0xFFFF)]], minlength=n) > 0


def swaps(previous: np.ndarray, word: np.ndarray, sentence: np.ndarray, unspaced: np.ndarray,
          count: Callable[[np.ndarray, np.ndarray, np.ndarray], np.ndarray], unigram: np.ndarray, end: float,
          interpolation: float) -> np.ndarray:
    """Each sentence's lowest swap(k), or rotation(k) where ``unspaced`` (module docstring), and 0.

    ``previous``, ``word``, ``sentence``: corpus.word_bigrams (``previous`` 0 before a sentence's first word);
    ``count(v, w, rows)``: c(v w) for the sentences ``rows`` (w = 0: v ends the sentence), without the
    occurrences the sentence itself added; ``unigram``: p(w) of each word; ``end``: p of the end (the start's
    is never needed: it cancels); ``interpolation``: b.
    """
    n, b = unspaced.size, interpolation
    last = last_words(previous)
    following = np.where(last, 0, np.r_[word[1:], 0])
    p_following = np.where(last, end, np.r_[unigram[1:], 0.0])

    def log_term(v, w, p_w, rows):  # log (c(v w) + b p(w)), the part of log p(w | v) that an order changes
        return np.log(count(v, w, rows) + b * p_w)

    into = log_term(previous, word, unigram, sentence)  # the bigram that ends at each word
    out = log_term(word, following, p_following, sentence)  # the bigram that starts at it
    k = np.flatnonzero(previous > 0)  # a cut between words k - 1 and k
    rows = sentence[k]
    starts = np.r_[0, np.cumsum(np.bincount(sentence, minlength=n))][rows]  # each sentence's first word
    ends = np.flatnonzero(last)[np.searchsorted(np.flatnonzero(last), k)]  # and its last
    v, w = word[k - 1], word[k]
    swapped = (into[k - 1] + into[k] + out[k]
               - log_term(previous[k - 1], w, unigram[k], rows) - log_term(w, v, unigram[k - 1], rows)
               - log_term(v, following[k], p_following[k], rows))
    start = np.zeros(k.size, dtype=np.int64)
    rotated = (into[starts] + into[k] + out[ends]
               - log_term(start, w, unigram[k], rows) - log_term(word[ends], word[starts], unigram[starts], rows)
               - log_term(v, start, end, rows))
    values = np.where(unspaced[rows], rotated, np.where(v == w, 0.0, swapped))
    return lowest(values, rows, n)


def lowest(values: np.ndarray, sentence: np.ndarray, n: int) -> np.ndarray:
    """Per sentence, the lowest of its ``values`` and 0."""
    out = np.zeros(n)
    np.minimum.at(out, sentence, values)
    return out
