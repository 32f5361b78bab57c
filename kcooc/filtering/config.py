"""The ``filter-parallel`` config (``configs/filter-*.yaml``); every key is documented in configs/README.md."""

from __future__ import annotations

import dataclasses
from typing import Literal, Union

from ..config import option, section
from ..errors import InputError
from ..phsic.config import KernelConfig, PhsicConfig
from ..text import LANGUAGE_SCRIPTS

Language = Union[Literal[tuple(sorted(LANGUAGE_SCRIPTS))], None]


@dataclasses.dataclass
class FilterKernelConfig(KernelConfig):
    sample: Union[int, None] = option(
        20000, "incomplete Cholesky: pivots and bandwidth from this many pairs, drawn by a seeded hash of the "
        "line number (the same sample on any engine); null = every pair, held in memory")


@dataclasses.dataclass
class RulesConfig:
    empty_side: bool = option(True, "drop pairs with an empty (or all-whitespace) side")
    identical_sides: bool = option(True, "drop pairs whose sides are equal ignoring case and surrounding spaces (untranslated copies)")
    max_chars: Union[int, None] = option(1000, "drop pairs with a side longer than this many characters (null = off)")
    max_length_ratio: Union[float, None] = option(
        3.0, "drop pairs whose longer side has more than this many times the characters of the shorter (null = off)")
    control_chars: bool = option(True, "drop pairs with control characters, U+FFFD (bad encoding upstream) or stray byte-order marks")
    src_language: Language = option(None, "declared source language; drop pairs whose source side has letters but too "
                                    "few in its script (null = off)")
    tgt_language: Language = option(None, "declared target language, as src_language")
    min_script_ratio: float = option(0.1, "script rule: least share of a side's letters that must be in its language's script")
    dedup: bool = option(True, "keep only the first copy of exactly duplicated pairs (the copies still count in the statistics)")

    def validate(self) -> None:
        if self.max_chars is not None and self.max_chars < 1:
            raise InputError("rules.max_chars must be >= 1 or null")
        if self.max_length_ratio is not None and self.max_length_ratio < 1:
            raise InputError("rules.max_length_ratio must be >= 1 or null")
        if not 0 <= self.min_script_ratio <= 1:
            raise InputError("rules.min_script_ratio must be in [0, 1]")


@dataclasses.dataclass
class SelectConfig:
    threshold: Union[float, None] = option(None, "keep pairs scoring at least this (combines with the others)")
    top_k: Union[int, None] = option(None, "keep the k best-scoring pairs")
    top_ratio: Union[float, None] = option(None, "keep this share (0-1] of the pairs that pass the rules, best first")
    word_budget: Union[int, None] = option(None, "keep the best pairs until this many words (Zipporah-style)")
    budget_side: Literal["src", "tgt", "both"] = option("src", "word_budget counts whitespace-separated words of this side")

    def validate(self) -> None:
        chosen = [k for k in ("top_k", "top_ratio", "word_budget") if getattr(self, k) is not None]
        if len(chosen) > 1:
            raise InputError(f"choose one of select.top_k, select.top_ratio, select.word_budget (got {', '.join(chosen)})")
        if (self.top_k is not None and self.top_k < 0) or (self.word_budget is not None and self.word_budget < 0):
            raise InputError("select.top_k and select.word_budget must be >= 0")
        if self.top_ratio is not None and not 0 < self.top_ratio <= 1:
            raise InputError("select.top_ratio must be in (0, 1]")


@dataclasses.dataclass
class FilterConfig(PhsicConfig):
    """The PHSIC keys (input, encoder, y_encoder, kernel, seed) plus the filtering ones."""

    kernel: FilterKernelConfig = section(FilterKernelConfig, "PHSIC kernel (the paper filters with fastText + RBF)")
    rules: RulesConfig = section(RulesConfig, "hard rules applied before scoring; each drop is counted under its name")
    select: SelectConfig = section(SelectConfig, "which scored pairs to keep; none set = every pair that passes the rules")
    task_lines: int = option(16384, "lines per task (the unit sent to a worker and reduced in order; results do not "
                             "depend on the engine or the number of jobs, but do on this)")

    def validate(self) -> None:
        if self.task_lines < 1:
            raise InputError("task_lines must be >= 1")
