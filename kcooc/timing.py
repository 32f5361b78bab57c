"""Wall-clock seconds of a run and of its steps (the ``seconds`` of every summary)."""

from __future__ import annotations

import time


class Timer:
    """Started when made; ``seconds()`` is the time since, rounded to milliseconds."""

    def __init__(self):
        self.start = time.perf_counter()

    def seconds(self) -> float:
        return round(time.perf_counter() - self.start, 3)
