"""How many threads the maths may use: BLAS threads around a computation, numba's parallel loops."""

from __future__ import annotations


def single_threaded_blas():
    """A context with one BLAS thread. Every task of every engine runs in one (a BLAS splits its sums
    by thread count, so a task must see the same count in a serial run and in a worker to give the
    same bytes), and so do solvers whose bytes must not depend on the machine's cores."""
    import numpy  # noqa: F401 - threadpoolctl only sees libraries already loaded
    from threadpoolctl import threadpool_limits

    return threadpool_limits(1)


def use_threads(jobs: int | None) -> None:
    """Threads for numba's parallel loops (None: all cores)."""
    if jobs:
        import numba

        numba.set_num_threads(min(jobs, numba.config.NUMBA_NUM_THREADS))
