"""The methods of the paper's Table 2 on raw kernel matrices: KS (baseline), p-smooth, S-U, S-Z.

p-smooth sweeps p over a grid (paper: 0.01 to 1); each p is started from its own PCA
initialisation (in parallel on an engine, if given one) and from the neighbouring p's best solution. The paper
chains upwards from p = 0.01; we chain downwards from the largest p, starting from the KS
baseline's solution: on the debian-handbook documents the PCA starts of the smoothed kernels were
poor (1-3 of 127 pairs right) while the baseline's solution refined by smoothed kernels recovered
all 127 (measured, see docs/results-ks.md). Solutions of different p are compared by one reference
objective, tr(K pi^T L pi) on the centred unsmoothed kernels with zero diagonal (HSIC without the
diagonal bias the paper warns of), since each p's own objective lives on a different kernel.
"""

from __future__ import annotations

import numpy as np

from ..threads import single_threaded_blas
from .sorting import Trace, centre, objective, pca_initialisations, sort, sort_with_seeds, sub_polynomial


def zero_diagonal(K: np.ndarray) -> np.ndarray:
    K = np.array(K, dtype=np.float64)
    np.fill_diagonal(K, 0.0)
    return K


def reference_kernels(K: np.ndarray, L: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    return centre(zero_diagonal(K)), centre(zero_diagonal(L))


def kernelized_sorting(K: np.ndarray, L: np.ndarray, *, step: float = 0.5, max_iter: int = 100) -> Trace:
    """The baseline (Quadrianto et al.): zero diagonal, centred kernels, PCA initialisation with
    both signs, convex combination of successive solutions; the better of the two runs."""
    Kc, Lc = reference_kernels(K, L)
    runs = [sort(Kc, Lc, init, step=step, max_iter=max_iter) for init in pca_initialisations(Kc, Lc)]
    return max(runs, key=lambda t: t.objective)


class SweepContext:
    """What every p of the sweep shares (an engine's context: ``prepare`` runs once per worker)."""

    def __init__(self, K, L, seeds, fill, delta, max_iter):
        self.K, self.L, self.seeds, self.fill, self.delta, self.max_iter = K, L, seeds, fill, delta, max_iter

    def prepare(self) -> "SweepContext":
        self.reference = reference_kernels(self.K, self.L)
        return self

    def kernels(self, p: float | None) -> tuple[np.ndarray, np.ndarray]:
        """The centred p-smoothed kernels; p = None: the unsmoothed reference kernels."""
        if p is None:
            return self.reference
        return centre(sub_polynomial(self.K, p)), centre(sub_polynomial(self.L, p))

    def scored(self, trace: Trace) -> Trace:
        trace.objective = objective(*self.reference, trace.match)
        return trace


def pca_task(ctx: SweepContext, p: float | None) -> Trace:
    Kp, Lp = ctx.kernels(p)
    runs = [sort(Kp, Lp, init, max_iter=ctx.max_iter) for init in pca_initialisations(Kp, Lp)]
    return ctx.scored(max(runs, key=lambda t: objective(Kp, Lp, t.match)))


def seeded_task(ctx: SweepContext, p: float | None) -> Trace:
    Kp, Lp = ctx.kernels(p)
    return ctx.scored(sort_with_seeds(Kp, Lp, ctx.seeds, fill=ctx.fill, delta=ctx.delta))


def p_smooth(K: np.ndarray, L: np.ndarray, p_values: list[float | None], *, seeds: dict[int, int] | None = None,
             fill: str = "zero", delta: int = 2, max_iter: int = 100,
             engine=None) -> tuple[Trace, float, list[tuple[float, float]]]:
    """Best matching over the p grid: (trace, its p, [(p, reference objective)] per p).

    Without seeds: p-smooth. With seeds: S-Z (``fill='zero'``) or S-U (``'uniform'``). A p of None
    runs on the unsmoothed reference kernels (treated as the largest p in the warm-start chain).
    ``engine`` (a kcooc.engine back end) runs the p values in parallel; None: one after the other, here.
    """
    ctx = SweepContext(np.asarray(K, float), np.asarray(L, float), seeds, fill, delta, max_iter)
    task = seeded_task if seeds else pca_task
    if engine is not None:
        traces = list(engine.map(task, ctx, p_values))
    else:
        runtime = ctx.prepare()
        with single_threaded_blas():  # as every engine's tasks: the same bytes
            traces = [task(runtime, p) for p in p_values]
    if not seeds:  # then warm starts: from the baseline's solution at the largest p, down the grid
        local = ctx.prepare()
        previous = kernelized_sorting(K, L, max_iter=max_iter).match
        for index in sorted(range(len(p_values)), key=lambda i: -np.inf if p_values[i] is None else -p_values[i]):
            Kp, Lp = local.kernels(p_values[index])
            warm = local.scored(sort(Kp, Lp, previous, max_iter=max_iter))
            if warm.objective > traces[index].objective:
                traces[index] = warm
            previous = traces[index].match
    best = int(np.argmax([t.objective for t in traces]))
    return traces[best], p_values[best], [(p, t.objective) for p, t in zip(p_values, traces)]
