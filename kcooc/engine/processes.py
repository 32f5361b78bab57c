"""The local back end of ``--jobs N``: N spawned worker processes that die with this one."""

from __future__ import annotations

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
from typing import Any, Callable

from .base import Engine, ordered, run_prepared, runtime_of


def run_pickled_task(task: Callable, token: str, path: str, item: Any) -> Any:
    """In a worker: the context comes from ``path`` the first time this process sees ``token``."""
    def load() -> Any:
        with open(path, "rb") as f:
            return pickle.load(f)

    return run_prepared(task, runtime_of(token, load), item)


def _start_worker(parent: int) -> None:
    """Worker set-up: die with the parent, and one BLAS thread per worker.

    N workers on N cores, not N x BLAS threads (oversubscribed BLAS made --jobs 2 no faster); the
    variables cover a BLAS loaded later. A parent killed by SIGKILL cannot stop its pool, so each
    worker watches it: Linux sends SIGKILL on the parent's death (PR_SET_PDEATHSIG), elsewhere a
    thread polls the parent pid.
    """
    for name in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
        os.environ[name] = "1"
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C reaches the whole process group: the parent stops us
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
            token = uuid.uuid4().hex
            submit = lambda item: self.pool.submit(run_pickled_task, task, token, shared.name, item)  # noqa: E731
            yield from ordered(submit, items, 2 * self.jobs + 1)

    def close(self):
        if self.pool is not None:
            self.pool.shutdown(wait=True, cancel_futures=True)

    def abort(self):
        """Kill the workers (SIGKILL: a task in compiled code would not see a gentler signal) and reap them."""
        if self.pool is not None:
            workers = list((self.pool._processes or {}).values())  # no public accessor; stable since 3.8
            for worker in workers:
                with contextlib.suppress(OSError):
                    worker.kill()
            # RuntimeError: the signal landed while the pool was starting its manager thread, which then
            # cannot be joined (it never ran, or runs on to find its workers dead and stops)
            with contextlib.suppress(RuntimeError):
                self.pool.shutdown(wait=True, cancel_futures=True)
            for worker in workers:
                worker.join(5)

    def describe(self):
        return {"engine": self.name, "jobs": self.jobs}
