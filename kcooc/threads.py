"""Threads: how many the maths may use (BLAS around a computation, numba's parallel loops), and a
background thread that produces the next items while the current one is computed (:func:`prefetch`)."""

from __future__ import annotations

import queue
import threading
from typing import Iterable, Iterator, TypeVar


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


T = TypeVar("T")


class _Failure:
    def __init__(self, exc: BaseException):
        self.exc = exc


def prefetch(items: Iterable[T], depth: int = 2) -> Iterator[T]:
    """Produce ``items`` in a background thread, at most ``depth`` ahead, in their order.

    Reading, decoding and encoding the next block overlap the maths on the current one where
    either side releases the GIL (BLAS, numba, most numpy). An error in the producer is raised
    in the consumer.
    """
    handoff: queue.Queue = queue.Queue(maxsize=depth)
    done = object()

    def produce() -> None:
        try:
            for item in items:
                handoff.put(item)
            handoff.put(done)
        except BaseException as exc:  # noqa: BLE001 - re-raised in the consuming thread
            handoff.put(_Failure(exc))

    threading.Thread(target=produce, daemon=True).start()
    while True:
        item = handoff.get()
        if item is done:
            return
        if isinstance(item, _Failure):
            raise item.exc
        yield item
