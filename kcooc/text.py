"""Text primitives over code points, shared by the encoders and the filter (no Python loop per character).

A block of sentences becomes one array of code points with a separator after each sentence
(:func:`code_points`, :func:`lowered`); per-sentence counts (:class:`TextStats`) are ``np.bincount``
over the sentence index of each code point, with properties looked up in tables over the Basic
Multilingual Plane: letters, white space, controls, scripts, the characters that separate tokens
(``SEPARATORS``) and the kana and Han characters that are tokens of their own (``CJK``).
"""

from __future__ import annotations

import string

import numpy as np

# Writing systems by code-point ranges (Unicode blocks). A language's script may combine several.
SCRIPT_RANGES: dict[str, list[tuple[int, int]]] = {
    "latin": [(0x41, 0x5A), (0x61, 0x7A), (0xC0, 0x24F), (0x1E00, 0x1EFF)],
    "greek": [(0x370, 0x3FF), (0x1F00, 0x1FFF)],
    "cyrillic": [(0x400, 0x52F)],
    "hebrew": [(0x590, 0x5FF)],
    "arabic": [(0x600, 0x6FF), (0x750, 0x77F), (0xFB50, 0xFDFF), (0xFE70, 0xFEFF)],
    "devanagari": [(0x900, 0x97F)],
    "thai": [(0xE00, 0xE7F)],
    "hangul": [(0x1100, 0x11FF), (0x3130, 0x318F), (0xAC00, 0xD7AF)],
    "kana": [(0x3040, 0x30FF), (0x31F0, 0x31FF), (0xFF66, 0xFF9F)],
    "han": [(0x3400, 0x4DBF), (0x4E00, 0x9FFF), (0xF900, 0xFAFF)],
}
LANGUAGE_SCRIPTS = {
    "latin": ["latin"], "english": ["latin"], "greek": ["greek"], "cyrillic": ["cyrillic"], "hebrew": ["hebrew"],
    "arabic": ["arabic"], "hindi": ["devanagari"], "thai": ["thai"], "korean": ["hangul", "han"],
    "japanese": ["kana", "han"], "chinese": ["han"],
}
_BMP = 1 << 16


def _tables() -> tuple[dict[str, np.ndarray], np.ndarray, np.ndarray, np.ndarray]:
    characters = [chr(c) for c in range(_BMP)]
    letter = np.fromiter((c.isalpha() for c in characters), dtype=bool, count=_BMP)
    space = np.fromiter((c.isspace() for c in characters), dtype=bool, count=_BMP)
    scripts = {}
    for name, ranges in SCRIPT_RANGES.items():
        table = np.zeros(_BMP, dtype=bool)
        for low, high in ranges:
            table[low : high + 1] = True
        scripts[name] = table & letter
    control = np.zeros(_BMP, dtype=bool)
    control[:0x20] = True
    control[0x7F:0xA0] = True
    control[[0xFFFD, 0xFEFF, 0xFFFE]] = True  # replacement character (mojibake), stray byte-order marks
    return scripts, letter, space, control


_SCRIPTS, LETTER, SPACE, CONTROL = _tables()


