"""The Gram tile cache of ``srk classify --cache-dir``: row tiles of raw Gram blocks on disk, so that a rerun
(or a killed run) resumes, keyed by everything they depend on."""

from __future__ import annotations

import hashlib
import json
import os

import numpy as np

from ..io.outputs import atomic_output

FORMAT = "kcooc-srk-gram-1"  # part of every cache key: bump when the counts' definition changes


def pairs_digest(pairs: list[tuple[list[str], list[str]]]) -> str:
    h = hashlib.sha256()
    for s, t in pairs:
        h.update(("\x1f".join(s) + "\x1e" + "\x1f".join(t) + "\x1d").encode("utf-8"))
    return h.hexdigest()


class TileCache:
    """Row tiles of raw Gram blocks saved as ``.npz`` under ``directory/<key>/``, so a killed job resumes.

    The key hashes the term's spec, the row and column pairs and FORMAT: any change recomputes.
    """

    def __init__(self, directory: str | None):
        self.directory = directory

    def path(self, key: str, start: int) -> str | None:
        return os.path.join(self.directory, key, f"rows-{start:09d}.npz") if self.directory else None

    def load(self, key: str, start: int) -> np.ndarray | None:
        path = self.path(key, start)
        if path and os.path.exists(path):
            with np.load(path, allow_pickle=False) as npz:
                return npz["block"]
        return None

    def save(self, key: str, start: int, block: np.ndarray) -> None:
        path = self.path(key, start)
        if path:
            os.makedirs(os.path.dirname(path), exist_ok=True)
            with atomic_output(path, binary=True) as out:
                np.savez(out, block=block)


def term_key(term, row_digest: str, col_digest: str, upper: bool, wordnet_dir: str | None) -> str:
    payload = json.dumps([FORMAT, term.spec, row_digest, col_digest, upper, wordnet_dir], sort_keys=True)
    return hashlib.sha256(payload.encode()).hexdigest()[:32]
