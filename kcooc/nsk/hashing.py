"""k-nearest neighbours under a convolution kernel, exact or through kernel-LSH buckets (Garg et al. 2018, §4.2).

A reference set A of M ~ sqrt(N) structures is drawn; every structure's kernel values against A
give an H-bit code, either by Kulis & Grauman's kernelized LSH (random hyperplanes in the kernel's
feature space, approximated through the centred K_A^{-1/2}) or by the paper's random-kNN hashing
(bit j: is the nearest of two random subsets H1_j, H2_j of A the first?). A query is compared
exactly with the structures in its bucket (plus the buckets one bit away when that holds fewer
than k, plus A itself, whose values are already known): about N M + N N / 2^H kernel values for
a whole k-NN graph, O(N^1.5) with 2^H ~ sqrt(N), instead of N^2.
"""

from __future__ import annotations

import collections
from typing import TYPE_CHECKING

import numpy as np

from ..errors import InputError
from .config import METHODS
from .structures import Structures

if TYPE_CHECKING:  # numba compiles the kernels on import
    from .model import ConvolutionKernel


class NeighbourIndex:
    def __init__(self, kernel: ConvolutionKernel, data: Structures, method: str = "random-knn", bits: int | None = None,
                 reference_size: int | None = None, subset_size: int | None = None, seed: int = 0):
        if method not in METHODS:
            raise InputError(f"hashing method must be one of {METHODS}")
        self.kernel, self.data, self.method = kernel, data, method
        n = len(data)
        if method == "exact":
            return
        rng = np.random.default_rng(seed)
        self.reference = np.sort(rng.choice(n, size=min(n, reference_size or int(np.ceil(np.sqrt(n)))), replace=False))
        m = self.reference.size
        self.bits = bits or max(1, int(round(np.log2(max(n, 2)) / 2)))  # 2^H ~ sqrt(N) buckets
        if method == "random-knn":
            size = subset_size or max(1, m // 4)
            picks = [rng.choice(m, size=min(2 * size, m), replace=False) for _ in range(self.bits)]
            self.first = [p[: len(p) // 2] for p in picks]
            self.second = [p[len(p) // 2:] for p in picks]
        else:
            gram = kernel(data, self.reference, data, self.reference)
            self.column_means, self.total_mean = gram.mean(axis=0), gram.mean()
            centre = np.eye(m) - 1.0 / m
            values, vectors = np.linalg.eigh(centre @ gram @ centre)
            keep = values > 1e-9 * max(values.max(), 1e-300)
            inverse_root = (vectors[:, keep] / np.sqrt(values[keep])) @ vectors[:, keep].T
            size = min(subset_size or max(1, min(30, m // 2)), m)
            choice = np.zeros((m, self.bits))
            for b in range(self.bits):
                choice[rng.choice(m, size=size, replace=False), b] = 1.0 / size
            self.hyperplanes = inverse_root @ choice
        self.to_reference = kernel(data, np.arange(n), data, self.reference)
        self.codes = self._codes(self.to_reference)
        self.buckets: dict[int, np.ndarray] = {}
        for code, members in _group(self.codes).items():
            self.buckets[code] = members

    def _codes(self, to_reference: np.ndarray) -> np.ndarray:
        if self.method == "random-knn":
            bits = [to_reference[:, a].max(axis=1) > to_reference[:, b].max(axis=1)
                    for a, b in zip(self.first, self.second)]
        else:
            centred = (to_reference - to_reference.mean(axis=1, keepdims=True) - self.column_means + self.total_mean)
            bits = list((centred @ self.hyperplanes > 0).T)
        return np.sum([b.astype(np.int64) << i for i, b in enumerate(bits)], axis=0)

    def _candidates(self, code: int, k: int) -> np.ndarray:
        found = [self.buckets.get(code, np.zeros(0, np.int64))]
        if found[0].size <= k:
            found += [self.buckets[code ^ (1 << b)] for b in range(self.bits) if code ^ (1 << b) in self.buckets]
        return np.unique(np.concatenate(found + [self.reference]))

    def query(self, queries: Structures, k: int, exclude_self: bool = False) -> tuple[np.ndarray, np.ndarray]:
        """(indices, similarities) of the k nearest data structures per query; -1 / -inf pad missing ones.

        With ``exclude_self`` the queries are the indexed data itself and a structure is not its own neighbour.
        """
        n_queries = len(queries)
        indices, similarities = np.full((n_queries, k), -1, np.int64), np.full((n_queries, k), -np.inf)
        if self.method == "exact":
            for start in range(0, n_queries, 512):
                rows = np.arange(start, min(start + 512, n_queries))
                block = self.kernel(queries, rows, self.data, np.arange(len(self.data)))
                if exclude_self:
                    block[np.arange(rows.size), rows] = -np.inf
                indices[rows], similarities[rows] = _top(block, np.arange(len(self.data)), k)
            return indices, similarities
        codes = self.codes if exclude_self else self._codes(self.kernel(queries, np.arange(n_queries), self.data,
                                                                        self.reference))
        for code, rows in _group(codes).items():
            candidates = self._candidates(int(code), k + int(exclude_self))
            block = self.kernel(queries, rows, self.data, candidates)
            if exclude_self:
                block[candidates[None, :] == rows[:, None]] = -np.inf
            indices[rows], similarities[rows] = _top(block, candidates, k)
        return indices, similarities


def _group(codes: np.ndarray) -> dict[int, np.ndarray]:
    groups = collections.defaultdict(list)
    for i, code in enumerate(codes):
        groups[int(code)].append(i)
    return {code: np.array(members, np.int64) for code, members in groups.items()}


def _top(block: np.ndarray, candidates: np.ndarray, k: int) -> tuple[np.ndarray, np.ndarray]:
    """The k best columns of each row as (candidate indices, values), -1 / -inf padded (ties: lower index first)."""
    take = min(k, block.shape[1])
    order = np.argsort(-block, axis=1, kind="stable")[:, :take]
    values = np.take_along_axis(block, order, axis=1)
    index = np.full((block.shape[0], k), -1, np.int64)
    similarity = np.full((block.shape[0], k), -np.inf)
    index[:, :take] = np.where(np.isfinite(values), candidates[order], -1)
    similarity[:, :take] = values
    return index, similarity


def knn_predict(neighbour_labels: np.ndarray, neighbour_index: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Majority vote of the found neighbours (ties: the nearest one's label); returns (labels, positive share)."""
    found = neighbour_index >= 0
    votes = np.where(found, neighbour_labels, 0).sum(axis=1)
    counts = found.sum(axis=1)
    share = np.divide(votes, counts, out=np.zeros(votes.shape), where=counts > 0)
    nearest = np.where(found[:, 0], neighbour_labels[:, 0], 0)
    return np.where(share > 0.5, 1, np.where(share < 0.5, 0, nearest)), share
