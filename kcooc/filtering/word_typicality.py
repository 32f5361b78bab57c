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

Order (``swaps_src``, ``swaps_tgt``): adjacent words the corpus writes far more often the other way
round (misordered words, one of the noise kinds of Khayrallah & Koehn 2018). With c(v w) the corpus's
count of the word bigram v w,

    swap(v w) = log (c(v w) + 1/2) / (c(w v) + 1/2),

and a side's feature is its lowest adjacent pair's, at most 0 (0 for fewer than two words); c(v w), the
sentence's own bigram, is counted without the sentence's own occurrence (corpus.CorpusModel).

Words and bigrams are hashed as the word fluency's (corpus.word_bigrams, ``CorpusCounts``).
"""

from __future__ import annotations

import unicodedata

import numpy as np

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


def swaps(previous: np.ndarray, sentence: np.ndarray, n: int, bigrams: np.ndarray, reverse: np.ndarray) -> np.ndarray:
    """Each of ``n`` sentences' lowest swap(v w) (module docstring); ``previous``, ``sentence``: corpus.word_bigrams
    (``previous`` 0 before a sentence's first word), ``bigrams``: c(v w) of each word, without the sentence's own
    occurrences, ``reverse``: c(w v), with them."""
    inside = previous > 0
    return lowest(np.log((bigrams[inside] + 0.5) / (reverse[inside] + 0.5)), sentence[inside], n)


def lowest(values: np.ndarray, sentence: np.ndarray, n: int) -> np.ndarray:
    """Per sentence, the lowest of its ``values`` and 0."""
    out = np.zeros(n)
    np.minimum.at(out, sentence, values)
    return out
