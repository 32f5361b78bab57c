"""Per-line arrays of a ``filter-parallel`` run (reason codes, hashes, words, line numbers, scores,
features) in files of the run's private directory: appended task by task in input order, then
memory-mapped, so that memory does not grow with the corpus."""

from __future__ import annotations

import os

import numpy as np


class Workspace:
    """Per-line arrays in files of a private directory: appended pass by pass, then memory-mapped."""

    def __init__(self, path: str):
        self.path = path
        self._files: dict[str, object] = {}

    def file(self, name: str) -> str:
        return os.path.join(self.path, name)

    def append(self, name: str, array: np.ndarray) -> None:
        if name not in self._files:
            self._files[name] = open(self.file(name), "wb")
        self._files[name].write(np.ascontiguousarray(array).tobytes())

    def array(self, name: str, dtype) -> np.ndarray:
        """The appended array, memory-mapped read-write (an empty file gives an empty array)."""
        if name in self._files:
            self._files.pop(name).close()
        if os.path.getsize(self.file(name)) == 0:
            return np.zeros(0, dtype=dtype)
        return np.memmap(self.file(name), dtype=dtype, mode="r+")
