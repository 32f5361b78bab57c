"""Synthetic noisy pairs for training the learned score (self-supervised, as bicleaner's training
recipe, Sánchez-Cartagena et al. 2018, and the noise kinds of Khayrallah & Koehn 2018, §3).

Each clean example (a pair of the seeded sample of the corpus) gets exactly one noisy copy, the
kinds in turn over a seeded permutation. These are the only noise kinds the classifier can be trained
on (an evaluation should use other noise, or other generators of it); ``DEFAULT_NOISE_KINDS`` are the
ones it is trained on unless ``learn.noise_kinds`` names others:

* ``misaligned``: the target of the sampled pair whose target is next in length (a derangement of the
  sample): the sides are as long as a translation's, so the model learns what else tells them apart;
* ``near_miss``: the target of the sampled pair whose source is most like this one's (the
  first of ``MINHASHES`` MinHash signatures of its source words that another pair shares,
  Broder 1997; a random other pair when none does): a translation of a similar segment, which
  shares words with the source, unlike a random pair's;
* ``truncated``: one side (the target two times in three) cut to its first 20-60% of units;
* ``copied_source``: the target replaced by the source (untranslated copy);
* ``untranslated``: one side in the other side's language: the target replaced by the source of
  another sampled pair (two times in three), or the source by another pair's target (the same
  derangement as ``misaligned``); the only kind where one side alone is in the wrong language;
* ``words_dropped``: 30-60% of the units of one side (the target two times in three) deleted;
* ``partial_copy``: the target's last 40-70% of units replaced by the source's matching tail
  (a partly translated segment);
* ``numbers_changed``: every digit of the target replaced by another digit, or, with no digit
  on either side, a random 1-4 digit number inserted into the target;
* ``placeholders_changed``: every placeholder of the target (patterns.PATTERNS) deleted, or
  (one time in two) one of them inserted a second time at a random unit boundary; with none,
  ``%s`` inserted;
* ``joined``: one side (the target two times in three) followed by the same side of another
  sampled pair (the same derangement as ``misaligned``): a segmentation error;
* ``swapped_sides``: source and target exchanged (the wrong direction: both sides in the wrong language);
* ``misordered``: one side (the target two times in three) with its units out of order: a chunk of
  one to three units and the chunk after it exchanged, once per four units (at least once), as a
  word-order error of a broken aligner or a bad machine translation (Khayrallah & Koehn 2018, §3).

A *unit* is a whitespace-separated word, or a character on a side written without spaces
(fewer than three words). Everything is drawn from ``numpy.random.default_rng(seed)``.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from ..hashing import mix64
from .patterns import PATTERNS
from .tokens import token_sequences

MINHASHES = 4

NOISE_KINDS = ("misaligned", "near_miss", "truncated", "copied_source", "untranslated", "words_dropped", "partial_copy",
               "numbers_changed", "placeholders_changed", "joined", "swapped_sides", "misordered")

# The kinds made unless learn.noise_kinds names others: every kind but ``partial_copy`` (a target whose
# tail is copied from its source), whose lesson the ``copy`` feature and the target's language gate give
# without it; trained on, it drew the model's weight from the other features (development runs of
# docs/results-filtering.md: the overall AUC +.001 to +.004 on every set without it).
DEFAULT_NOISE_KINDS = tuple(kind for kind in NOISE_KINDS if kind != "partial_copy")

# What each kind of noise breaks: with learn.detectors the learned score has one detector per family
# (classifier.PairClassifier).
NOISE_FAMILIES = {"misaligned": "misaligned", "near_miss": "misaligned", "truncated": "length",
                  "words_dropped": "length", "joined": "length", "copied_source": "untranslated",
                  "untranslated": "untranslated", "partial_copy": "untranslated", "swapped_sides": "untranslated",
                  "numbers_changed": "numbers", "placeholders_changed": "numbers", "misordered": "order"}


def _units(text: str) -> tuple[list[str], str]:
    words = text.split()
    return (words, " ") if len(words) >= 3 else (list(text), "")


def _prefix(text: str, share: float) -> str:
    units, joiner = _units(text)
    return joiner.join(units[: max(1, min(len(units) - 1, int(len(units) * share)))])


def _drop(text: str, share: float, rng: np.random.Generator) -> str:
    units, joiner = _units(text)
    keep = rng.random(len(units)) >= share
    if keep.all():  # drop at least one unit
        keep[int(rng.integers(len(units)))] = False
    if not keep.any():
        keep[int(rng.integers(len(units)))] = True
    return joiner.join(u for u, k in zip(units, keep) if k)


def _partial_copy(src: str, tgt: str, share: float) -> str:
    t_units, t_joiner = _units(tgt)
    s_units, s_joiner = _units(src)
    head = t_joiner.join(t_units[: max(1, int(len(t_units) * (1 - share)))])
    tail = s_joiner.join(s_units[int(len(s_units) * (1 - share)) :])
    return f"{head} {tail}".strip()


def _change_numbers(src: str, tgt: str, rng: np.random.Generator) -> str:
    if any(c.isdigit() for c in tgt):
        return "".join(str((int(c) + int(rng.integers(1, 10))) % 10) if c.isdecimal() and c.isascii() else c
                       for c in tgt)
    units, joiner = _units(tgt)
    at = int(rng.integers(len(units) + 1))
    return joiner.join(units[:at] + [str(int(rng.integers(1, 10_000)))] + units[at:])


def _misorder(text: str, rng: np.random.Generator) -> str:
    units, joiner = _units(text)
    if len(units) < 2:
        return text
    for _ in range(max(1, len(units) // 4)):
        size = int(rng.integers(1, min(3, len(units) // 2) + 1))  # two whole chunks fit: the text always changes
        at = int(rng.integers(len(units) - 2 * size + 1))
        first, second = units[at : at + size], units[at + size : at + 2 * size]
        units[at : at + len(first) + len(second)] = second + first
    return joiner.join(units)


def _join(text: str, other: str) -> str:
    """``text`` followed by ``other``, with a space between unless ``text`` is written without spaces."""
    return text + (" " if " " in text.strip() else "") + other


def _change_placeholders(tgt: str, rng: np.random.Generator) -> str:
    found = [match.group() for match in PATTERNS["placeholders"].finditer(tgt)]
    if found and rng.random() < 0.5:
        return " ".join(PATTERNS["placeholders"].sub(" ", tgt).split())
    units, joiner = _units(tgt)
    at = int(rng.integers(len(units) + 1))
    return joiner.join(units[:at] + [found[int(rng.integers(len(found)))] if found else "%s"] + units[at:])


def similar_partners(src: list[str], tgt: list[str], fallback: np.ndarray, seed: int) -> np.ndarray:
    """For each pair another pair (``fallback[i]`` if none) with a MinHash signature of the source
    words in common and other sides: for signature k = 1..MINHASHES in turn, the pairs still
    without a partner that share their k-th signature with another one are put in a cycle in a
    seeded order and each takes the next pair of its cycle."""
    n = len(src)
    ids, indptr = token_sequences(src, 1 << 30)
    sentence = np.repeat(np.arange(n), np.diff(indptr))
    rng = np.random.default_rng([seed, 1])
    partner = np.full(n, -1)
    for k in range(MINHASHES):
        signature = np.full(n, np.iinfo(np.uint64).max, dtype=np.uint64)
        np.minimum.at(signature, sentence, mix64(ids.astype(np.uint64) ^ mix64(np.uint64(k + 1))))
        open_ = np.flatnonzero((partner < 0) & (np.diff(indptr) > 0))
        if open_.size == 0:  # every pair has a partner already (a corpus of duplicates, say)
            break
        order = open_[np.lexsort((rng.permutation(open_.size), signature[open_]))]
        same = signature[order]
        first = np.concatenate([[True], same[1:] != same[:-1]])
        run = np.cumsum(first) - 1
        starts = np.flatnonzero(first)
        sizes = np.diff(np.append(starts, order.size))[run]
        following = np.where(np.append(first[1:], True), starts[run], np.arange(order.size) + 1)
        candidate = order[following]
        chosen = sizes > 1
        partner[order[chosen]] = candidate[chosen]
    sources, targets = np.asarray(src, dtype=object), np.asarray(tgt, dtype=object)
    bad = (partner < 0) | (sources[np.maximum(partner, 0)] == sources) | (targets[np.maximum(partner, 0)] == targets)
    return np.where(bad, fallback, partner)


def length_matched_partners(tgt: list[str], seed: int) -> np.ndarray:
    """Each pair's partner: the pair whose target is next in length (characters; ties in a seeded
    order), a derangement, so that a misaligned target is about as long as the one it replaces."""
    n = len(tgt)
    by_length = np.lexsort((np.random.default_rng([seed, 1]).random(n), [len(t) for t in tgt]))
    partner = np.empty(n, dtype=np.int64)
    partner[by_length] = np.roll(by_length, -1)
    return partner


def synthesize(src: list[str], tgt: list[str], seed: int,
               kinds: Sequence[str] | None = None) -> tuple[list[str], list[str], np.ndarray]:
    """One noisy pair per clean pair: (sources, targets, kind index into NOISE_KINDS). Only the
    ``kinds`` named (NOISE_KINDS names, in turn; None = every kind) are made."""
    rng = np.random.default_rng(seed)
    n = len(src)
    made = np.array([NOISE_KINDS.index(kind) for kind in kinds] if kinds else range(len(NOISE_KINDS)))
    kinds = np.empty(n, dtype=np.int64)
    kinds[rng.permutation(n)] = made[np.arange(n) % made.size]
    order = rng.permutation(n)
    partner = np.empty(n, dtype=np.int64)
    partner[order] = np.roll(order, -1)  # a derangement: no pair gets its own target (for n > 1)
    similar = similar_partners(src, tgt, partner, seed)
    matched = length_matched_partners(tgt, seed)
    noisy_src, noisy_tgt = list(src), list(tgt)
    for i in range(n):
        s, t, kind = src[i], tgt[i], NOISE_KINDS[kinds[i]]
        on_target = rng.random() < 2 / 3
        if kind == "misaligned":
            noisy_tgt[i] = tgt[matched[i]]
        elif kind == "near_miss":
            noisy_tgt[i] = tgt[similar[i]]
        elif kind == "truncated":
            share = rng.uniform(0.2, 0.6)
            noisy_src[i], noisy_tgt[i] = (s, _prefix(t, share)) if on_target else (_prefix(s, share), t)
        elif kind == "copied_source":
            noisy_tgt[i] = s
        elif kind == "untranslated":
            noisy_src[i], noisy_tgt[i] = (s, src[partner[i]]) if on_target else (tgt[partner[i]], t)
        elif kind == "words_dropped":
            share = rng.uniform(0.3, 0.6)
            noisy_src[i], noisy_tgt[i] = (s, _drop(t, share, rng)) if on_target else (_drop(s, share, rng), t)
        elif kind == "partial_copy":
            noisy_tgt[i] = _partial_copy(s, t, rng.uniform(0.4, 0.7))
        elif kind == "numbers_changed":
            noisy_tgt[i] = _change_numbers(s, t, rng)
        elif kind == "placeholders_changed":
            noisy_tgt[i] = _change_placeholders(t, rng)
        elif kind == "misordered":
            noisy_src[i], noisy_tgt[i] = (s, _misorder(t, rng)) if on_target else (_misorder(s, rng), t)
        elif kind == "joined":
            if on_target:
                noisy_tgt[i] = _join(t, tgt[partner[i]])
            else:
                noisy_src[i] = _join(s, src[partner[i]])
        else:
            noisy_src[i], noisy_tgt[i] = t, s
    return noisy_src, noisy_tgt, kinds
