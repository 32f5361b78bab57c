"""The noise generators of the labelled filtering benchmark (scripts/experiments/filtering/eval_filtering.py):
deterministic, at the asked rate, and each kind is what it claims to be."""

import html
import os
import random
import re

import numpy as np
import pytest

from scripts.experiments.filtering import eval_filtering as ev
from scripts.experiments.filtering import ood_noise

FIXTURE = os.path.join(os.path.dirname(__file__), "data", "en-ja.tsv")


@pytest.fixture(scope="module")
def corpus():
    src, tgt, source = ev.read_corpus(FIXTURE)
    other = {s: f"其他语言的翻译 {i}" for i, s in enumerate(src[::3])}  # wrong-language material for a third
    return src, tgt, source, other


def test_noise_is_deterministic_and_at_the_rate(corpus):
    src, tgt, source, other = corpus
    first = ev.inject_noise(src, tgt, source, other, 0.2, seed=3, joiner="")
    again = ev.inject_noise(src, tgt, source, other, 0.2, seed=3, joiner="")
    other_seed = ev.inject_noise(src, tgt, source, other, 0.2, seed=4, joiner="")
    assert first[0] == again[0] and first[1] == again[1] and np.array_equal(first[2], again[2])
    assert not np.array_equal(first[2], other_seed[2])
    kind = first[2]
    assert (kind >= 0).sum() == round(0.2 * len(src))
    counts = np.bincount(kind[kind >= 0], minlength=len(ev.KINDS))
    assert counts.min() >= counts.max() - 1  # equal shares when every kind has enough eligible pairs
    clean = kind < 0
    assert [s for s, c in zip(first[0], clean) if c] == [s for s, c in zip(src, clean) if c]
    assert [t for t, c in zip(first[1], clean) if c] == [t for t, c in zip(tgt, clean) if c]


def test_each_kind_is_what_it_claims(corpus):
    src, tgt, source, other = corpus
    new_src, new_tgt, kind = ev.inject_noise(src, tgt, source, other, 0.3, seed=0, joiner="")
    near = ev.neighbours(src, tgt, source)
    material = set(ev.harvest_boilerplate(src + tgt))
    for i in np.flatnonzero(kind >= 0):
        name, j = ev.KINDS[kind[i]], near[i]
        assert (new_src[i], new_tgt[i]) != (src[i], tgt[i])
        if name == "neighbour":
            assert new_src[i] == src[i] and new_tgt[i] == tgt[j] and source[j] == source[i] and abs(i - j) <= 3
        elif name == "wrong_language":
            assert new_src[i] == src[i] and new_tgt[i] == other[src[i]]
        elif name == "source_language":
            assert new_src[i] == src[i] and new_tgt[i] == src[j] != src[i]
        elif name == "partial":
            assert new_src[i] == src[i] and tgt[i].startswith(new_tgt[i]) and 0 < len(new_tgt[i]) < len(tgt[i])
        elif name == "joined":
            a, b = min(i, j), max(i, j)
            assert (new_src[i], new_tgt[i]) in [(f"{src[a]} {src[b]}", tgt[i]), (src[i], tgt[a] + tgt[b])]
        elif name == "boilerplate":
            assert new_src[i] in (src[i], new_tgt[i]) and 1 <= len(new_tgt[i].split()) <= 3
            assert all(token in material for token in new_tgt[i].split())
        elif name == "numbers":
            assert new_src[i] == src[i] and new_tgt[i] != tgt[i]
            dropped = [re.sub(r"\s{2,}", " ", tgt[i][: m.start()] + tgt[i][m.end():]).strip()
                       for m in ev.PLACEHOLDER.finditer(tgt[i])]
            assert re.sub(r"\d+", "#", new_tgt[i]) == re.sub(r"\d+", "#", tgt[i]) or new_tgt[i] in dropped
    assert set(kind[kind >= 0]) == set(range(len(ev.KINDS)))


def test_partial_target_cuts_at_sentence_or_clause_boundaries():
    assert ev.partial_target("Erster Satz. Zweiter Satz.") == "Erster Satz."
    assert ev.partial_target("一文目です。二文目です。三文目。四文目。") == "一文目です。二文目です。"
    assert ev.partial_target("Ouvrir le fichier, puis fermer la fenêtre") == "Ouvrir le fichier"
    assert ev.partial_target("Keine Grenze hier") is None


