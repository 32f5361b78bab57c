"""The spool: what the screen pass of ``filter-parallel`` leaves for the score pass on the same machine.

Each task's pairs that pass the rules, in a directory of their own: their texts (UTF-8, one a line:
a column holds no newline) and, where the screen pass encoded them, their encoding (X, Y: sparse CSR
or dense) as .npy files in the smallest integer types that hold them. The score pass memory-maps the
files to read only the rows it scores, so it neither reads the input nor encodes again.
"""

from __future__ import annotations

import os
import shutil

import numpy as np
import scipy.sparse as sp


def spool_file(directory: str, offset: int) -> str:
    """The spool entry (a directory) of the task that starts at row ``offset``."""
    return os.path.join(directory, str(offset))


def save_spooled(path: str, rows: np.ndarray, src: list[str], tgt: list[str], encoded: tuple | None = None) -> None:
    """A task's ``rows`` (those that pass the rules) for the score pass on the same machine, in the
    directory ``path``: their texts (UTF-8, one a line: a column holds no newline) and, if given,
    their encoding (X, Y: sparse CSR or dense) as .npy files, which the score pass memory-maps to
    read only the rows it scores."""
    os.makedirs(path + ".part")
    arrays = {"rows": rows}
    for name, M in zip(("x", "y"), encoded or ()):
        if sp.issparse(M):  # hashed counts and feature indices fit in small integers: half the bytes written
            arrays.update({f"{name}_data": narrowed(M.data), f"{name}_indices": narrowed(M.indices),
                           f"{name}_indptr": M.indptr, f"{name}_shape": np.array(M.shape),
                           f"{name}_dtypes": np.array([M.data.dtype.str, M.indices.dtype.str])})
        else:
            arrays[f"{name}_dense"] = M
    for name, array in arrays.items():
        np.save(os.path.join(path + ".part", name + ".npy"), array, allow_pickle=False)
    for name, texts in (("src", src), ("tgt", tgt)):
        with open(os.path.join(path + ".part", name + ".txt"), "wb") as f:
            f.write("\n".join(texts).encode("utf-8"))
    os.replace(path + ".part", path)


def narrowed(array: np.ndarray) -> np.ndarray:
    """``array`` in the smallest of int8, uint8, int16, uint16 whose values convert back to the same
    bits, else ``array`` itself."""
    for dtype in (np.int8, np.uint8, np.int16, np.uint16):
        info = np.iinfo(dtype)
        if array.size and not (info.min <= array.min() and array.max() <= info.max):
            continue
        small = array.astype(dtype)
        if np.array_equal(small.astype(array.dtype).view(np.uint8), array.view(np.uint8)):
            return small
    return array


def load_spooled(path: str, rows: np.ndarray) -> tuple[list[str], list[str], tuple | None]:
    """(src, tgt, (X, Y) or None) of ``rows`` (a subset of the saved rows) from ``save_spooled``'s
    directory, which is then removed."""
    def load(name: str) -> np.ndarray:
        return np.load(os.path.join(path, name + ".npy"), mmap_mode="r", allow_pickle=False)

    positions = np.searchsorted(load("rows"), rows)
    texts = []
    for name in ("src", "tgt"):
        with open(os.path.join(path, name + ".txt"), "rb") as f:
            lines = f.read().decode("utf-8").split("\n")
        texts.append([lines[i] for i in positions.tolist()])
    sides = []
    for name in ("x", "y"):
        if os.path.exists(os.path.join(path, f"{name}_dense.npy")):
            sides.append(np.array(load(f"{name}_dense")[positions]))
        elif os.path.exists(os.path.join(path, f"{name}_indptr.npy")):
            indptr, (data_type, index_type) = load(f"{name}_indptr"), load(f"{name}_dtypes").tolist()
            starts, lengths = indptr[positions], indptr[positions + 1] - indptr[positions]
            new_indptr = np.concatenate([[0], np.cumsum(lengths)])
            take = np.repeat(starts - new_indptr[:-1], lengths) + np.arange(new_indptr[-1])
            sides.append(sp.csr_matrix((load(f"{name}_data")[take].astype(data_type),
                                        load(f"{name}_indices")[take].astype(index_type), new_indptr),
                                       shape=(rows.size, int(load(f"{name}_shape")[1]))))
    shutil.rmtree(path)
    return texts[0], texts[1], tuple(sides) if sides else None
