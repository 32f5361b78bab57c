"""The ``srk classify`` config (``configs/srk-*.yaml``); every key is documented in configs/README.md."""

from __future__ import annotations

import dataclasses
from typing import Literal, Union

from ..config import SEED, InputConfig, Range, option, section
from ..errors import InputError

# Defined here, not beside the maths that uses them, so that reading a config (and `--help`) does not
# import numba and scipy.
MAX_K = 8  # the longest k-gram: kernel.py packs a linking of k positions into one key
WORDNET_TYPES = ("lemma", "synonym", "antonym", "hypernym", "hyponym", "entailment", "holonym")
TYPES = ("id", "stem", "pronoun", "lvhsn") + WORDNET_TYPES
SVM_C = Range(0, 1e6, low_open=True)  # the SVM's C: svm.c_grid and --svm-c


@dataclasses.dataclass
class PairInputConfig(InputConfig):
    label_col: Union[int, str] = option(1, "label column (1/0 or +1/-1; in the test file '?' or empty = unknown)")
    src_col: Union[int, str] = option(2, "first sentence (source s) column: 1-based index or header name")
    tgt_col: Union[int, str] = option(3, "second sentence (target t) column")
    qid_col: Union[int, str, None] = option(None, "question id column: makes it a ranking task (C by MRR; MAP and "
                                           "MRR reported); null = classification")


@dataclasses.dataclass
class KernelTermConfig:
    kind: Literal["srk", "pr"] = option("srk", "srk: a (type-enriched) kb-SRK per k; pr: unigram precision/recall")
    k: list[int] = option([1, 2, 3, 4], "srk: k-gram lengths; each k is one normalised kernel of the sum",
                          Range(1, MAX_K))
    pattern_types: list[str] = option(["id"], "srk: pattern types Sigma_p (" + ", ".join(TYPES) + ")")
    variable_types: list[str] = option(["id"], "srk: variable types Sigma_v (same names)")

    def validate(self) -> None:
        if self.kind == "srk":
            if not self.k:
                raise InputError("kernels[].k must list k-gram lengths")
            unknown = [t for t in self.pattern_types + self.variable_types if t not in TYPES]
            if unknown:
                raise InputError(f"unknown word type {unknown[0]!r}; choose from {', '.join(TYPES)}")


@dataclasses.dataclass
class SvmConfig:
    c_grid: list[float] = option([0.01, 0.1, 1.0, 10.0, 100.0],
                                 "C values tried by cross-validation on the training set", SVM_C)
    folds: int = option(10, "cross-validation folds (by question with input.qid_col)", Range(2, 1000))
    class_weight: Literal["none", "balanced"] = option("none", "balanced: weight classes by inverse frequency")

    def validate(self) -> None:
        if not self.c_grid:
            raise InputError("svm.c_grid needs at least one value")


def paper_kernels() -> list[KernelTermConfig]:
    """TESRK + PR of the paper's paraphrase system: SRK for k = 1 (§4.3), types {stem, synonym} for k = 2..4."""
    return [KernelTermConfig("srk", [1], ["stem"], ["stem"]),
            KernelTermConfig("srk", [2, 3, 4], ["stem", "synonym"], ["stem", "synonym"]),
            KernelTermConfig("pr", [], [], [])]


@dataclasses.dataclass
class SrkConfig:
    input: PairInputConfig = section(PairInputConfig, "which columns hold the label, the sentences, the question id")
    lowercase: bool = option(True, "lower-case sentences before tokenising")
    strip_punctuation: bool = option(True, "remove ASCII punctuation before splitting on spaces")
    max_tokens: int = option(80, "longer sentences are cut to this many tokens (counted in the summary)",
                             Range(1, 10000))
    kernels: list[KernelTermConfig] = dataclasses.field(
        default_factory=paper_kernels,
        metadata={"doc": "terms of the kernel sum, each normalised, the sum normalised (paper §4.1); default: "
                         "SRK k=1 [stem] + TESRK k=2..4 [stem, synonym] + PR"})
    wordnet: Union[str, None] = option(None, "WordNet 3.0 dictionary folder (null: $KCOOC_WORDNET or "
                                       "/usr/share/wordnet from Debian's wordnet-base)")
    svm: SvmConfig = section(SvmConfig, "the SVM (scikit-learn SVC on the precomputed kernel)")
    tile_rows: int = option(256, "Gram rows computed (and cached) per tile", Range(1, 1 << 16))
    seed: int = option(0, "seed of the cross-validation folds", SEED)

    def validate(self) -> None:
        if not self.kernels:
            raise InputError("kernels: at least one term")
