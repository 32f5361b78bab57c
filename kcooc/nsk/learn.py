"""Stochastic learning of binary sigma (Garg et al. 2018, §6: Loss Function 1 and Algorithm 1).

Loss on a 1-NN graph: L = sum_i K(i, 1nn(i)) [y_i != y_1nn(i)] - sum_i K(i, 1nn(i)) [y_i = y_1nn(i) = 1].
For each of the most frequent edge labels in turn (Algorithm 1, lines 4-18): alpha trials, each
draws beta inducing structures containing the label, adds their k neighbours in both directions
on the global k-NN graph and those neighbours' first neighbours (lines 6-10), and sums the loss of
the exact 1-NN graph on that subset with sigma_t = 0 and with sigma_t = 1 (lines 11-15); sigma_t
takes the value of the smaller total (line 17; a tie keeps 1). With ``iterations`` > 1 the global
graph is recomputed with the new sigma and the sweep repeated (the paper's Table 4a).
"""

from __future__ import annotations

import dataclasses
from typing import Callable

import numpy as np

from .hashing import NeighbourIndex
from .model import ConvolutionKernel
from .structures import Structures


def nn_loss(kernel: ConvolutionKernel, data: Structures) -> float:
    """Loss Function 1 on the exact 1-NN graph of ``data`` (a structure is not its own neighbour)."""
    n = len(data)
    if n < 2:
        return 0.0
    gram = kernel(data, np.arange(n), data, np.arange(n))
    np.fill_diagonal(gram, -np.inf)
    nearest = gram.argmax(axis=1)
    similarity = gram[np.arange(n), nearest]
    y, y_nn = data.labels, data.labels[nearest]
    return float(similarity[y != y_nn].sum() - similarity[(y == 1) & (y_nn == 1)].sum())


@dataclasses.dataclass
class LearningReport:
    sigma: np.ndarray
    learned: list[int]                       # edge ids whose sigma was optimised, most frequent first
    losses: list[tuple[int, float, float]]   # (edge id, summed loss with sigma 0, with sigma 1), in order
    evaluations: int


def learn_sigma(kernel: ConvolutionKernel, data: Structures, labels: list[int], beta: int, alpha: int, k_graph: int,
                iterations: int, index_options: dict, seed: int,
                on_label: Callable[[int, float, float, float], None] | None = None) -> LearningReport:
    """Algorithm 1 over the edge ids ``labels`` (most frequent first); returns the learned sigma.
    ``on_label(edge id, loss with sigma 0, loss with sigma 1, chosen sigma)`` follows each decision."""
    rng = np.random.default_rng(seed)
    n_edges = max(int(data.edges.max()) + 1, kernel.sigma.size)
    sigma = np.r_[kernel.sigma, np.ones(n_edges - kernel.sigma.size)]
    owner = np.repeat(np.arange(len(data)), np.diff(data.ptr))
    evaluations, losses = 0, []
    for _ in range(iterations):
        graph_kernel = kernel.with_sigma(sigma)
        index = NeighbourIndex(graph_kernel, data, seed=int(rng.integers(1 << 31)), **index_options)
        graph, _ = index.query(data, k_graph, exclude_self=True)
        evaluations += graph_kernel.evaluations
        incoming = [[] for _ in range(len(data))]
        for source, targets in enumerate(graph):
            for target in targets[targets >= 0]:
                incoming[target].append(source)
        for label in labels:
            containing = np.unique(owner[data.edges == label])
            totals = np.zeros(2)
            for _ in range(alpha):
                inducing = rng.choice(containing, size=min(beta, containing.size), replace=False)
                out_neighbours = graph[inducing].ravel()
                in_neighbours = np.array([s for r in inducing for s in incoming[r]], np.int64)
                around = np.unique(np.r_[out_neighbours, in_neighbours])
                around = around[around >= 0]
                firsts = graph[around, 0] if around.size else np.zeros(0, np.int64)
                subset = data.subset(np.unique(np.r_[inducing, around, firsts[firsts >= 0]]))
                for value in (0, 1):
                    trial = sigma.copy()
                    trial[label] = value
                    trial_kernel = kernel.with_sigma(trial)
                    totals[value] += nn_loss(trial_kernel, subset)
                    evaluations += trial_kernel.evaluations
            sigma[label] = 0.0 if totals[0] < totals[1] else 1.0
            losses.append((int(label), float(totals[0]), float(totals[1])))
            if on_label:
                on_label(int(label), float(totals[0]), float(totals[1]), float(sigma[label]))
    return LearningReport(sigma, list(labels), losses, evaluations)
