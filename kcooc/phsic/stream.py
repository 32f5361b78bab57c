"""Streaming PHSIC training and scoring over blocks of encoded pairs.

Feature-space kernels (linear, cos) need one pass: each block only updates the mergeable
statistics. Data-space kernels (ICD) need the pivots first, so blocks are spooled to disk,
the decomposition runs on a seeded uniform sample (all pairs by default, as in the paper),
and a second pass over the spool updates the statistics with the Yokoi 2018, Eq. 34 features.
"""

from __future__ import annotations

from typing import Callable, Iterable, Iterator, TextIO

import numpy as np

from ..kernels import KERNELS
from ..pairs import PairBlock, Spool
from .model import PHSIC


def train(blocks: Iterable[PairBlock], model: PHSIC, *, sample_size: int | None = None,
          spool_dir: str | None = None, on_block: Callable[[int], None] = lambda n: None,
          on_pass: Callable[[str, int | None], None] = lambda name, total: None) -> PHSIC:
    """Fit ``model`` on every pair of ``blocks`` with memory bounded by the model plus one block.

    ``on_block(n)`` follows the pairs of each pass; data-space kernels make two passes (read and
    spool, then the statistics over the spool) and announce each step with ``on_pass(name, pairs)``:
    "maps" (the incomplete Cholesky on the sample; pairs None) and "statistics" (pairs: all)."""
    if KERNELS[model.kernel].feature_space:
        for block in blocks:
            if model.x_map is None:
                model.fit_maps()
            model.partial_fit(block.X, block.Y)
            on_block(block.X.shape[0])
        return model.finalize()
    with Spool(spool_dir) as spool:
        for block in blocks:
            spool.append(block.X, block.Y)
            on_block(block.X.shape[0])
        if spool.n == 0:
            return model.finalize()
        rng = np.random.default_rng(model.seed)
        rows = (np.arange(spool.n) if sample_size is None or sample_size >= spool.n
                else np.sort(rng.choice(spool.n, size=sample_size, replace=False)))
        on_pass("maps", None)
        model.fit_maps(*spool.rows(rows))
        on_pass("statistics", spool.n)
        for X, Y in spool:
            model.partial_fit(X, Y)
            on_block(X.shape[0])
    return model.finalize()


def format_scores(scores: np.ndarray) -> list[str]:
    """Scores as text: 8 significant digits, the same in every output mode."""
    return [f"{s:.8g}" for s in scores.tolist()]


def write_scored(out: TextIO, lines: list[str] | None, columns: list[list[str]], score_only: bool) -> None:
    """Write one row per pair: the input line (unless ``score_only``) plus the extra columns."""
    rows = zip(*columns)
    if score_only or lines is None:
        out.write("".join("\t".join(row) + "\n" for row in rows))
    else:
        out.write("".join(line + "\t" + "\t".join(row) + "\n" for line, row in zip(lines, rows)))


def score_blocks(blocks: Iterable[PairBlock], model: PHSIC) -> Iterator[tuple[PairBlock, np.ndarray]]:
    for block in blocks:
        yield block, model.score(block.X, block.Y)


def rank_candidates(scored: Iterable[tuple[PairBlock, np.ndarray]]
                    ) -> Iterator[tuple[list[str], np.ndarray, np.ndarray]]:
    """Rank the responses of each context: consecutive lines with the same x form one group.

    Yields (lines, scores, ranks) for complete groups; rank 1 is the highest score, ties keep
    input order. A group may span blocks: its rows are held until the next context starts.
    """
    lines: list[str] = []
    keys: list[str] = []
    scores = np.zeros(0)
    for block, block_scores in scored:
        lines += block.lines
        keys += block.keys
        scores = np.concatenate([scores, block_scores])
        last_start = len(keys) - 1
        while last_start > 0 and keys[last_start - 1] == keys[-1]:
            last_start -= 1
        if last_start > 0:
            yield lines[:last_start], scores[:last_start], group_ranks(keys[:last_start], scores[:last_start])
            lines, keys, scores = lines[last_start:], keys[last_start:], scores[last_start:]
    if lines:
        yield lines, scores, group_ranks(keys, scores)


def group_ranks(keys: list[str], scores: np.ndarray) -> np.ndarray:
    """1-based rank of each score within its run of equal consecutive keys."""
    keys_array = np.asarray(keys, dtype=object)
    group = np.concatenate([[0], np.cumsum(keys_array[1:] != keys_array[:-1])])
    order = np.lexsort((-scores, group))
    group_start = np.searchsorted(group[order], group[order], side="left")
    ranks = np.empty(len(keys), dtype=np.int64)
    ranks[order] = np.arange(len(keys)) - group_start + 1
    return ranks
