"""The ``ca embed`` config (``configs/text8*.yaml``); every key is documented in configs/README.md."""

from __future__ import annotations

import dataclasses
from typing import Literal, Union

from ..config import SEED, Range, option
from ..errors import InputError


@dataclasses.dataclass
class CaConfig:
    method: Literal["ca", "ppmi"] = option(
        "ca", "ca: correspondence analysis of the table (of its power, see power); ppmi: PPMI-SVD with context-"
        "distribution smoothing (Levy, Goldberg & Dagan 2015), a reference that is not CA, by the same delayed SVD")
    table: Literal["flat", "skip", "cut"] = option(
        "flat", "contingency table: flat (Eq. 63, w_j after w_i at k = 0..window words between), skip (Eq. 62, "
        "either side), cut (Eq. 64, tail-cut kernel: offset counts above independence only)")
    window: int = option(10, "W: offsets k = 0..W words in between (distances 1..W+1)", Range(0, 1000))
    threshold: Literal["expected", "literal"] = option(
        "expected", "cut: keep an offset count above #(w_i)#(w_j)/n (expected: the count independence predicts) or "
        "above #(w_i)#(w_j)/n^2 (literal: the paper's printed formula, which keeps every pair)")
    lowercase: bool = option(
        True, "tokenisation: lower-case the text and split punctuation marks off words (each mark a token; "
        "apostrophes and hyphens inside a word stay); text8-like text (a-z and spaces) is unchanged; false = "
        "whitespace tokens as they are")
    min_count: int = option(5, "words seen fewer times are dropped from the stream before counting", Range(1, 1 << 40))
    max_vocab: Union[int, None] = option(None, "keep only the most frequent words (null = all above min_count)",
                                         Range(2, 1 << 40))
    supervision: Union[str, None] = option(None, "SCA (Def. 5): a file of 'word word score' pairs (e.g. MEN) "
                                          "that tunes the distances; null = LCA")
    supervision_weight: float = option(1.0, "SCA: tuning ratio of a supervised pair = 1 + weight x score / max score "
                                       "(from -1, so that ratios stay non-negative: negative pulls similar words "
                                       "together); see docs/results-text8.md",
                                       Range(-1, 1000))
    power: float = option(
        0.25, "CA of N^power, the table raised entry by entry (0 < power <= 1; 1 = the paper's CA, 0.5 ROOT-CA, "
        "0.25 ROOTROOT-CA, Qi et al. 2024); only the non-zeros change, margins are those of N^power; ppmi ignores it",
        Range(0, 1, low_open=True))
    smoothing: float = option(0.75, "ppmi: context counts raised to this power before the PMI (Levy et al. 2015)",
                              Range(0, 1, low_open=True))
    vectors: Literal["row", "row+column"] = option(
        "row", "row: word vectors U S^weight; row+column: word + context vectors (U + V) S^weight (Levy et al. 2015)")
    dims: int = option(300, "dimensions of the word vectors (top singular vectors)", Range(1, 10000))
    weight: float = option(0.0, "singular-value weighting of the vectors: U S^weight; 0 measured best on the offline "
                           "text8 stand-in (power 1: WS353-sim .42 vs .37 at 0.5 and .32 at 1; power 0.25, a subset: "
                           "mean rho of six sets .51 vs .48 at 0.5)", Range(-2, 2))
    oversample: int = option(10, "randomized SVD: extra sketch columns", Range(0, 10000))
    power_iterations: int = option(4, "randomized SVD: power iterations (more = more exact small singular values); "
                                   "with tol, the most that are done", Range(0, 1000))
    tol: Union[float, None] = option(
        None, "randomized SVD: stop the power iterations once every relative residual norm(A v - s u) / s of the top "
        "dims is below this (null = always power_iterations); the residuals reached are in the summary",
        Range(0, 1, low_open=True))
    chunk_bytes: int = option(1 << 24, "corpus bytes read and counted at a time", Range(1, 1 << 30))
    seed: int = option(0, "seed of the randomized SVD", SEED)

    def validate(self) -> None:
        if self.method == "ppmi" and self.supervision:
            raise InputError("supervision (SCA) is CA only; drop it for method ppmi")
