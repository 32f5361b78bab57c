"""Per-pair features of the learned filter score, vectorised over a block of pairs.

Two kinds, computed in different passes (passes.py):

* *pair features* need nothing but the pair: log lengths and length ratios, agreement of
  numbers, placeholders/markup, URLs, punctuation, the final mark and capitalised tokens between the sides, and
  (with declared languages) the language-ID posterior of each side's expected language.
  Computed in the score pass, for the pairs it scores only (not for duplicates).
* *corpus features* need statistics counted on the corpus in the screen pass: the fluency and
  typicality of each side (corpus.py). PHSIC (Yokoi et al. 2018, Eq. 18) and the word-alignment features
  (alignment.py: IBM model 1 tables fitted by EM, the lexical translation score) are added by the
  scorer (extractor.py).

Over 200 lines on purpose: each numba kernel sits beside the one function that calls it.
"""

from __future__ import annotations

import zlib

import numba
import numpy as np

from ..encoders import sort_segment
from ..hashing import FNV_OFFSET, FNV_PRIME, finish32
from ..text import LOWER, SEPARATORS, SPACE, TextStats
from .patterns import PATTERNS, canonical_item
from .spelled_numbers import complete_numbers

AGREEMENT = ("numbers", "placeholders", "urls", "capitals")
PAIR_FEATURES = ("src_chars", "tgt_chars", "char_ratio", "word_ratio", *AGREEMENT, "punctuation", "ending",
                 "sentences")
LANGUAGE_FEATURES = ("src_lang", "tgt_lang")

_DIGIT_VALUE = np.array([int(chr(c)) if chr(c).isdecimal() else -1 for c in range(1 << 16)], dtype=np.int32)
# Punctuation classes, full-width and CJK forms mapped onto their ASCII class.
_PUNCTUATION_CLASSES = [".。．｡", ",、，､", ":：", ";；", "!！", "?？", "(（", ")）", "\"'「」『』“”‘’«»„",
                        "%％", "-–—", "/／"]


def _punctuation_table() -> np.ndarray:
    table = np.zeros(1 << 16, dtype=np.int8)
    for index, characters in enumerate(_PUNCTUATION_CLASSES, start=1):
        table[[ord(c) for c in characters]] = index
    return table


_PUNCTUATION = _punctuation_table()
# Marks that end a sentence before white space and more text, and the ideographic and full-width ones,
# which end one before any more text (no space follows them) but a closing mark or another such mark.
_SENTENCE_END = np.zeros(1 << 16, dtype=np.int8)
_SENTENCE_END[[ord(c) for c in ".!?…"]] = 1
_SENTENCE_END[[ord(c) for c in "。！？｡．"]] = 2
_CLOSING = np.zeros(1 << 16, dtype=bool)
_CLOSING[[ord(c) for c in ")]}）」』】〕》〉\"'”’»"]] = True


# -- pair features -----------------------------------------------------------------------------
def pair_features(src: list[str], tgt: list[str], s: TextStats, t: TextStats, items: tuple[dict, dict] | None = None
                  ) -> np.ndarray:
    """The PAIR_FEATURES of each pair, (n, 11) float32; ``s``, ``t``: the sides' text statistics;
    ``items``: the sides' ``side_items`` if the caller has them already."""
    columns = [np.log1p(s.lengths), np.log1p(t.lengths), np.log1p(t.lengths) - np.log1p(s.lengths),
               np.log1p(t.words) - np.log1p(s.words)]
    src_items, tgt_items = items or pair_items(src, tgt, s, t)
    columns += [item_agreement(src_items[kind], tgt_items[kind], len(src)) for kind in AGREEMENT]
    columns += [punctuation_agreement(s, t), ending_agreement(s, t), sentence_agreement(s, t)]
    return np.stack(columns, axis=1).astype(np.float32)


def side_items(sentences: list[str], stats: TextStats) -> dict[str, tuple[np.ndarray, np.ndarray]]:
    """(sentence index, 32-bit hash) of every number, placeholder, URL and capitalised token of one side.

    One compiled pass over the code points finds the numbers and capitalised tokens and flags the
    sentences where the regular expression of placeholders or URLs may match; it runs on those
    only. Only sentences with ``/`` or ``@`` are searched for URLs (so ``www.example.org``
    alone is not counted).
    """
    numbers, capitals, flags = _scan_items(stats.codes, stats.lengths, _DIGIT_VALUE, SEPARATORS)
    items = {"numbers": numbers, "capitals": capitals}
    for column, kind in enumerate(PATTERNS):
        positions, hashes = [], []
        for index in np.flatnonzero(flags[:, column]).tolist():
            for match in PATTERNS[kind].finditer(sentences[index]):
                positions.append(index)
                hashes.append(zlib.crc32(canonical_item(match.group()).encode("utf-8", "surrogatepass")))
        items[kind] = (np.array(positions, dtype=np.int64), np.array(hashes, dtype=np.int64))
    return items


