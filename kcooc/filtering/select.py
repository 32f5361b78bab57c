"""Which scored pairs to keep: threshold, top-k, top-ratio or a word budget (Zipporah-style).

Ranking is by score, best first, ties in input order, so a selection is a pure function of the
scores: equal scores on any engine give the same kept lines. :func:`score_quantiles` describes the
scores the selection chose among (the summary's ``score_quantiles``, for alerts from cron).
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


QUANTILES = {"min": 0.0, "p01": 0.01, "p05": 0.05, "p10": 0.10, "p25": 0.25, "p50": 0.50, "p75": 0.75, "p90": 0.90,
             "p95": 0.95, "p99": 0.99, "max": 1.0}
SELECTION_CODES = (PASS, CODE["below_threshold"], CODE["not_selected"])


def scored_rows(reasons: np.ndarray) -> np.ndarray:
    """The rows the selection chose among (after :func:`select`): kept, below the threshold or not
    selected; duplicates and the rules' drops are not among them."""
    return np.flatnonzero(np.isin(reasons, SELECTION_CODES))


def score_quantiles(scores: np.ndarray, reasons: np.ndarray, selection: dict) -> dict:
    """The distribution of the scores the selection chose among (after :func:`select`), for the
    summary: ``QUANTILES`` (numpy's linear interpolation between order statistics, a pure function
    of the scores: the same numbers on every engine), how many pairs, the share kept and the cut
    (the lowest kept score). Empty: only the counts."""
    values = np.asarray(scores[scored_rows(reasons)], dtype=np.float64)
    values = values[~np.isnan(values)]
    out = {"pairs": int(values.size), "kept_share": selection["kept"] / selection["eligible"] if selection["eligible"]
           else None, "cut": selection["lowest_kept_score"]}
    if values.size:
        out.update(zip(QUANTILES, np.quantile(values, list(QUANTILES.values())).tolist()))
    return out
