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
"""

from __future__ import annotations

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


@lru_cache(maxsize=1 << 16)
def _foreign(char: str, codec: str) -> bool:
    """Whether ``char`` is a letter, not a Latin one, that ``codec`` cannot encode."""
    if not char.isalpha():
        return False
    try:
        char.encode(codec)
        return False
    except UnicodeEncodeError:
        return not unicodedata.name(char, "").startswith("LATIN")


def foreign_shares(texts: list[str], code: str | None, others: list[str]) -> np.ndarray:
    """Per text, the share of its letters that the code page of the language ``code`` cannot encode
    and its pair's other side (``others``) does not have (a name or a symbol copied across is no
    sign of another language): see the module docstring. Float32; 0 for a language without a code
    page here."""
    codec = CODE_PAGES.get(code or "")
    shares = np.zeros(len(texts), dtype=np.float32)
    if codec is None:
        return shares
    for i, text in enumerate(texts):
        if text.isascii():
            continue
        try:
            text.encode(codec)  # the common case: every character has its place
            continue
        except UnicodeEncodeError:
            pass
        letters, copied = [char for char in text if char.isalpha()], set(others[i])
        shares[i] = sum(_foreign(char, codec) and char not in copied for char in letters) / max(len(letters), 1)
    return shares
