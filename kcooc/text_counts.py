"""Compiled per-sentence counts over code points, for :class:`kcooc.text.TextStats` (a module of their own, so
that importing the text tables loads no numba: ``kcooc <command> --help`` loads no numerical stack)."""

from __future__ import annotations

import numba
import numpy as np


@numba.njit(cache=True, nogil=True)
def sentence_counts(codes, sentence_of, n, letter, control, space):  # pragma: no cover - compiled
    """Letters, control characters and words (runs of characters that are not white space) of each sentence."""
    letters, controls, words = np.zeros(n, np.int64), np.zeros(n, np.int64), np.zeros(n, np.int64)
    after_space = True
    for i in range(codes.size):
        c, r = min(codes[i], 0xFFFF), sentence_of[i]
        letters[r] += letter[c]
        controls[r] += control[c]
        words[r] += after_space and not space[c]
        after_space = space[c]
    return letters, controls, words


@numba.njit(cache=True, nogil=True)
def table_counts(codes, sentence_of, n, table):  # pragma: no cover - compiled
    """Characters of each sentence that ``table`` (a BMP table) marks."""
    counts = np.zeros(n, np.int64)
    for i in range(codes.size):
        counts[sentence_of[i]] += table[min(codes[i], 0xFFFF)]
    return counts
