"""The ``ca embed`` config (``configs/text8*.yaml``); every key is documented in configs/README.md."""

from __future__ import annotations

import dataclasses
from typing import Literal, Union

from ..config import option
from ..errors import InputError


@dataclasses.dataclass
class CaConfig:
    table: Literal["flat", "skip", "cut"] = option(
        "flat", "contingency table: flat (Eq. 63, w_j after w_i at k = 0..window words between), skip (Eq. 62, "
        "either side), cut (Eq. 64, tail-cut kernel: offset counts above independence only)")
    window: int = option(10, "W: offsets k = 0..W words in between (distances 1..W+1)")
    threshold: Literal["expected", "literal"] = option(
        "expected", "cut: keep an offset count above #(w_i)#(w_j)/n (expected: the count independence predicts) or "
        "above #(w_i)#(w_j)/n^2 (literal: the paper's printed formula, which keeps every pair)")
    min_count: int = option(5, "words seen fewer times are dropped from the stream before counting")
    max_vocab: Union[int, None] = option(None, "keep only the most frequent words (null = all above min_count)")
    supervision: Union[str, None] = option(None, "SCA (Def. 5): a file of 'word word score' pairs (e.g. MEN) that tunes the "
                                          "distances; null = LCA")
    supervision_weight: float = option(1.0, "SCA: tuning ratio of a supervised pair = 1 + weight x score / max score "
                                       "(>= -1; negative pulls similar words together); see docs/results-text8.md")
    dims: int = option(300, "dimensions of the word vectors (top singular vectors)")
    weight: float = option(0.0, "singular-value weighting of the vectors: U S^weight; 0 measured best on the offline "
                           "text8 stand-in (WS353-sim .42 vs .37 at 0.5 and .32 at 1)")
    oversample: int = option(10, "randomized SVD: extra sketch columns")
    power_iterations: int = option(4, "randomized SVD: power iterations (more = more exact small singular values)")
    chunk_bytes: int = option(1 << 24, "corpus bytes read and counted at a time")
    seed: int = option(0, "seed of the randomized SVD")

    def validate(self) -> None:
        if self.supervision_weight < -1:
            raise InputError("supervision_weight must be >= -1 (tuning ratios stay non-negative)")
        if self.window < 0 or self.min_count < 1 or self.dims < 1 or self.oversample < 0 or self.power_iterations < 0:
            raise InputError("window, power_iterations, oversample >= 0 and min_count, dims >= 1 are required")
        if self.chunk_bytes < 1 or (self.max_vocab is not None and self.max_vocab < 1):
            raise InputError("chunk_bytes >= 1 and max_vocab >= 1 (or null for every word) are required")
