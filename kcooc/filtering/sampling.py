"""Seeded samples of rows that do not depend on how the input is cut into tasks.

Every row gets a pseudo-random priority from its global row number and the seed
(:func:`sample_priorities`); a sample of k rows is the k of lowest priority. Each task offers its
lowest under the bound of what the sample holds so far, and samples merge in task order to the same
rows however the input was cut: the same sample on every engine.
"""

from __future__ import annotations

import dataclasses

import numpy as np

from ..hashing import mix64
from ..linalg import vstack

NO_BOUND = 2**64 - 1  # every priority is below it


@dataclasses.dataclass(frozen=True)
class Sample:
    """Rows of lowest priority, in row order, with one entry per row in each of ``columns``: 2-D blocks
    (possibly sparse: encoded pairs) or 1-D arrays (texts)."""

    priorities: np.ndarray
    rows: np.ndarray
    columns: tuple

    def merge(self, other: "Sample", limit: int | None) -> "Sample":
        """The ``limit`` lowest-priority rows of both samples (all of them with ``limit`` None), ties by row."""
        priorities, rows = np.concatenate([self.priorities, other.priorities]), np.concatenate([self.rows, other.rows])
        keep = np.lexsort((rows, priorities))[:limit] if limit else np.arange(rows.size)
        keep = keep[np.argsort(rows[keep], kind="stable")]
        columns = [vstack([x, y]) if x.ndim == 2 else np.concatenate([x, y])
                   for x, y in zip(self.columns, other.columns)]
        return Sample(priorities[keep], rows[keep], tuple(column[keep] for column in columns))

    def bound(self, limit: int | None) -> int:
        """The priority a new row must be under to enter: the largest held once the sample has ``limit`` rows."""
        return int(self.priorities.max()) if limit and self.priorities.size >= limit else NO_BOUND


def sample_priorities(rows: np.ndarray, seed: int) -> np.ndarray:
    """A seeded pseudo-random priority per global row: the sample is the rows with the smallest."""
    return mix64(rows.astype(np.uint64) ^ mix64(np.uint64(seed) + np.uint64(0x9E3779B97F4A7C15)))


def lowest(priorities: np.ndarray, bound: int, limit: int | None) -> np.ndarray:
    """Positions of the ``limit`` lowest priorities under ``bound``, in their original order."""
    keep = np.flatnonzero(priorities < np.uint64(bound))
    if limit is not None and keep.size > limit:
        keep = np.sort(keep[np.argpartition(priorities[keep], limit - 1)[:limit]])
    return keep
