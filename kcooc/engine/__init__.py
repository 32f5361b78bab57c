"""Back ends for sharded map jobs: in-process (serial.py), local processes (processes.py, ``--jobs N``)
and Dask (dask.py).

A job is a picklable *context* (everything each task needs: encoder specs, model state: any object
with a ``prepare()`` method) and a stream of items (blocks of input). ``engine.map(task, context,
items)`` yields ``task(runtime, item)`` for every item, **in item order**, with a bounded number of
items in flight, so memory stays at a few blocks whatever the input size. ``runtime`` is
``context.prepare()``, built once per worker process (encoders are loaded once, not per task). A job
imports nothing from here: code that can run in parallel takes an engine as an argument.

Results never depend on the engine: each task computes the same function of the same item, and
the caller reduces results in item order, so serial, ``--jobs N`` and Dask runs give
byte-identical outputs.
"""

from __future__ import annotations

from ..errors import InputError
from .base import Engine
from .dask import DaskEngine
from .processes import ProcessEngine, reuse_freed_memory
from .serial import SerialEngine

__all__ = ["DaskEngine", "Engine", "ProcessEngine", "SerialEngine", "make_engine"]


def make_engine(engine: str, jobs: int = 1, scheduler: str | None = None, work_dir: str | None = None) -> Engine:
    """``local`` runs in-process (jobs 1) or in ``jobs`` processes; ``dask`` needs a scheduler address.

    ``work_dir``: where the process engine keeps its context files (the run's scratch directory).
    """
    if engine == "dask":
        if not scheduler:
            raise InputError("a Dask engine needs a scheduler address (e.g. tcp://10.0.0.5:8786)", key="scheduler")
        return DaskEngine(scheduler)
    if engine != "local":
        raise InputError(f"unknown engine {engine!r}; choose local or dask")
    if jobs < 1:
        raise InputError(f"jobs must be >= 1, got {jobs}", key="jobs")
    reuse_freed_memory()  # this process reduces the results (and runs the tasks with one job)
    return SerialEngine() if jobs == 1 else ProcessEngine(jobs, work_dir)
