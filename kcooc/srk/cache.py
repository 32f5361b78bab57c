"""The Gram tile cache of ``srk classify --cache-dir``: row tiles of raw Gram blocks on disk, so that a rerun
(or a killed run) resumes, keyed by everything they depend on."""

from __future__ import annotations

import hashlib
import json
import logging
import os

import numpy as np

from ..io.outputs import remove_dead_temporaries
from ..io.writers import atomic_output

LOG = logging.getLogger(__name__)

FORMAT = "kcooc-srk-gram-1"  # part of every cache key: bump when the counts' definition changes


def pairs_digest(pairs: list[tuple[list[str], list[str]]]) -> str:
    h = hashlib.sha256()
    for s, t in pairs:
        h.update(("\x1f".join(s) + "\x1e" + "\x1f".join(t) + "\x1d").encode("utf-8"))
    return h.hexdigest()


class TileCache:
    """Row tiles of raw Gram blocks saved as ``.npz`` under ``directory/<key>/``, so a killed job resumes.

    The key hashes the term's spec, the row and column pairs and FORMAT: any change recomputes.
    Nothing read is trusted: a tile that is not a ``.npz`` of one finite float array of the expected
    shape (garbage, a pickle, NaN, a cut file) is reported and recomputed, never loaded as objects
    (``allow_pickle=False``). Temporaries that killed runs left in the cache are removed on opening it.
    """

    def __init__(self, directory: str | None):
        self.directory = directory
        if directory and os.path.isdir(directory):
            for path in remove_dead_temporaries(directory, recursive=True):
                LOG.debug(f"removed {path}, left by a run that was killed")

    def path(self, key: str, start: int) -> str | None:
        return os.path.join(self.directory, key, f"rows-{start:09d}.npz") if self.directory else None

    def load(self, key: str, start: int, shape: tuple[int, ...] | None = None) -> np.ndarray | None:
        """The tile of ``key`` from row ``start``, or None when it is missing or damaged (then reported)."""
        path = self.path(key, start)
        if not path or not os.path.exists(path):
            return None
        try:
            with np.load(path, allow_pickle=False) as npz:
                if sorted(npz.files) != ["block"]:
                    raise ValueError(f"members {sorted(npz.files)}, expected ['block']")
                block = npz["block"]
            if block.dtype.kind != "f" or (shape is not None and block.shape != shape):
                raise ValueError(f"a {block.dtype} array of shape {block.shape}, expected float {shape}")
            if not np.isfinite(block).all():
                raise ValueError("it holds NaN or infinite values")
        except Exception as exc:  # noqa: BLE001 - whatever the file holds, the tile is recomputed
            LOG.warning(f"{path}: damaged cache tile ({type(exc).__name__}: {' '.join(str(exc).split())[:160]}); "
                        "recomputing it")
            return None
        return block

    def save(self, key: str, start: int, block: np.ndarray) -> None:
        path = self.path(key, start)
        if path:
            os.makedirs(os.path.dirname(path), exist_ok=True)
            with atomic_output(path, binary=True) as out:
                np.savez(out, block=block)


def term_key(term, row_digest: str, col_digest: str, upper: bool, wordnet_dir: str | None) -> str:
    payload = json.dumps([FORMAT, term.spec, row_digest, col_digest, upper, wordnet_dir], sort_keys=True)
    return hashlib.sha256(payload.encode()).hexdigest()[:32]
