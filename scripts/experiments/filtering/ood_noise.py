"""Out-of-distribution noise for the filtering benchmark: damage the learned score never trains on.

kcooc's learned score trains on synthetic noise (kcooc/filtering/noise.py) and the benchmark's
first seven kinds (benchmark.KINDS) come from the same ideas: misalignment, wrong or source
language, partial or joined segments, numbers. These kinds are what real crawled, converted or
exported corpora show besides; none of them is made by, or shares code with, either of those.
Each damages one side of a clean pair and keeps the other as it is:

* ``misordered``: the words of the target in a damaged order: disjoint pairs of adjacent words
  swapped, each pair with probability 1/2 (at least one swap that changes the text); a target
  written without spaces is cut into phrases that end after a run of hiragana (``ファイルを|開けません``);
  misordered words are a noise kind of Khayrallah & Koehn (2018);
* ``mojibake``: the target's UTF-8 bytes decoded with a legacy code page, as a tool that guessed
  the encoding wrong: windows-1251 for a Cyrillic target (``Файл`` -> ``Р¤Р°Р№Р»``), windows-1252
  otherwise (``Größe`` -> ``GrÃ¶ÃŸe``; a byte it does not define becomes the C1 control of that
  number, as web browsers decode it); only targets with a non-ASCII character;
* ``spacing``: the spaces of the target lost (``Dateikonntenichtgeöffnetwerden``: text extracted
  from PDF or a layout), or a target of one word or in kana or Han letter-spaced (``フ ァ イ ル``;
  a Japanese text without its optional spaces around ``%s`` would be no damage);
* ``markup``: HTML left in one side (the source one time in three): its non-ASCII characters and
  ``& < >`` escaped as character references (``Gr&#246;&#223;e``; sides without non-ASCII
  characters cannot be), or the side wrapped in a tag from ``TAGS`` with one space as ``&nbsp;``;
* ``repeated``: one side (the source one time in three) with its own text twice, or with a run of
  2-4 of its words repeated in place (a stutter); never another segment's text;
* ``length_matched``: the target of a pair of *another source group* (a package description for
  a program message, a desktop string for a command-line one) whose target has the closest length
  (within 10%, at least 2 characters): the right language, a plausible length, unrelated content;
* ``romanised``: the target written in ASCII by anyascii: Cyrillic, Hangul and kana transliterated,
  Latin letters without their diacritics (``Größe`` -> ``Grosse``); only targets with a letter it
  changes (a target whose only non-ASCII characters are typographic quotes, dashes or an ellipsis,
  ``„%s“`` -> ``"%s"``, is a translation as good as before: no noise).

Every draw comes from ``random.Random(f"{seed}:{i}:{kind}")``: a pair's noise of a kind does not
depend on any other pair or kind.
"""

from __future__ import annotations

import html
import random
import re

import numpy as np

OOD_KINDS = ["misordered", "mojibake", "spacing", "markup", "repeated", "length_matched", "romanised"]
TAGS = ['<p>{}</p>', '<div class="content">{}</div>', '<td align="left">{}</td>', '<li><a href="#">{}</a></li>',
        '<span style="font-weight:bold">{}</span>', '{}<br />']
HIRAGANA_PHRASE = re.compile(r"[^\u3041-\u309f]*[\u3041-\u309f]+|[^\u3041-\u309f]+")
KANA_HAN = re.compile(r"[\u3041-\u30ff\u4e00-\u9fff]")
CYRILLIC = re.compile(r"[\u0400-\u04ff]")


def units(text: str) -> tuple[list[str], str]:
    """Words and the joiner; phrases ending after hiragana (joined without spaces) for a text without spaces."""
    words = text.split()
    return (words, " ") if len(words) >= 2 else (HIRAGANA_PHRASE.findall(text.strip()), "")


def misordered(text: str, rng: random.Random) -> str | None:
    parts, joiner = units(text)
    if len(parts) < 2 or len(set(parts)) < 2:
        return None
    while True:
        shuffled, i = list(parts), 0
        while i + 1 < len(shuffled):
            if rng.random() < 0.5 and shuffled[i] != shuffled[i + 1]:
                shuffled[i], shuffled[i + 1] = shuffled[i + 1], shuffled[i]
                i += 1
            i += 1
        if shuffled != parts:
            return joiner.join(shuffled)