def pair_items(src: list[str], tgt: list[str], s: TextStats, t: TextStats) -> tuple[dict, dict]:
    """``side_items`` of both sides, each side's numbers completed by those the other side writes in
    digits and this one spells out (spelled_numbers.complete_numbers)."""
    items = side_items(src, s), side_items(tgt, t)
    items[0]["numbers"], items[1]["numbers"] = complete_numbers(src, tgt, items[0]["numbers"], items[1]["numbers"])
    return items


def matched_items(sentences: list[str], stats: TextStats, kind: str) -> tuple[np.ndarray, np.ndarray]:
    """(sentence index, 32-bit hash) of every number / placeholder / URL / capitalised token."""
    return side_items(sentences, stats)[kind]


@numba.njit(cache=True, nogil=True)
def _scan_items(codes, lengths, digit_value, separators):  # pragma: no cover - compiled
    """Over sentences joined by one separator each: (sentence, hash) of every maximal run of
    decimal digits (hashed as ASCII digits; not the argument number of a positional ``%1$s``) and
    of every token (maximal run of non-separators) that starts with A-Z and is not its sentence's first; and
    per sentence two flags: it holds one of ``%{$<&`` (placeholders); it holds ``@`` or ``://``, or both
    ``www.`` and ``/`` (URLs and e-mail addresses: a sentence needs ``/`` or ``@`` to be searched at all,
    and a match needs ``://``, ``www.`` or ``@``)."""
    n = lengths.size
    number_sentence, number_hash = np.empty(codes.size, np.int64), np.empty(codes.size, np.int64)
    capital_sentence, capital_hash = np.empty(codes.size, np.int64), np.empty(codes.size, np.int64)
    flags = np.zeros((n, 2), dtype=np.bool_)
    numbers = capitals = 0
    start = 0
    for r in range(n):
        end = start + lengths[r]
        tokens = 0
        in_digits = in_token = capital = slash = www = positional = False
        number, token = FNV_OFFSET, FNV_OFFSET
        for i in range(start, end):
            c = codes[i]
            b = min(c, 0xFFFF)
            digit = digit_value[b]
            if digit >= 0:
                if not in_digits:
                    in_digits, number, positional = True, FNV_OFFSET, i > start and codes[i - 1] == 37
                number = (number ^ np.uint64(digit + 48)) * FNV_PRIME
            elif in_digits:
                if not (positional and c == 36):  # not the argument number of %1$s
                    number_sentence[numbers], number_hash[numbers] = r, finish32(number)
                    numbers += 1
                in_digits = False
            if separators[b]:
                if in_token and capital:
                    capital_sentence[capitals], capital_hash[capitals] = r, finish32(token)
                    capitals += 1
                in_token = False
            else:
                if not in_token:
                    in_token, capital, token = True, tokens > 0 and 65 <= c <= 90, FNV_OFFSET
                    tokens += 1
                if capital:
                    token = (token ^ np.uint64(c)) * FNV_PRIME
            if c == 37 or c == 123 or c == 36 or c == 60 or c == 38:
                flags[r, 0] = True
            elif c == 64 or (c == 58 and i + 2 < end and codes[i + 1] == 47 and codes[i + 2] == 47):
                flags[r, 1] = True
            elif c == 47:
                slash = True
            elif c == 119 and i + 3 < end and codes[i + 1] == 119 and codes[i + 2] == 119 and codes[i + 3] == 46:
                www = True
        flags[r, 1] |= slash and www
        if in_digits:
            number_sentence[numbers], number_hash[numbers] = r, finish32(number)
            numbers += 1
        if in_token and capital:
            capital_sentence[capitals], capital_hash[capitals] = r, finish32(token)
            capitals += 1
        start = end + 1
    return ((number_sentence[:numbers].copy(), number_hash[:numbers].copy()),
            (capital_sentence[:capitals].copy(), capital_hash[:capitals].copy()), flags)


def item_agreement(src: tuple[np.ndarray, np.ndarray], tgt: tuple[np.ndarray, np.ndarray], n: int) -> np.ndarray:
    """|S & T| / |S | T| of each pair's sets of items; 1 when neither side has any."""
    def by_sentence(sentence, hashes):
        order = np.argsort(sentence, kind="stable")
        return np.concatenate([[0], np.cumsum(np.bincount(sentence, minlength=n))]), hashes[order]

    return _agreement(*by_sentence(*src), *by_sentence(*tgt))


