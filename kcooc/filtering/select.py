"""Which scored pairs to keep: threshold, top-k, top-ratio or a word budget (Zipporah-style).

Ranking is by score, best first, ties in input order, so a selection is a pure function of the
scores: equal scores on any engine give the same kept lines.
"""

from __future__ import annotations

import numpy as np

from .config import SelectConfig
from .rules import CODE, PASS


def select(scores: np.ndarray, reasons: np.ndarray, cfg: SelectConfig, words: np.ndarray | None = None) -> dict:
    """Mark pairs that pass the rules but are not selected in ``reasons`` (in place).

    Returns what the selection did: pairs kept and, when a cut was made, the lowest kept score.
    """
    candidates = np.flatnonzero(reasons == PASS)
    eligible = candidates.size
    if cfg.threshold is not None:
        below = candidates[~(scores[candidates] >= cfg.threshold)]  # NaN scores fail the threshold
        reasons[below] = CODE["below_threshold"]
        candidates = candidates[scores[candidates] >= cfg.threshold]
    if cfg.top_k is not None or cfg.top_ratio is not None or cfg.word_budget is not None:
        order = candidates[np.lexsort((candidates, -scores[candidates]))]
        if cfg.word_budget is not None:
            keep = int(np.searchsorted(np.cumsum(words[order], dtype=np.int64), cfg.word_budget, side="right"))
        elif cfg.top_k is not None:
            keep = cfg.top_k
        else:
            keep = int(round(cfg.top_ratio * eligible))
        reasons[order[keep:]] = CODE["not_selected"]
        candidates = np.sort(order[:keep])
    kept = int(candidates.size)
    return {"kept": kept, "eligible": eligible,
            "lowest_kept_score": float(scores[candidates].min()) if kept else None}