def test_number_mismatch_changes_one_number_or_drops_one_placeholder():
    rng = random.Random(0)
    for _ in range(20):
        changed = ev.number_mismatch("Version 12 von %s", rng)
        assert changed in ("Version von", "Version 12 von") or (
            changed.startswith("Version ") and changed.endswith(" von %s") and changed.split()[1] != "12")
    assert ev.number_mismatch("ohne Zahlen", rng) is None


def test_sample_runs_takes_whole_runs_per_source():
    source = ["a"] * 1000 + ["b"] * 300
    rows = ev.sample_runs(source, per_source=250, seed=1, run=100)
    assert list(rows) == sorted(rows) and len(rows) == 500
    a_rows = rows[rows < 1000]
    assert len(a_rows) == 250 and (np.diff(a_rows) == 1).sum() >= 247  # two whole runs and half of a third
    assert np.array_equal(rows, ev.sample_runs(source, per_source=250, seed=1, run=100))


# ------------------------------------------------------------------ out-of-distribution noise (ood_noise.py)

OOD_PAIRS = [("File could not be opened because it is missing", "Datei konnte nicht geöffnet werden, da sie fehlt",
              "cli/tar"),
             ("File not found", "Файл не найден", "cli/coreutils"), ("Size", "Größe", "desktop/gedit-common"),
             ("Open the file", "ファイルを開けません", "desktop/evince-common"),
             ("Cannot open %s: %s", "%s를 열 수 없습니다: %s", "cli/grep"), ("Quit", "Quit", "cli/nano"),
             ("A text editor for the GNOME desktop", "Ein Texteditor für den GNOME-Desktop", "debian-description")]


def swapped_neighbours(before: list[str], after: list[str]) -> bool:
    """``after`` is ``before`` with some disjoint pairs of adjacent items swapped (at least one)."""
    i, swaps = 0, 0
    while i < len(before):
        if before[i] == after[i]:
            i += 1
        elif i + 1 < len(before) and (before[i], before[i + 1]) == (after[i + 1], after[i]):
            i, swaps = i + 2, swaps + 1
        else:
            return False
    return swaps > 0 and len(before) == len(after)


def encoded(char: str, codec: str) -> int:
    """The byte a legacy code page decoded to ``char`` (a byte it does not define was kept as its own number)."""
    try:
        return char.encode(codec)[0]
    except UnicodeEncodeError:
        return ord(char)


@pytest.fixture(scope="module")
def ood_corpus(corpus):
    pytest.importorskip("anyascii", reason="anyascii is not installed (pip install 'kcooc[translit]'): the "
                        "romanised kind")
    src, tgt, source, _ = corpus
    pairs = list(zip(src, tgt, source)) + OOD_PAIRS
    src, tgt, source = ([p[i] for p in pairs] for i in range(3))
    return src, tgt, [s.split("/")[0] for s in source]


def test_ood_noise_is_deterministic_with_the_seed(ood_corpus):
    src, tgt, group = ood_corpus
    first, again = (ood_noise.ood_candidates(src, tgt, group, seed=5) for _ in range(2))
    assert first == again and list(first) == ood_noise.OOD_KINDS
    assert ood_noise.ood_candidates(src, tgt, group, seed=6) != first


def without_tag(damaged: str) -> str | None:
    """The text inside one of ood_noise.TAGS, with its ``&nbsp;`` a space again; None if no tag wraps it."""
    for before, after in (tag.split("{}") for tag in ood_noise.TAGS):
        if damaged.startswith(before) and damaged.endswith(after):
            return damaged[len(before): len(damaged) - len(after)].replace("&nbsp;", " ", 1)
    return None


def repeats(damaged: str, original: str) -> bool:
    """``damaged`` is ``original`` twice, or ``original`` with a run of 2-4 of its words (phrases when it has
    no spaces) repeated in place."""
    parts, joiner = ood_noise.units(original)
    return damaged in (f"{original} {original}", original + original) or any(
        joiner.join(parts[: at + n] + parts[at: at + n] + parts[at + n:]) == damaged
        for n in (2, 3, 4) for at in range(len(parts) - n + 1))