def mojibake(text: str) -> str | None:
    if text.isascii():
        return None
    codec = "cp1251" if CYRILLIC.search(text) else "cp1252"

    def byte(b: int) -> str:
        try:
            return bytes([b]).decode(codec)
        except UnicodeDecodeError:
            return chr(b)
    return "".join(byte(b) for b in text.encode("utf-8"))


def spacing(text: str) -> str | None:
    letters = "".join(text.split())
    if len(text.split()) >= 2 and not KANA_HAN.search(text):
        return letters
    return " ".join(letters) if len(letters) >= 2 else None


def markup(text: str, rng: random.Random) -> str:
    if not text.isascii() and rng.random() < 0.5:
        return html.escape(text, quote=False).encode("ascii", "xmlcharrefreplace").decode("ascii")
    words = text.split()
    if len(words) >= 2:
        at = rng.randrange(len(words) - 1)
        text = " ".join(words[:at]) + (" " if at else "") + f"{words[at]}&nbsp;" + " ".join(words[at + 1:])
    return rng.choice(TAGS).format(text)


def repeated(text: str, rng: random.Random) -> str:
    parts, joiner = units(text)
    if len(parts) < 2 or rng.random() < 0.5:
        return text + ("" if KANA_HAN.search(text) and " " not in text.strip() else " ") + text
    size = rng.randint(2, min(4, len(parts)))
    at = rng.randrange(len(parts) - size + 1)
    return joiner.join(parts[: at + size] + parts[at: at + size] + parts[at + size:])


def romanised(text: str) -> str | None:
    """``text`` in ASCII (anyascii), or None when no letter of it changes."""
    from anyascii import anyascii

    if not any(c.isalpha() and anyascii(c) != c for c in text):
        return None
    ascii_text = " ".join(anyascii(text).split())
    return ascii_text if ascii_text.strip() else None


def length_matched(tgt: list[str], group: list[str]) -> np.ndarray:
    """For each pair the pair of another group whose target length is closest (the first such in
    file order), or -1 when none is within 10% (at least 2 characters) or its target is the same text."""
    lengths = np.array([len(t) for t in tgt])
    group = np.asarray(group)
    partner = np.full(len(tgt), -1)
    for name in np.unique(group):
        own, others = np.flatnonzero(group == name), np.flatnonzero(group != name)
        if not others.size:
            continue
        others = others[np.argsort(lengths[others], kind="stable")]
        sorted_lengths = lengths[others]
        at = np.searchsorted(sorted_lengths, lengths[own])
        below, above = np.clip(at - 1, 0, others.size - 1), np.clip(at, 0, others.size - 1)
        nearer = np.where(np.abs(sorted_lengths[below] - lengths[own]) <= np.abs(sorted_lengths[above] - lengths[own]),
                          below, above)
        partner[own] = others[nearer]
    gap = np.abs(lengths[np.maximum(partner, 0)] - lengths)
    same = np.array([p >= 0 and tgt[p] == t for p, t in zip(partner, tgt)], dtype=bool)
    return np.where((partner >= 0) & (gap <= np.maximum(2, 0.1 * lengths)) & ~same, partner, -1)


def on_one_side(src: str, tgt: str, damage, rng: random.Random) -> tuple[str, str]:
    """(src, tgt) with ``damage(side, rng)`` applied to the source one time in three, else to the target."""
    if rng.random() < 1 / 3:
        return damage(src, rng), tgt
    return src, damage(tgt, rng)


def ood_candidates(src: list[str], tgt: list[str], group: list[str], seed: int) -> dict[str, list]:
    """Kind -> for each pair its damaged (source, target), or None where the kind cannot apply."""
    partner = length_matched(tgt, group)
    result = {kind: [None] * len(src) for kind in OOD_KINDS}
    for i, (s, t) in enumerate(zip(src, tgt)):
        made = {"misordered": misordered(t, random.Random(f"{seed}:{i}:misordered")), "mojibake": mojibake(t),
                "spacing": spacing(t), "length_matched": tgt[partner[i]] if partner[i] >= 0 else None,
                "romanised": romanised(t)}
        for kind, damaged in made.items():
            result[kind][i] = (s, damaged) if damaged is not None and damaged != t else None
        for kind, damage in (("markup", markup), ("repeated", repeated)):
            result[kind][i] = on_one_side(s, t, damage, random.Random(f"{seed}:{i}:{kind}"))
    return result
