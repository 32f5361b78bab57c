"""Letters a side's declared language does not write: a language-ID prior that needs no model.

Every language here has a legacy code page, the character set its texts were written in before Unicode
(Shift_JIS for Japanese, Windows-1251 for Russian, ...). A letter that page cannot encode is one the
language's texts (almost) never contain: the simplified Chinese 对, 设, 应 in a side declared Japanese (Japanese
writes 対, 設, 応), Chinese hanzi a Korean side's hanja set lacks, Cyrillic in a side declared German.
``foreign_shares`` gives, per side, the share of its letters the declared language's code page cannot encode
and the pair's other side does not have, Latin letters aside (names and terms in Latin script, Büchi or
Dvořák, appear in the technical text of every language). The identifier (kcooc.langid) reads a two-character
Chinese string as readily as Japanese, and the gate (gate.py) rightly trusts it little on short sides; this
share is certain evidence on any length, and the clean sides of a corpus nearly never have any.

The Cyrillic languages share one code page (Windows-1251) but not one alphabet: Ukrainian writes і, ї, є,
ґ and never ы, э, ъ, ё, Russian the other way round, and the identifier often reads a short Ukrainian side
as Russian or the reverse. For them a Cyrillic letter outside the language's own alphabet (``ALPHABETS``)
is foreign, whatever the code page holds. None of the 38,814 Russian targets of the benchmark's
corpora (Debian's package descriptions and program catalogues) has a Ukrainian letter; 3 of the 44,535
Ukrainian ones have a Russian letter (one a typo: ``звітыв``). Latin alphabets are not used this way:
names and terms copied in Latin script (Dvořák, Nikšić, François) are where a Polish or Italian side
has letters Polish or Italian does not write.

The same alphabets rule out the identifier's rivals (``declared_posterior``): a side that writes ї or є is no
Russian, Bulgarian or Belarusian text, one that writes ы or э no Ukrainian, Bulgarian, Serbian or Macedonian
one, whatever its byte n-grams suggest; the posterior of the declared language is taken among the languages
whose alphabet holds every Cyrillic letter of the side (the declared language itself always stays: its own
foreign letters are ``foreign_shares``' evidence). On the short program messages of the benchmark's
Ukrainian corpus the identifier puts 14% of the clean targets below 1/2 for Ukrainian, most often Russian or
Belarusian; a sixth of those hold a letter that rules the rival out.

Shift_JIS encodes the 6,355 kanji of JIS X 0208, and Chinese writes many of the rarer second level (rows
48-84, ordered by radical) in common words: 个, 从, 于, 档, 搜 (`多个`, `从下向上`, `文档`). Japanese writes those
kanji in rare words amid kana (綺麗, 完璧, 語彙). On a side declared Japanese *without any kana*, a second-level
kanji is therefore foreign too: 24 of the 84 Chinese targets of the benchmark's two Japanese development sets
that have no letter Shift_JIS lacks have one, and 10 of the 60,387 distinct pairs of its two Japanese corpora,
all short labels of rare words (`橙` orange, `拇印` thumbprint, `銛型矢印` harpoon arrow, `康熙部首`, `突厥文字`),
which the filter now ranks low.
"""

from __future__ import annotations

import re
import unicodedata
from functools import lru_cache

import numpy as np

# ISO 639-1 code -> the code page of its legacy texts (Python codec); a language missing here has no
# such share (0): Chinese (its simplified and traditional pages differ) and Persian (letters outside
# Windows-1256). Latin letters never count, so on the pages of Latin script only other scripts do.
CODE_PAGES = {
    **dict.fromkeys(("en", "de", "fr", "es", "it", "nl", "pt", "ca", "gl", "eu", "da", "sv", "no", "nb", "nn",
                     "fi", "is", "ga", "af", "id", "ms", "sw", "cy", "az", "vi"), "cp1252"),
    **dict.fromkeys(("pl", "cs", "sk", "sl", "hr", "bs", "hu", "sq"), "cp1250"),
    **dict.fromkeys(("ru", "uk", "be", "bg", "sr", "mk"), "cp1251"),
    **dict.fromkeys(("lt", "lv", "et"), "cp1257"),
    "ro": "iso8859_16", "tr": "cp1254", "el": "cp1253", "he": "cp1255", "ar": "cp1256", "th": "cp874",
    "ja": "cp932", "ko": "cp949",
}


# ISO 639-1 code -> the lower-case letters of its Cyrillic alphabet (standard orthography).
ALPHABETS = {
    "ru": "абвгдеёжзийклмнопрстуфхцчшщъыьэюя",
    "uk": "абвгґдеєжзиіїйклмнопрстуфхцчшщьюя",
    "be": "абвгдеёжзійклмнопрстуўфхцчшыьэюя",
    "bg": "абвгдежзийклмнопрстуфхцчшщъьюяѝ",
    "sr": "абвгдђежзијклљмнњопрстћуфхцчџш",
    "mk": "абвгдѓежзѕијклљмнњопрстќуфхцчџш",
    "kk": "аәбвгғдеёжзийкқлмнңоөпрстуұүфхһцчшщъыіьэюя",
    "ky": "абвгдеёжзийклмнңоөпрстуүфхцчшщъыьэюя",
    "mn": "абвгдеёжзийклмноөпрстуүфхцчшщъыьэюя",
}
CYRILLIC = (0x400, 0x530)  # the Cyrillic blocks a legacy code page can encode
KANA = re.compile("[\u3040-\u30ff\u31f0-\u31ff\uff66-\uff9d]")  # hiragana, katakana (also half-width)