def test_each_ood_kind_damages_the_pair_as_documented(ood_corpus):
    src, tgt, group = ood_corpus
    made = ood_noise.ood_candidates(src, tgt, group, seed=0)
    for kind, candidates in made.items():
        assert sum(c is not None for c in candidates) > len(src) // 5, kind  # most pairs can take every kind
        for i, noisy in enumerate(candidates):
            if noisy is None:
                continue
            (s, t), (ns, nt) = (src[i], tgt[i]), noisy
            assert (ns, nt) != (s, t) and (ns == s or nt == t), kind  # one side damaged, the other as it was
            damaged, original = (nt, t) if ns == s else (ns, s)
            if kind in ("markup", "repeated"):
                assert (ns == s) != (nt == t)
            else:
                assert ns == s, kind  # the others damage the target
            if kind == "misordered":
                assert swapped_neighbours(t.split(), nt.split()) if len(t.split()) >= 2 else sorted(nt) == sorted(t)
            elif kind == "mojibake":
                codec = "cp1251" if re.search("[\u0400-\u04ff]", t) else "cp1252"
                assert not t.isascii() and bytes(encoded(c, codec) for c in nt).decode("utf-8") == t
            elif kind == "spacing":
                glued = " " in t.strip() and not ood_noise.KANA_HAN.search(t)
                assert (nt.replace(" ", "") == t.replace(" ", "")
                        and (" " not in nt if glued else nt[1::2].strip() == ""))
            elif kind == "markup":
                assert (damaged.isascii() and html.unescape(damaged) == original) or without_tag(damaged) == original
            elif kind == "repeated":
                assert repeats(damaged, original)
            elif kind == "length_matched":
                assert any(tgt[j] == nt and group[j] != group[i] for j in range(len(tgt)))
                assert abs(len(nt) - len(t)) <= max(2, 0.1 * len(t))
            else:
                assert kind == "romanised" and nt.isascii() and any(c.isalpha() and not c.isascii() for c in t)
    quit_pair = src.index("Quit")
    assert all(made[kind][quit_pair] is None for kind in ("mojibake", "romanised", "misordered"))
    assert ood_noise.mojibake("Файл") == "Р¤Р°Р№Р»" and ood_noise.mojibake("Größe") == "GrÃ¶ÃŸe"
    assert ood_noise.romanised("Datei „%s“ nicht gefunden…") is None  # typography only: still a translation
    assert ood_noise.romanised("„%s“ öffnen") == '"%s" offnen'
    assert (ood_noise.romanised("Größe") == "Grosse"
            and ood_noise.spacing("ファイル %s を開く") == "フ ァ イ ル % s を 開 く")
    assert ood_noise.misordered("ファイルを開けません", random.Random(0)) == "開けませんファイルを"
    assert ood_noise.misordered("Datei", random.Random(0)) is None


def test_injected_ood_kinds_take_equal_shares(ood_corpus):
    src, tgt, group = ood_corpus
    extra = ood_noise.ood_candidates(src, tgt, group, seed=2)
    new_src, new_tgt, kind = ev.inject_noise(src, tgt, group, {}, 0.3, seed=2, joiner="", extra=extra)
    names = ev.KINDS + ood_noise.OOD_KINDS
    counts = np.bincount(kind[kind >= 0], minlength=len(names))
    assert (kind >= 0).sum() == round(0.3 * len(src)) and counts[len(ev.KINDS):].min() >= counts.max() - 1
    for i in np.flatnonzero(kind >= len(ev.KINDS)):
        assert (new_src[i], new_tgt[i]) == extra[names[kind[i]]][i]


def test_description_paragraphs_keep_the_spaces_a_wrap_took():
    """Debian descriptions are wrapped at spaces, so a wrap is a space, but where a script is written without
    spaces (Japanese: the wrap broke nothing) and where Korean was wrapped inside a word (the index writes
    the joined word, here more often than its rarer part)."""
    import collections

    from scripts.experiments.filtering.data_parallel import paragraphs

    words = collections.Counter({"전쟁": 6, "전": 1, "쟁": 0, "기간에": 3, "초점을": 4})
    lines = ["Простая программа для X из", "оболочки командной строки.", ".", "ゲームで、", "西洋文明の",
             "歴史を再現", ".", "고대 전", "쟁 게임 기간에", "초점을 맞춰서", ".",
             "Zu »TEXINPUTS«", "äquivalenter Suche"]
    assert paragraphs(lines, words) == ["Простая программа для X из оболочки командной строки.",
                                        "ゲームで、西洋文明の歴史を再現", "고대 전쟁 게임 기간에 초점을 맞춰서",
                                        "Zu »TEXINPUTS« äquivalenter Suche"]
