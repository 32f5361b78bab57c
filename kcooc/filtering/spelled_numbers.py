"""Numbers written in digits on one side of a pair and in words on the other.

Translators often spell out what the source writes in digits, or the reverse: ``two arrays`` /
``2つの行列``, ``2D`` / ``二次元``, ``power of 2`` / ``Zweierpotenz``, ``top 3`` / ``les trois
plus``. Compared as digit strings alone, such a clean pair has a number on one side only and looks
like a pair whose number was changed. :func:`complete_numbers` gives each side the numbers that the
other side writes in digits and this side spells out, so both the agreement and the mismatch of
numbers see them as equal. A spelled number never counts on its own: a side gains only numbers the
other side has in digits and lacks, so a changed digit (``2つ`` -> ``5つ`` against ``two``) stays
a mismatch.

Spelled forms known: English, German, French and Spanish number words 0-12, the tens to 50, 100 and
1000 and the first ordinals, the months' names (``April`` / ``4月``) and the bases of counting
(``hexadecimal`` / ``16 進数``, octal, decimal); German compounds starting with a number word (``zweidimensional``,
``Dreifachklick``, ``Drittanbieter``) and Slavic ones of 1-4 (``тривимірний``, ``dwuwymiarowy``: 3D, 2D); Han
numerals (Japanese and Chinese), each character on its own.
"""

from __future__ import annotations

import re
from collections import Counter
from functools import cache

import numpy as np

from ..hashing import item_hashes
from .mismatch import item_balance

_WORDS = {
    0: "zero null zéro cero",
    1: "one first single once ein eine einen einem einer eines eins erste ersten erster erstes einzeln "
       "un une premier première uno una primer primero primera",
    2: "two second twice double dual zwei zweite zweiten zweiter zweimal deux deuxième seconde dos segundo segunda",
    3: "three third triple drei dritte dritten trois troisième tres tercer tercero tercera",
    4: "four fourth vier vierte quatre quatrième cuatro cuarto",
    5: "five fifth fünf fünfte cinq cinquième cinco quinto",
    6: "six sixth sechs sechste sixième seis sexto",
    7: "seven seventh sieben siebte sept septième siete séptimo",
    8: "eight eighth acht achte huit huitième ocho octavo",
    9: "nine ninth neun neunte neuf neuvième nueve noveno",
    10: "ten tenth zehn zehnte dix dixième diez décimo",
    11: "eleven elf onze once",
    12: "twelve zwölf douze doce",
    20: "twenty zwanzig vingt veinte",
    30: "thirty dreißig trente treinta",
    40: "forty vierzig quarante cuarenta",
    50: "fifty fünfzig cinquante cincuenta",
    100: "hundred hundert cent cien ciento",
    1000: "thousand thousands tausend mille mil",
}
# Months, which Japanese, Chinese and Korean write as numbers (April: 4月, 4월), and the bases of counting
# (hexadecimal: 16 進数).
_MONTHS = ("january januar janvier enero jan", "february februar février febrero feb",
           "march märz mars marzo", "april avril abril apr", "may mai mayo", "june juni juin junio jun",
           "july juli juillet julio jul", "august août agosto aug", "september septembre septiembre sep",
           "october oktober octobre octubre oct okt", "november novembre noviembre nov",
           "december dezember décembre diciembre dec")
_BASES = {8: "octal oktal", 10: "decimal dezimal décimal", 16: "hex hexadecimal hexadezimal hexadécimal"}
# German and the Slavic languages write numbers into compounds: the number word starts the word (Drittanbieter =
# 3rd party, трёхмерный / тривимірний / trójwymiarowy / třírozměrný = 3D, двовимірний = 2D).
_STEMS = {"zwei": 2, "drei": 3, "dritt": 3, "vier": 4, "fünf": 5, "sechs": 6, "sieben": 7, "acht": 8, "neun": 9,
          "zehn": 10, "zwölf": 12,
          "одно": 1, "jedno": 1, "дву": 2, "дво": 2, "dwu": 2, "dvou": 2, "dvoj": 2, "трех": 3, "трёх": 3, "три": 3,
          "трьох": 3, "trój": 3, "troj": 3, "tří": 3, "четырех": 4, "четырёх": 4, "чотири": 4, "чотирьох": 4,
          "cztero": 4, "čtyř": 4}
_HAN = {"〇": 0, "零": 0, "一": 1, "二": 2, "三": 3, "四": 4, "五": 5, "六": 6, "七": 7, "八": 8, "九": 9, "十": 10,
        "百": 100, "千": 1000}


def _values_of_words() -> dict[str, tuple[int, ...]]:
    values: dict[str, tuple[int, ...]] = {}
    for value, words in [*_WORDS.items(), *enumerate(_MONTHS, start=1), *_BASES.items()]:
        for word in words.split():
            values[word] = values.get(word, ()) + (value,)
    return values


_VALUES = _values_of_words()
_PATTERN = re.compile(r"\b(?:(%s)\w*|(%s))\b|([%s])" % (
    "|".join(_STEMS), "|".join(sorted(_VALUES, key=len, reverse=True)), "".join(_HAN)))


def spelled_values(sentence: str) -> Counter:
    """How often each number is spelled out in ``sentence`` (words, compounds, Han numerals)."""
    found: Counter = Counter()
    for stem, word, han in _PATTERN.findall(sentence.lower()):
        if stem:
            found[_STEMS[stem]] += 1
        elif word:
            found.update(_VALUES[word])
        else:
            found[_HAN[han]] += 1
    return found


@cache
def _digit_hashes() -> dict[int, int]:
    """Each spelled value's hash as features.side_items hashes the digit string."""
    values = sorted({*(v for vs in _VALUES.values() for v in vs), *_HAN.values()})
    return dict(zip(values, item_hashes([str(v) for v in values]).tolist()))


def complete_numbers(src: list[str], tgt: list[str], src_numbers: tuple[np.ndarray, np.ndarray],
                     tgt_numbers: tuple[np.ndarray, np.ndarray]
                     ) -> tuple[tuple[np.ndarray, np.ndarray], tuple[np.ndarray, np.ndarray]]:
    """The sides' (sentence index, hash) number items, each side completed by the numbers the other side
    has in digits more often than this one and this side spells out (at most that surplus, at most as often
    as spelled). Only the pairs with such a surplus are searched for words."""
    unique, balance = item_balance(src_numbers, tgt_numbers)
    hashes = _digit_hashes()
    completed = []
    for side, (texts, numbers) in enumerate(((src, src_numbers), (tgt, tgt_numbers))):
        surplus = balance < 0 if side == 0 else balance > 0  # the other side has more of these
        wanted = dict(zip(unique[surplus].tolist(), np.abs(balance[surplus]).astype(np.int64).tolist()))
        rows, added = [], []
        for row in np.unique(unique[surplus] >> 32).tolist():
            for value, count in spelled_values(texts[row]).items():
                key = row << 32 | hashes[value]
                for _ in range(min(count, wanted.get(key, 0))):
                    rows.append(row)
                    added.append(hashes[value])
        completed.append((np.concatenate([numbers[0], np.array(rows, dtype=np.int64)]),
                          np.concatenate([numbers[1], np.array(added, dtype=np.int64)])))
    return completed[0], completed[1]