def _letters_outside(alphabet: str) -> list[str]:
    """The Cyrillic letters (of the blocks a legacy page can encode) whose lower case is not in ``alphabet``."""
    return [c for c in map(chr, range(*CYRILLIC)) if c.isalpha() and c.lower() not in alphabet]


@lru_cache(maxsize=None)
def _outside(alphabet: str) -> re.Pattern | None:
    """A pattern of the Cyrillic letters outside ``alphabet`` (None without an alphabet)."""
    return re.compile("[" + "".join(_letters_outside(alphabet)) + "]") if alphabet else None


@lru_cache(maxsize=1 << 16)
def _foreign(char: str, codec: str, alphabet: str) -> bool:
    """Whether ``char`` is a letter, not a Latin one, that ``codec`` cannot encode, or a Cyrillic letter outside
    ``alphabet`` (when it is not empty)."""
    if not char.isalpha():
        return False
    if alphabet and unicodedata.name(char, "").startswith("CYRILLIC"):
        return char.lower() not in alphabet
    try:
        char.encode(codec)
        return False
    except UnicodeEncodeError:
        return not unicodedata.name(char, "").startswith("LATIN")


@lru_cache(maxsize=1)
def second_level_kanji() -> tuple[frozenset, re.Pattern]:
    """The kanji of JIS X 0208's second level (rows 48-84; 3,390), as a set and as a pattern."""
    kanji = set()
    for row in range(48, 85):
        for cell in range(1, 95):
            try:
                kanji.add(bytes([0xA0 + row, 0xA0 + cell]).decode("euc_jp"))
            except UnicodeDecodeError:  # the unused cells at the end of row 84
                pass
    return frozenset(kanji), re.compile("[" + "".join(sorted(kanji)) + "]")


def foreign_shares(texts: list[str], code: str | None, others: list[str]) -> np.ndarray:
    """Per text, the share of its letters that the code page of the language ``code`` cannot encode (or,
    Cyrillic, that its alphabet does not have; or, Japanese without kana, second-level kanji) and its pair's
    other side (``others``) does not have (a name or a symbol copied across is no sign of another language): see
    the module docstring. Float32; 0 for a language without a code page here."""
    codec, alphabet = CODE_PAGES.get(code or ""), ALPHABETS.get(code or "", "")
    shares = np.zeros(len(texts), dtype=np.float32)
    if codec is None:
        return shares
    outside = _outside(alphabet)
    rare, rare_pattern = second_level_kanji() if code == "ja" else (frozenset(), None)
    for i, text in enumerate(texts):
        if text.isascii():
            continue
        unusual = rare_pattern is not None and not KANA.search(text) and rare_pattern.search(text) is not None
        try:
            text.encode(codec)  # the common case: every character has its place
            if not unusual and (outside is None or not outside.search(text)):
                continue
        except UnicodeEncodeError:
            pass
        letters, copied = [char for char in text if char.isalpha()], set(others[i])
        shares[i] = sum((_foreign(char, codec, alphabet) or (unusual and char in rare)) and char not in copied
                        for char in letters) / max(len(letters), 1)
    return shares


@lru_cache(maxsize=None)
def _lacking(languages: tuple[str, ...]) -> tuple[np.ndarray, np.ndarray]:
    """The columns of the ``languages`` with an alphabet here, and per Cyrillic code point the bits (one a column)
    of those whose alphabet lacks the (lower-case) letter."""
    columns = np.array([k for k, code in enumerate(languages) if code in ALPHABETS], dtype=np.int64)
    bits = np.zeros(CYRILLIC[1] - CYRILLIC[0], dtype=np.int64)
    for bit, k in enumerate(columns):
        bits[[ord(c) - CYRILLIC[0] for c in _letters_outside(ALPHABETS[languages[k]])]] |= 1 << bit
    return columns, bits


def declared_posterior(log_posteriors: np.ndarray, languages: tuple[str, ...], code: str, text: tuple
                       ) -> np.ndarray:
    """P(``code`` | side) from the identifier's ``log_posteriors`` (sides x ``languages``), renormalised over the
    languages whose alphabet holds every Cyrillic letter of the side, ``code`` always among them (see the module
    docstring); ``text``: the sides' ``lowered`` code points. Float64."""
    codes, sentence_of, n = text
    column = languages.index(code)
    probability = np.exp(np.asarray(log_posteriors[:, column], dtype=np.float64))
    columns, bits = _lacking(tuple(languages))
    cyrillic = (codes >= CYRILLIC[0]) & (codes < CYRILLIC[1])
    sides = sentence_of[cyrillic]  # ascending: the code points are in the sides' order
    starts = np.flatnonzero(np.diff(sides, prepend=-1))
    lacked = np.zeros(n, dtype=np.int64)
    if starts.size:
        lacked[sides[starts]] = np.bitwise_or.reduceat(bits[codes[cyrillic] - CYRILLIC[0]], starts)
    rows = np.flatnonzero(lacked)
    ruled_out = np.zeros((rows.size, len(languages)), dtype=bool)
    ruled_out[:, columns] = (lacked[rows, None] >> np.arange(columns.size)) & 1
    ruled_out[:, column] = False
    kept = np.where(ruled_out, np.float32(-np.inf), log_posteriors[rows])
    kept -= kept.max(axis=1)[:, None]  # the top is finite: the declared language is kept
    probability[rows] = np.exp(kept[:, column].astype(np.float64)) / np.exp(kept).sum(axis=1, dtype=np.float64)
    return probability
