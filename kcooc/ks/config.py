"""The ``ks align`` config (``configs/ks-*.yaml``); every key is documented in configs/README.md."""

from __future__ import annotations

import dataclasses
from typing import Literal, Union

from ..config import SEED, Range, option, section
from ..errors import InputError


@dataclasses.dataclass
class FeaturesConfig:
    kind: Literal["tfidf", "chars", "kernel"] = option(
        "tfidf", "tfidf: documents (linear kernel on TF-IDF); chars: names (linear kernel on character n-gram counts); "
        "kernel: your own .npy kernel matrices (source_kernel, target_kernel)")
    source_language: Union[str, None] = option(None, "tfidf: Snowball stemmer for the source side, e.g. english "
                                               "(null = no stemming)")
    target_language: Union[str, None] = option(None, "tfidf: Snowball stemmer for the target side, e.g. spanish")
    max_df: float = option(0.5, "tfidf: words in more than this share of a side's documents are stop words",
                           Range(0, 1, low_open=True))
    min_df: int = option(1, "tfidf: drop words in fewer documents than this", Range(1, 1 << 40))
    ngram_min: int = option(1, "chars: shortest character n-gram", Range(1, 32))
    ngram_max: int = option(3, "chars: longest character n-gram", Range(1, 32))
    romanise: bool = option(False, "chars: romanise the target side with anyascii before counting n-grams (the paper "
                            "romanised its Arabic names); needs the anyascii package (kcooc[translit])")
    skeleton: bool = option(False, "chars: count n-grams of both sides' consonant skeletons instead (romanised with "
                            "anyascii, article al-/el- dropped, look-alike consonants merged, vowels and w/y/h "
                            "dropped: Arabic script writes no short vowels); not in the paper; needs anyascii "
                            "(kcooc[translit])")
    weighting: Literal["count", "binary", "sqrt"] = option(
        "count", "chars: n-gram counts as they are (the paper), binary (present or not) or their square root")
    normalise: bool = option(False, "chars: scale each name's n-gram vector to unit length (cosine kernel), so long "
                             "names do not dominate; not in the paper")
    source_kernel: Union[str, None] = option(None, "kernel: .npy (n x n) kernel matrix of the source objects")
    target_kernel: Union[str, None] = option(None, "kernel: .npy kernel matrix of the target objects")

    def validate(self) -> None:
        if self.ngram_min > self.ngram_max:
            raise InputError("features: need ngram_min <= ngram_max")


@dataclasses.dataclass
class KsConfig:
    features: FeaturesConfig = section(FeaturesConfig, "how objects become kernel matrices")
    method: Literal["ks", "p-smooth", "s-u", "s-z", "mcca", "convex"] = option(
        "s-z", "ks: the baseline; p-smooth: sub-polynomial sweep; s-u / s-z: p-smooth with seeds, uniform / zero "
        "weights for unconfident alignments (paper Table 1); mcca: matching CCA on the seeds; convex: convex "
        "kernelized sorting (Djuric et al. 2012) by Frank-Wolfe, with the seeds if any are given")
    p_start: float = option(0.05, "p-smooth grid: first p (the paper: 0.01)", Range(0, 1, low_open=True))
    p_stop: float = option(1.0, "p-smooth grid: last p", Range(0, 1, low_open=True))
    p_step: float = option(0.05, "p-smooth grid: step (the paper: 0.01)", Range(0.001, 1))
    delta: int = option(2, "s-u / s-z / mcca: new confident alignments added per iteration", Range(1, 1 << 40))
    max_iter: int = option(100, "ks / p-smooth: iterations per start at most", Range(1, 100000))
    ks_step: float = option(0.5, "ks: weight of the new LAP solution in the convex combination",
                            Range(0, 1, low_open=True))
    convex_iter: int = option(300, "convex: Frank-Wolfe iterations at most", Range(1, 100000))
    mcca_dims: int = option(20, "mcca: kernel PCA dimensions per side", Range(1, 10000))
    mcca_reg: float = option(0.1, "mcca: ridge added to the covariances", Range(0, 1e6))
    unsmoothed: bool = option(False, "p-smooth / s-u / s-z: also run on the unsmoothed kernels (centred, zero "
                              "diagonal) as one more grid point, kept if it scores highest on the reference objective; "
                              "not in the paper (helps when the features already tame the diagonal, e.g. normalise)")
    seed: int = option(0, "seed for --random-seeds", SEED)

    def validate(self) -> None:
        if self.p_start > self.p_stop:
            raise InputError("need p_start <= p_stop")

    def p_values(self) -> list[float | None]:
        """The p grid; None stands for the unsmoothed kernels (``unsmoothed``)."""
        count = int(round((self.p_stop - self.p_start) / self.p_step)) + 1
        grid = [round(self.p_start + i * self.p_step, 6) for i in range(count)
                if self.p_start + i * self.p_step <= self.p_stop + 1e-9]
        return grid + [None] if self.unsmoothed else grid
