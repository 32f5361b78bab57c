"""The Dask back end (``--engine dask --scheduler ADDRESS``): tasks on a running Dask cluster."""

from __future__ import annotations

import uuid
from typing import Any, Callable

from ..errors import InputError, KcoocError
from .base import Engine, ordered, run_prepared, runtime_of


def run_task(task: Callable, token: str, context: Any, item: Any) -> Any:
    """In a worker: ``context`` is the broadcast copy, prepared the first time this process sees ``token``."""
    return run_prepared(task, runtime_of(token, lambda: context), item)


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
            raise InputError("the Dask engine needs the distributed package: pip install 'kcooc[dask]'") from None
        try:
            self.client = Client(address, set_as_default=False, timeout="20s")
        except (OSError, TimeoutError) as exc:
            raise KcoocError(f"cannot reach the Dask scheduler at {address}: {exc}") from None
        self.address = address
        self.workers = max(1, len(self.client.scheduler_info().get("workers", {})))

    def map(self, task, context, items):
        shared, token = self.client.scatter(context, broadcast=True, hash=False), uuid.uuid4().hex
        try:
            yield from ordered(lambda item: self.client.submit(run_task, task, token, shared, item, pure=False),
                               items, 2 * self.workers + 1)
        finally:
            self.client.cancel(shared)

    def close(self):
        self.client.close()

    def describe(self):
        return {"engine": self.name, "scheduler": self.address, "workers": self.workers}
