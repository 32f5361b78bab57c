"""Blocks of encoded sentence pairs, from TSV through encoders or from precomputed vectors.

Shared by every command that works on (x, y) pairs. Also a disk spool for jobs that need a
second pass over encoded blocks read from a one-shot stream (stdin).
"""

from __future__ import annotations

import os
import shutil
import tempfile
from dataclasses import dataclass
from typing import Iterator

import numpy as np
import scipy.sparse as sp

from .artifact import npy_file
from .encoders import Encoder
from .errors import InputError
from .io.limits import display_name
from .io.tsv import TsvReader
from .linalg import vstack
from .threads import prefetch


def open_pairs(path: str, input_cfg) -> TsvReader:
    """A reader of the (x, y) columns of ``path`` as an ``input`` config section chooses them."""
    return TsvReader(path, [input_cfg.src_col, input_cfg.tgt_col], header=input_cfg.header,
                     on_error=input_cfg.on_error, block_size=input_cfg.block_size,
                     max_line_bytes=input_cfg.max_line_bytes)


@dataclass
class PairBlock:
    """Consecutive pairs: input lines and x strings (None with vectors only), encoded X and Y."""

    lines: list[str] | None
    keys: list[str] | None
    X: np.ndarray | sp.csr_matrix
    Y: np.ndarray | sp.csr_matrix


def encoded_pairs(reader: TsvReader, x_encoder: Encoder, y_encoder: Encoder) -> Iterator[PairBlock]:
    """Read and encode in a background thread, one block ahead of the consumer."""

    def blocks() -> Iterator[PairBlock]:
        for block in reader:
            x_text, y_text = block.columns
            yield PairBlock(block.lines, x_text, x_encoder.encode(x_text), y_encoder.encode(y_text))

    return prefetch(blocks())


def load_vectors(path: str) -> np.ndarray:
    """A 2-D float ``.npy`` array, memory-mapped (rows are read block by block, see :func:`vector_rows`)."""
    array = npy_file(path, kinds="f", mmap=True)
    if array.ndim != 2:
        raise InputError(f"{path}: expected a 2-D float array, got shape {array.shape}")
    return array


def vector_rows(path: str, vectors: np.ndarray, start: int, stop: int) -> np.ndarray:
    """Rows ``start:stop`` of memory-mapped ``vectors``, read now; a NaN or infinity is an InputError naming the row."""
    rows = np.asarray(vectors[start:stop])
    finite = np.isfinite(rows).all(axis=1)
    if not finite.all():
        raise InputError(f"{path}: row {start + int(np.argmin(finite)) + 1} holds NaN or infinite values")
    return rows


def vector_pairs(x_path: str, y_path: str, block_size: int, reader: TsvReader | None = None) -> Iterator[PairBlock]:
    """Blocks of precomputed vectors (rows aligned with the pairs); lines come from ``reader`` if given."""
    X, Y = load_vectors(x_path), load_vectors(y_path)
    if X.shape[0] != Y.shape[0]:
        raise InputError(f"{x_path} has {X.shape[0]} rows but {y_path} has {Y.shape[0]}")
    rows = lambda start, stop: (vector_rows(x_path, X, start, stop), vector_rows(y_path, Y, start, stop))  # noqa: E731
    if reader is None:
        for start in range(0, X.shape[0], block_size):
            yield PairBlock(None, None, *rows(start, start + block_size))
        return
    if reader.on_error == "skip":
        raise InputError("malformed lines cannot be skipped with precomputed vectors: "
                         "skipped lines would misalign rows", key="input.on_error")
    offset = 0
    for block in reader:
        stop = offset + len(block.lines)
        if stop > X.shape[0]:
            raise InputError(f"{display_name(reader.path)} has more rows than the {X.shape[0]} vectors in {x_path}")
        yield PairBlock(block.lines, block.columns[0], *rows(offset, stop))
        offset = stop
    if offset != X.shape[0]:
        raise InputError(f"{display_name(reader.path)} has {offset} rows but {x_path} has {X.shape[0]} vectors")


class Spool:
    """Encoded (X, Y) blocks written to a temporary directory, read back for later passes."""

    def __init__(self, directory: str | None = None):
        self.path = tempfile.mkdtemp(prefix="kcooc-spool-", dir=directory)
        self.sizes: list[int] = []

    def __enter__(self) -> "Spool":
        return self

    def __exit__(self, *exc) -> None:
        shutil.rmtree(self.path, ignore_errors=True)

    @property
    def n(self) -> int:
        return sum(self.sizes)

    def _file(self, index: int, side: str) -> str:
        return os.path.join(self.path, f"{index:08d}{side}")

    def append(self, X, Y) -> None:
        index = len(self.sizes)
        for side, M in (("x", X), ("y", Y)):
            if sp.issparse(M):
                sp.save_npz(self._file(index, side) + ".npz", sp.csr_matrix(M), compressed=False)
            else:
                np.save(self._file(index, side) + ".npy", np.asarray(M), allow_pickle=False)
        self.sizes.append(X.shape[0])

    def _load(self, index: int, side: str):
        base = self._file(index, side)
        return sp.load_npz(base + ".npz") if os.path.exists(base + ".npz") else np.load(base + ".npy")

    def __iter__(self) -> Iterator[tuple]:
        for index in range(len(self.sizes)):
            yield self._load(index, "x"), self._load(index, "y")

    def rows(self, indices: np.ndarray) -> tuple:
        """The rows at sorted global ``indices`` of X and of Y, stacked."""
        starts = np.concatenate([[0], np.cumsum(self.sizes)])
        xs, ys = [], []
        for index, (X, Y) in enumerate(self):
            local = indices[(indices >= starts[index]) & (indices < starts[index + 1])] - starts[index]
            if local.size:
                xs.append(X[local])
                ys.append(Y[local])
        return vstack(xs), vstack(ys)
