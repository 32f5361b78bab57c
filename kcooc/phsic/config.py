"""The ``phsic`` config (``configs/dialogue.yaml``); every key is documented in configs/README.md."""

from __future__ import annotations

import dataclasses
from typing import Literal, Union

from ..config import SEED, EncoderConfig, InputConfig, Range, option, section
from ..errors import InputError

# linear and cos have explicit feature maps (kcooc/kernels.py: feature_space), named here so that reading a
# config imports no scipy; their dense float64 covariance C_XY has n_x x n_y entries, at most this many (2 GiB)
FEATURE_SPACE_KERNELS = ("linear", "cos")
MAX_COVARIANCE_ENTRIES = 1 << 28


@dataclasses.dataclass
class KernelConfig:
    name: Literal["linear", "cos", "rbf", "laplacian", "poly"] = option(
        "cos", "kernel on sentence vectors, the same kind on both sides; linear/cos in feature space (Eq. 18-21), "
        "others in data space by incomplete Cholesky (Eq. 30-34)")
    sigma: Union[float, Literal["median"]] = option(
        "median", "rbf/laplacian bandwidth, or 'median' for the median pairwise distance of a 1000-row sample per side "
        "(sigma^2 must stay a normal float)", Range(1e-100, 1e100))
    rank: int = option(100, "incomplete Cholesky: maximum rank d (the paper uses 100)", Range(1, 10000))
    tol: float = option(1e-6, "incomplete Cholesky: stop when every residual diagonal is at most this",
                        Range(0, 1, high_open=True))
    sample: Union[int, None] = option(None, "incomplete Cholesky: pivots chosen from this many seeded random pairs "
                                      "(null = all, as in the paper)", Range(1, 1 << 40))
    normalize: bool = option(False, "scale sentence vectors to unit length before the kernel (rbf/laplacian/poly "
                             "then ignore sentence length; a no-op for cos)")
    degree: int = option(2, "poly: degree", Range(1, 20))
    gamma: float = option(1.0, "poly: scale of x^T x'", Range(0, 1e100, low_open=True))
    coef0: float = option(1.0, "poly: constant term", Range(0, 1e100))


@dataclasses.dataclass
class PhsicConfig:
    input: InputConfig = section(InputConfig, "where the pairs are in the input")
    encoder: EncoderConfig = section(EncoderConfig, "sentence encoder for x (and for y unless y_encoder is set)")
    y_encoder: Union[EncoderConfig, None] = option(None, "a different encoder for y (e.g. another language), with the "
                                                   "keys of encoder; null = same as encoder")
    kernel: KernelConfig = section(KernelConfig, "kernel k on x and l on y")
    seed: int = option(0, "seed for every random choice (bandwidth sample, ICD sample)", SEED)

    def validate(self) -> None:
        x, y = self.encoder, self.y_encoder or self.encoder
        if self.kernel.name in FEATURE_SPACE_KERNELS and x.name == y.name == "hashing":
            entries = x.n_features * y.n_features
            if entries > MAX_COVARIANCE_ENTRIES:
                raise InputError(f"encoder.n_features x y_encoder.n_features = {entries:,} entries of the dense "
                                 f"covariance a {self.kernel.name} kernel keeps; at most 2^28 (2 GiB), "
                                 "e.g. 16384 x 16384")
