"""Hard rules applied before PHSIC scoring, vectorised over a block (as bicleaner's and
OpusFilter's rule filters, but with no Python loop per character).

Each pair gets a reason code: 0 if it passes, else the first rule it breaks, in ``REASONS``
order. Duplicates (:func:`mark_duplicates`) and selection add their own codes later.
"""

from __future__ import annotations

import re

import numpy as np

from ..text import TextStats
from .config import RulesConfig
from .patterns import PATTERNS

NON_TEXT = re.compile("|".join(pattern.pattern for pattern in PATTERNS.values()))

PASS = 0
REASONS = ["pass", "empty_side", "identical_sides", "too_long", "length_ratio", "control_chars",
           "src_script", "tgt_script", "duplicate", "below_threshold", "not_selected"]
CODE = {name: code for code, name in enumerate(REASONS)}
# Characters added to both sides before their ratio is compared with rules.max_length_ratio: one-word
# strings (`Last Name` / `姓`, `Table of Contents` / `目次`) are translations of any length ratio.
LENGTH_SLACK = 10


def script_share_ok(texts: list[str], stats: TextStats, language: str, ratio: float) -> np.ndarray:
    """Whether at least ``ratio`` of each text's letters are in ``language``'s scripts, not counting
    the letters of placeholders and URLs (``列 %COLUMNNUMBER`` is Japanese). Only the texts that fail
    on their raw letters are searched for placeholders."""
    ok = stats.script_letters(language) >= ratio * stats.letters
    failing = np.flatnonzero(~ok)
    if failing.size:
        stripped = [NON_TEXT.sub(" ", texts[i]) for i in failing.tolist()]
        again = TextStats(stripped)
        ok[failing] = again.script_letters(language) >= ratio * again.letters
    return ok


def rule_reasons(src: list[str], tgt: list[str], s: TextStats, t: TextStats, rules: RulesConfig) -> np.ndarray:
    """The reason code (uint8) of each pair; 0 = passes every enabled rule. ``s``, ``t``: the sides' stats."""
    checks = []
    if rules.empty_side:
        checks.append(("empty_side", (s.words == 0) | (t.words == 0)))
    if rules.identical_sides:
        identical = np.zeros(len(src), dtype=bool)
        for i in np.flatnonzero(s.words == t.words):  # a necessary condition, checked vectorised first
            identical[i] = src[i].strip().casefold() == tgt[i].strip().casefold()
        checks.append(("identical_sides", identical))
    if rules.max_chars is not None:
        checks.append(("too_long", np.maximum(s.lengths, t.lengths) > rules.max_chars))
    if rules.length_ratio() is not None:
        longer, shorter = (np.maximum(s.lengths, t.lengths) + LENGTH_SLACK,
                           np.minimum(s.lengths, t.lengths) + LENGTH_SLACK)
        checks.append(("length_ratio", longer > rules.length_ratio() * shorter))
    if rules.control_chars:
        checks.append(("control_chars", (s.controls > 0) | (t.controls > 0)))
    for name, texts, stats, language in (("src_script", src, s, rules.src_language),
                                         ("tgt_script", tgt, t, rules.tgt_language)):
        if language is not None:
            checks.append((name, ~script_share_ok(texts, stats, language, rules.min_script_ratio)))
    reasons = np.zeros(len(src), dtype=np.uint8)
    for name, broken in reversed(checks):  # the first rule in REASONS order wins
        reasons[broken] = CODE[name]
    return reasons


def mark_duplicates(reasons: np.ndarray, hashes: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Mark every passing pair whose hash an earlier passing pair has; returns (rows, originals):
    those pairs and, for each, the first passing pair with the same hash."""
    rows = np.flatnonzero(reasons == PASS)
    order = rows[np.argsort(hashes[rows], kind="stable")]
    sorted_hashes = hashes[order]
    repeated = np.concatenate([[False], sorted_hashes[1:] == sorted_hashes[:-1]])
    first = order[np.maximum.accumulate(np.where(repeated, 0, np.arange(order.size)))] if order.size else order
    rows, originals = order[repeated], first[repeated]
    reasons[rows] = CODE["duplicate"]
    in_order = np.argsort(rows)
    return rows[in_order], originals[in_order]


def reason_counts(reasons: np.ndarray) -> dict[str, int]:
    """How many lines each reason dropped (the reasons that dropped none left out)."""
    counts = np.bincount(reasons, minlength=len(REASONS))
    return {name: int(count) for name, count in zip(REASONS, counts) if count and name != "pass"}
