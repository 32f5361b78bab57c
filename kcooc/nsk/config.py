"""The ``nsk train`` config (``configs/nsk-*.yaml``); every key is documented in configs/README.md."""

from __future__ import annotations

import dataclasses
from typing import Literal, Union

from ..config import SEED, Range, option, section
from ..errors import InputError

METHODS = ("exact", "random-knn", "klsh")  # k-NN search (hashing.py); here so that reading a config imports no numba


@dataclasses.dataclass
class NskKernelConfig:
    kind: Literal["path", "tree"] = option("path", "path: Mooney & Bunescu's subsequence kernel on tuple sequences; "
                                           "tree: Zelenko et al.'s tree kernel (the input must match)")
    decay: float = option(0.8, "lambda: gap / span decay (the paper: 0.8)", Range(0, 1, low_open=True))
    max_length: int = option(4, "path: longest common subsequence counted", Range(1, 64))
    node_kernel: Literal["exact", "vectors"] = option("exact", "k_n: exact match of node labels, or the word-vector "
                                                      "kernel exp(w'w - 1)((w'w - gamma)/(1 - gamma))_+")
    vectors: Union[str, None] = option(None, "vectors: word2vec text (.vec) or fastText (.bin) file for node labels")
    gamma: float = option(0.6, "vectors: sparsity gamma (the paper: 0.6)", Range(-1, 1, low_open=True, high_open=True))

    def validate(self) -> None:
        if self.node_kernel == "vectors" and not self.vectors:
            raise InputError("kernel.node_kernel vectors needs kernel.vectors (a .vec or .bin file)")


@dataclasses.dataclass
class HashingConfig:
    method: Literal[METHODS] = option("random-knn", "k-NN search: exact (all pairs), random-knn (the paper's "
                                      "hashing), klsh (Kulis & Grauman's kernelized LSH)")
    bits: Union[int, None] = option(None, "H, bits per code (null: log2(N)/2, i.e. ~sqrt(N) buckets)", Range(1, 62))
    reference_size: Union[int, None] = option(None, "M, size of the reference set A (null: ceil(sqrt(N)); at most N)",
                                              Range(2, 1 << 40))
    subset_size: Union[int, None] = option(None, "random-knn: size of H1 and H2 (null: M/4); "
                                           "klsh: t (null: min(30, M/2)); at most M", Range(1, 1 << 40))


@dataclasses.dataclass
class LearnConfig:
    enabled: bool = option(True, "learn binary sigma by Algorithm 1 (false: the stationary kernel, sigma = 1)")
    label_share: float = option(0.5, "learn sigma for this share of the edge labels, most frequent first (paper: 50%)",
                                Range(0, 1, low_open=True))
    beta: int = option(25, "inducing structures per trial (the paper: 25 to 550)", Range(1, 1 << 20))
    alpha: int = option(10, "trials per label (the paper: 10)", Range(1, 1000))
    k_graph: int = option(4, "k of the global k-NN graph (the paper: 4)", Range(1, 10000))
    iterations: int = option(1, "sweeps over the labels, the global graph recomputed before each (Table 4a)",
                             Range(1, 100))


@dataclasses.dataclass
class NskConfig:
    kernel: NskKernelConfig = section(NskKernelConfig, "the convolution kernel")
    hashing: HashingConfig = section(HashingConfig, "how k-NN graphs and classification find neighbours")
    learn: LearnConfig = section(LearnConfig, "stochastic learning of sigma")
    k: int = option(8, "neighbours voting in classification (the paper: 8)", Range(1, 10000))
    max_items: int = option(300, "longer paths / trees are cut to their first this many tuples / nodes (counted in "
                            "the summary): a kernel value costs the product of the two lengths", Range(1, 1 << 20))
    seed: int = option(0, "seed of the hashing and of the learning's samples", SEED)
