"""The noise generators of the labelled filtering benchmark (scripts/experiments/filtering/eval_filtering.py):
deterministic, at the asked rate, and each kind is what it claims to be."""

import os
import random
import re

import numpy as np
import pytest

from scripts.experiments.filtering import eval_filtering as ev

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