@numba.njit(cache=True, nogil=True)
def _agreement(s_ptr, s_items, t_ptr, t_items):  # pragma: no cover - compiled
    """|S & T| / |S | T| per row of the CSR item lists (sorted in place), 1 when both are empty."""
    out = np.empty(len(s_ptr) - 1)
    for r in range(len(out)):
        sort_segment(s_items, s_items, s_ptr[r], s_ptr[r + 1])
        sort_segment(t_items, t_items, t_ptr[r], t_ptr[r + 1])
        i, j, i_end, j_end = s_ptr[r], t_ptr[r], s_ptr[r + 1], t_ptr[r + 1]
        a = b = common = 0  # distinct items of each side, and in both
        while i < i_end or j < j_end:
            if j == j_end or (i < i_end and s_items[i] < t_items[j]):
                a, i = a + 1, _skip(s_items, i, i_end)
            elif i == i_end or t_items[j] < s_items[i]:
                b, j = b + 1, _skip(t_items, j, j_end)
            else:
                a, b, common = a + 1, b + 1, common + 1
                i, j = _skip(s_items, i, i_end), _skip(t_items, j, j_end)
        out[r] = 1.0 if a + b == 0 else common / (a + b - common)
    return out


@numba.njit(cache=True, nogil=True)
def _skip(items, i, end):  # pragma: no cover - compiled
    """The position after the run of items equal to items[i]."""
    value = items[i]
    while i < end and items[i] == value:
        i += 1
    return i


def punctuation_agreement(src: TextStats, tgt: TextStats) -> np.ndarray:
    """sum_c min(s_c, t_c) / sum_c max(s_c, t_c) over punctuation classes; 1 when neither has any."""
    counts = []
    for stats in (src, tgt):
        n = stats.lengths.size
        cls = _PUNCTUATION[np.minimum(stats.codes, 0xFFFF)]
        marked = cls > 0
        flat = stats.sentence_of[marked] * len(_PUNCTUATION_CLASSES) + (cls[marked] - 1)
        counts.append(np.bincount(flat, minlength=n * len(_PUNCTUATION_CLASSES)).reshape(n, -1))
    low, high = np.minimum(*counts).sum(axis=1), np.maximum(*counts).sum(axis=1)
    return np.where(high > 0, low / np.maximum(high, 1), 1.0)


def ending_agreement(src: TextStats, tgt: TextStats) -> np.ndarray:
    """1 where both sides end in the same punctuation class (or both in none), else 0: a segment cut
    short or joined to the next one ends differently from its translation (OpusFilter's
    TerminalPunctuationFilter looks at the same mark)."""
    src_end, tgt_end = (_PUNCTUATION[np.clip(stats.last_characters(), 0, 0xFFFF)] for stats in (src, tgt))
    return (src_end == tgt_end).astype(np.float64)


def sentence_breaks(stats: TextStats) -> np.ndarray:
    """How many times each sentence ends a sentence of its own and goes on to another: a ``. ! ? …`` before
    white space and a next character that is no lower-case letter (``etc. and``, Hungarian ``stb. és`` go
    on), or an ideographic or full-width ``。 ！ ？ ．`` before more text, not before a closing mark or another
    such mark."""
    return _sentence_breaks(stats.codes, stats.lengths, _SENTENCE_END, _CLOSING, SPACE, LOWER)


@numba.njit(cache=True, nogil=True)
def _sentence_breaks(codes, lengths, ends, closing, space, lower):  # pragma: no cover - compiled
    counts = np.zeros(lengths.size, np.int64)
    start = 0
    for sentence in range(lengths.size):
        stop = start + lengths[sentence]
        for i in range(start, stop):
            kind = ends[min(codes[i], 0xFFFF)]
            if kind == 0:
                continue
            following = min(codes[i + 1], 0xFFFF) if i + 1 < stop else 0x0A
            j = i + 1  # the next character that is no white space: each run of it is read after one mark only
            while j < stop and space[min(codes[j], 0xFFFF)]:
                j += 1
            if j == stop:
                break
            if kind == 1:
                counts[sentence] += space[following] and not lower[min(codes[j], 0xFFFF)]
            else:
                counts[sentence] += not closing[following] and ends[following] == 0
        start = stop + 1  # past the separator
    return counts


def sentence_agreement(src: TextStats, tgt: TextStats) -> np.ndarray:
    """(1 + min(b_s, b_t)) / (1 + max(b_s, b_t)), b a side's sentence breaks (:func:`sentence_breaks`): the
    sides' numbers of sentences agree (1) or one side has sentences the other lacks, as a segment cut after a
    sentence or joined to the next (OpusFilter's TerminalPunctuationFilter counts every ``. ? ! …``, a decimal
    point's too, not the sentences)."""
    breaks = sentence_breaks(src), sentence_breaks(tgt)
    return (1 + np.minimum(*breaks)) / (1 + np.maximum(*breaks))
