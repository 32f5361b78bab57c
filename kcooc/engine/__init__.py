"""Back ends for sharded map jobs: in-process, local processes (``--jobs N``) and Dask.

A job is a picklable *context* (everything each task needs: encoder specs, model state) and a
stream of items (blocks of input). ``engine.map(task, context, items)`` yields
``task(runtime, item)`` for every item, **in item order**, with a bounded number of items in
flight, so memory stays at a few blocks whatever the input size. ``runtime`` is
``context.prepare()``, built once per worker process (encoders are loaded once, not per task).

Results never depend on the engine: each task computes the same function of the same item, and
the caller reduces results in item order, so serial, ``--jobs N`` and Dask runs give
byte-identical outputs.
"""

from __future__ import annotations

import abc
import collections
import contextlib
import multiprocessing
import os
import pickle
import signal
import sys
import tempfile
import threading
import time
import uuid
from concurrent.futures import ProcessPoolExecutor
from typing import Any, Callable, Iterable, Iterator

from ..errors import InputError, KcoocError
from ..io import prefetch
from ..threads import single_threaded_blas


class Context(abc.ABC):
    """What every task of one pass shares; ``prepare`` turns it into the runtime object."""

    def __init__(self):
        self.token = uuid.uuid4().hex

    @abc.abstractmethod
    def prepare(self) -> Any:
        """Build the expensive parts (encoders, feature maps) once per process."""


_runtimes: dict[str, Any] = {}


def runtime_of(context: Context) -> Any:
    """The prepared runtime of ``context`` in this process (only the latest context is kept)."""
    if context.token not in _runtimes:
        _runtimes.clear()
        _runtimes[context.token] = context.prepare()
    return _runtimes[context.token]


def run_task(task: Callable, context: Context, item: Any) -> Any:
    with single_threaded_blas():
        return task(runtime_of(context), item)


def _ordered(submit: Callable[[Any], Any], items: Iterable, depth: int) -> Iterator:
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
        pass

    @abc.abstractmethod
    def map(self, task: Callable, context: Context, items: Iterable) -> Iterator:
        """``task(context.prepare(), item)`` for each item, in order."""

    def describe(self) -> dict:
        return {"engine": self.name}


class SerialEngine(Engine):
    name = "serial"

    def map(self, task, context, items):
        """Items are read one ahead in a thread, overlapping I/O and parsing with the maths."""
        runtime = runtime_of(context)
        for item in prefetch(items, depth=1):
            with single_threaded_blas():
                result = task(runtime, item)
            yield result


def run_pickled_task(task: Callable, token: str, path: str, item: Any) -> Any:
    """In a worker: the context comes from ``path`` the first time this process sees ``token``."""
    if token not in _runtimes:
        with open(path, "rb") as f:
            runtime_of(pickle.load(f))
    with single_threaded_blas():
        return task(_runtimes[token], item)


def _start_worker(parent: int) -> None:
    """Worker set-up: die with the parent, and one BLAS thread per worker.

    N workers on N cores, not N x BLAS threads (oversubscribed BLAS made --jobs 2 no faster); the
    variables cover a BLAS loaded later. A parent killed by SIGKILL cannot stop its pool, so each
    worker watches it: Linux sends SIGKILL on the parent's death (PR_SET_PDEATHSIG), elsewhere a
    thread polls the parent pid.
    """
    for name in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
        os.environ[name] = "1"
    reuse_freed_memory()
    _die_with_parent(parent)


def reuse_freed_memory() -> None:
    """Let glibc's malloc keep freed blocks for reuse instead of giving them back to the kernel
    after every task: blocks up to 32 MB come from its heap (M_MMAP_THRESHOLD) and up to 1 GB of
    free heap is kept (M_TRIM_THRESHOLD). Otherwise every task's large arrays (bincounts,
    encodings, statistics, a few MB each) are fresh pages that the kernel zeroes on first touch:
    in filter-parallel's screen pass that was a fifth of the workers' CPU time (system time).
    Values are unchanged; elsewhere than glibc this does nothing."""
    with contextlib.suppress(OSError, AttributeError, TypeError):
        import ctypes

        mallopt = ctypes.CDLL(None).mallopt
        mallopt(-3, 32 << 20)  # M_MMAP_THRESHOLD
        mallopt(-1, 1 << 30)  # M_TRIM_THRESHOLD


