"""The ``phsic`` config (``configs/dialogue.yaml``); every key is documented in configs/README.md."""

from __future__ import annotations

import dataclasses
from typing import Literal, Union

from ..config import EncoderConfig, InputConfig, option, section
from ..errors import InputError


@dataclasses.dataclass
class KernelConfig:
    name: Literal["linear", "cos", "rbf", "laplacian", "poly"] = option(
        "cos", "kernel on sentence vectors, the same kind on both sides; linear/cos in feature space (Eq. 18-21), "
        "others in data space by incomplete Cholesky (Eq. 30-34)")
    sigma: Union[float, Literal["median"]] = option(
        "median", "rbf/laplacian bandwidth, or 'median' for the median pairwise distance of a 1000-row sample per side")
    rank: int = option(100, "incomplete Cholesky: maximum rank d (the paper uses 100)")
    tol: float = option(1e-6, "incomplete Cholesky: stop when every residual diagonal is at most this")
    sample: Union[int, None] = option(None, "incomplete Cholesky: pivots chosen from this many seeded random pairs "
                                      "(null = all, as in the paper)")
    normalize: bool = option(False, "scale sentence vectors to unit length before the kernel (rbf/laplacian/poly "
                             "then ignore sentence length; a no-op for cos)")
    degree: int = option(2, "poly: degree")
    gamma: float = option(1.0, "poly: scale of x^T x'")
    coef0: float = option(1.0, "poly: constant term")

    def validate(self) -> None:
        if self.rank < 1 or self.tol < 0 or (self.sample is not None and self.sample < 1):
            raise InputError("kernel.rank and kernel.sample must be >= 1 and kernel.tol >= 0")
        if self.sigma != "median" and self.sigma <= 0:
            raise InputError("kernel.sigma must be positive or 'median'")


@dataclasses.dataclass
class PhsicConfig:
    input: InputConfig = section(InputConfig, "where the pairs are in the input")
    encoder: EncoderConfig = section(EncoderConfig, "sentence encoder for x (and for y unless y_encoder is set)")
    y_encoder: Union[EncoderConfig, None] = option(None, "a different encoder for y (e.g. another language), with the "
                                                   "keys of encoder; null = same as encoder")
    kernel: KernelConfig = section(KernelConfig, "kernel k on x and l on y")
    seed: int = option(0, "seed for every random choice (bandwidth sample, ICD sample)")
