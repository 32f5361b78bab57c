"""The in-process back end (``--jobs 1``)."""

from __future__ import annotations

from ..threads import prefetch
from .base import Engine, run_prepared


class SerialEngine(Engine):
    name = "serial"

    def map(self, task, context, items):
        """Items are read one ahead in a thread, overlapping I/O and parsing with the maths."""
        runtime = context.prepare()
        for item in prefetch(items, depth=1):
            yield run_prepared(task, runtime, item)