def code_points(sentences: list[str], separator: str = "\n") -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(code points of the sentences joined by ``separator``, sentence index of each, lengths)."""
    lengths = np.fromiter(map(len, sentences), dtype=np.int64, count=len(sentences))
    codes = np.frombuffer(separator.join(sentences).encode("utf-32-le"), dtype=np.uint32)
    sentence_of = np.repeat(np.arange(len(sentences)), lengths + 1)[: codes.size]
    return codes, sentence_of, lengths


def bmp(codes: np.ndarray) -> np.ndarray:
    """Indices into the BMP tables; code points beyond it map to U+FFFF (no property set)."""
    return np.minimum(codes, 0xFFFF)


class TextStats:
    """Per-sentence lengths, word counts, letters, control characters and script letters
    (``codes``, ``sentence_of``: the code points joined by newlines, for further counts)."""

    def __init__(self, sentences: list[str]):
        self.codes, self.sentence_of, self.lengths = code_points(sentences, "\n")
        self._n = len(sentences)
        from .text_counts import sentence_counts  # compiled: imported on use, not by every import of this module

        self.letters, controls, self.words = sentence_counts(self.codes, self.sentence_of, self._n, LETTER, CONTROL,
                                                             SPACE)
        joins = np.ones(self._n, dtype=np.int64)  # the separator after every sentence but the last
        joins[-1:] = 0
        self.controls = controls - joins

    def count(self, table: np.ndarray) -> np.ndarray:
        """Characters of each sentence that ``table`` (a BMP table, as LETTER) marks."""
        from .text_counts import table_counts

        return table_counts(self.codes, self.sentence_of, self._n, table)

    def last_characters(self) -> np.ndarray:
        """Code point of each sentence's last character that is not white space (-1 for none)."""
        if self._n == 0:
            return np.zeros(0, dtype=np.int64)
        starts = np.concatenate([[0], np.cumsum(self.lengths[:-1] + 1)])
        # the separators are white space; one more position lets the last start be the end of an empty last sentence
        positions = np.append(np.where(SPACE[bmp(self.codes)], -1, np.arange(self.codes.size)), -1)
        last = np.maximum.reduceat(positions, starts)
        return np.where(last >= 0, self.codes[last].astype(np.int64), -1)

    def script_letters(self, language: str) -> np.ndarray:
        """Letters of each sentence that belong to ``language``'s scripts."""
        table = np.zeros(_BMP, dtype=bool)
        for script in LANGUAGE_SCRIPTS[language]:
            table |= _SCRIPTS[script]
        return self.count(table)


def _separator_table() -> np.ndarray:
    """Separators among the first 65536 code points: ASCII whitespace and punctuation, Latin-1
    symbols, general punctuation, CJK symbols and punctuation, full-width punctuation."""
    table = np.zeros(_BMP, dtype=bool)
    table[[ord(c) for c in string.whitespace + string.punctuation]] = True
    for low, high in [(0x80, 0xBF), (0x2000, 0x206F), (0x3000, 0x303F), (0xFF01, 0xFF0F), (0xFF1A, 0xFF20),
                      (0xFF3B, 0xFF40), (0xFF5B, 0xFF65)]:
        table[low : high + 1] = True
    return table


def _cjk_table() -> np.ndarray:
    """Kana and Han characters (and half-width kana): each is a token of its own."""
    table = np.zeros(_BMP, dtype=bool)
    for low, high in [(0x3040, 0x30FF), (0x3400, 0x4DBF), (0x4E00, 0x9FFF), (0xF900, 0xFAFF), (0xFF66, 0xFF9F)]:
        table[low : high + 1] = True
    return table


SEPARATORS = _separator_table()
CJK = _cjk_table()


def _cased_letters() -> tuple[np.ndarray, np.ndarray]:
    """Upper- and lower-case letters."""
    characters = [chr(c) for c in range(_BMP)]
    upper = np.fromiter((c.isupper() for c in characters), dtype=bool, count=_BMP)
    lower = np.fromiter((c.islower() for c in characters), dtype=bool, count=_BMP)
    return upper, lower


UPPER, LOWER = _cased_letters()


def lowered(sentences: list[str]) -> tuple[np.ndarray, np.ndarray, int]:
    """Code points of the lower-cased sentences, each followed by an end mark (newline), the
    sentence of each code point, and the number of sentences: the input of the filter's character
    trigrams and of its alignment model's token sequences."""
    codes, sentence_of, _ = code_points([s.lower() for s in sentences] + [""], "\n")
    return codes, sentence_of, len(sentences)


def lowered_rows(text: tuple, start: int, stop: int) -> tuple[np.ndarray, np.ndarray, int]:
    """``lowered(sentences[start:stop])`` from ``text = lowered(sentences)`` (a view of its code points)."""
    codes, sentence_of, _ = text
    first, last = np.searchsorted(sentence_of, [start, stop])
    return codes[first:last], sentence_of[first:last] - start, stop - start
