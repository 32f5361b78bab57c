"""What every back end shares: the :class:`Engine` interface, the per-process cache of prepared
contexts, and submission with a bounded number of tasks in flight, results in order."""

from __future__ import annotations

import abc
import collections
from typing import Any, Callable, Iterable, Iterator

from ..threads import single_threaded_blas

_runtimes: dict[str, Any] = {}


def runtime_of(token: str, context: Callable[[], Any]) -> Any:
    """The prepared runtime of the context that ``token`` names, in this process: ``context().prepare()``
    the first time (only the latest context is kept)."""
    if token not in _runtimes:
        _runtimes.clear()
        _runtimes[token] = context().prepare()
    return _runtimes[token]


def run_prepared(task: Callable, runtime: Any, item: Any) -> Any:
    """One task, with one BLAS thread (see threads.single_threaded_blas)."""
    with single_threaded_blas():
        return task(runtime, item)


def ordered(submit: Callable[[Any], Any], items: Iterable, depth: int) -> Iterator:
    """Submit items, keep at most ``depth`` futures pending, yield results in submission order."""
    pending: collections.deque = collections.deque()
    for item in items:
        pending.append(submit(item))
        if len(pending) >= depth:
            yield pending.popleft().result()
    while pending:
        yield pending.popleft().result()


class Engine(abc.ABC):
    """Runs the tasks of a pass; says what a job may rely on: ``shares_local_disk`` (every worker
    reads and writes this machine's files, so a pass can leave data on disk for the next) and
    ``local_cores`` (cores of this machine the run may use: threads in the calling process)."""

    name = "engine"
    shares_local_disk = True
    local_cores = 1

    def __enter__(self) -> "Engine":
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def close(self) -> None:
        """Release the workers; engines that hold none keep this no-op."""
        return None

    @abc.abstractmethod
    def map(self, task: Callable, context: Any, items: Iterable) -> Iterator:
        """``task(context.prepare(), item)`` for each item, in order; ``context`` is any picklable
        object with a ``prepare()`` method, prepared once per worker process."""

    def describe(self) -> dict:
        return {"engine": self.name}