def _die_with_parent(parent: int) -> None:
    if sys.platform.startswith("linux"):
        with contextlib.suppress(OSError, AttributeError):
            import ctypes

            PR_SET_PDEATHSIG = 1
            ctypes.CDLL(None, use_errno=True).prctl(PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)

    def watch() -> None:
        while os.getppid() == parent:
            time.sleep(0.5)
        os._exit(1)

    if os.getppid() != parent:  # the parent died before the death signal was armed
        os._exit(1)
    threading.Thread(target=watch, name="kcooc-parent-watch", daemon=True).start()


class ProcessEngine(Engine):
    """``jobs`` worker processes (spawned, so no thread state is forked), kept for every pass.

    Each pass's context is pickled once to a file in ``work_dir`` (the run's directory, which a
    later run cleans if this one is killed; default: the system temporary directory); a task carries
    only its token and path, and each worker loads and prepares the context on its first task of the
    pass. Workers die with this process, even when it is killed by SIGKILL.
    """

    name = "processes"

    def __init__(self, jobs: int, work_dir: str | None = None):
        self.jobs, self.work_dir = jobs, work_dir
        self.pool: ProcessPoolExecutor | None = None

    @property
    def local_cores(self) -> int:
        return self.jobs

    def map(self, task, context, items):
        if self.pool is None:
            self.pool = ProcessPoolExecutor(self.jobs, mp_context=multiprocessing.get_context("spawn"),
                                            initializer=_start_worker, initargs=(os.getpid(),))
        with tempfile.NamedTemporaryFile(prefix="kcooc-context-", suffix=".pickle", dir=self.work_dir) as shared:
            pickle.dump(context, shared, protocol=pickle.HIGHEST_PROTOCOL)
            shared.flush()
            submit = lambda item: self.pool.submit(run_pickled_task, task, context.token, shared.name, item)  # noqa: E731
            yield from _ordered(submit, items, 2 * self.jobs + 1)

    def close(self):
        if self.pool is not None:
            self.pool.shutdown(wait=True, cancel_futures=True)

    def describe(self):
        return {"engine": self.name, "jobs": self.jobs}


class DaskEngine(Engine):
    """Tasks on a running Dask scheduler; the context is broadcast to every worker once per pass.

    Workers must import kcooc (same version) and see any model files the encoders name at the
    same paths. The input is read by this process and shipped block by block.
    """

    name = "dask"
    shares_local_disk = False  # workers may run on other machines

    def __init__(self, address: str):
        try:
            from distributed import Client
        except ImportError:
            raise InputError("--engine dask needs the distributed package: pip install 'kcooc[dask]'") from None
        try:
            self.client = Client(address, set_as_default=False, timeout="20s")
        except (OSError, TimeoutError) as exc:
            raise KcoocError(f"cannot reach the Dask scheduler at {address}: {exc}") from None
        self.address = address
        self.workers = max(1, len(self.client.scheduler_info().get("workers", {})))

    def map(self, task, context, items):
        shared = self.client.scatter(context, broadcast=True, hash=False)
        try:
            yield from _ordered(lambda item: self.client.submit(run_task, task, shared, item, pure=False),
                                items, 2 * self.workers + 1)
        finally:
            self.client.cancel(shared)

    def close(self):
        self.client.close()

    def describe(self):
        return {"engine": self.name, "scheduler": self.address, "workers": self.workers}


def make_engine(engine: str, jobs: int = 1, scheduler: str | None = None, work_dir: str | None = None) -> Engine:
    """``local`` runs in-process (jobs 1) or in ``jobs`` processes; ``dask`` needs a scheduler address.

    ``work_dir``: where the process engine keeps its context files (the run's scratch directory).
    """
    if engine == "dask":
        if not scheduler:
            raise InputError("--engine dask needs --scheduler ADDRESS (e.g. tcp://10.0.0.5:8786)")
        return DaskEngine(scheduler)
    if engine != "local":
        raise InputError(f"unknown engine {engine!r}; choose local or dask")
    if jobs < 1:
        raise InputError(f"--jobs must be >= 1, got {jobs}")
    reuse_freed_memory()  # this process reduces the results (and runs the tasks with one job)
    return SerialEngine() if jobs == 1 else ProcessEngine(jobs, work_dir)
