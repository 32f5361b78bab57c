"""Word-vector files: the word2vec text format (read and written) and fastText ``.bin`` models.

:func:`open_word_vectors` gives one interface to both: ``lookup(words)`` returns the vectors of
``words`` and which of them the file knows (a fastText model builds a vector for any word from
its character n-grams, so it knows every word).
"""

from __future__ import annotations

import logging
import os

import numpy as np

from .errors import InputError
from .extras import import_optional
from .io.readers import text_lines
from .io.writers import atomic_output

LOG = logging.getLogger(__name__)


def read_word2vec_text(path: str) -> tuple[list[str], np.ndarray]:
    """Read the word2vec/fastText text format: a ``count dim`` line, then ``word v1 ... vdim``.

    Parameters
    ----------
    path : str
        A ``.vec``/``.txt`` file (``.gz``/``.bz2``/``.xz``/``.zst`` too).

    Returns
    -------
    words : list of str
        Each word once: a word the file has again keeps its first vector (as gensim reads such a file),
        with a warning naming the first repeat's line.
    vectors : ndarray of shape (len(words), dim), float32
    """
    lines = text_lines(path)
    first = next(lines, (1, ""))[1].split()
    if len(first) != 2 or not all(t.isdigit() and len(t) <= 18 for t in first) or int(first[1]) < 1:
        raise InputError(f"{path}:1: expected a word2vec header 'count dim', got {' '.join(first)[:60]!r}")
    count, dim = map(int, first)
    # count and dim are untrusted: the buffer starts at what one line proved (at most 16 MiB) and doubles as read
    words, vectors, seen, repeats, first_repeat = [], np.empty((0, dim), dtype=np.float32), set(), 0, 0
    for lineno, line in lines:
        parts = line.rstrip(" ").split(" ")
        if lineno > count + 1 or len(parts) != dim + 1 or not parts[0]:
            raise InputError(f"{path}:{lineno}: expected a word and {dim} numbers")
        try:
            vector = np.asarray(parts[1:], dtype=np.float32)
        except ValueError:
            raise InputError(f"{path}:{lineno}: expected a word and {dim} numbers") from None
        if not np.isfinite(vector).all():
            raise InputError(f"{path}:{lineno}: NaN or infinite value")
        if parts[0] in seen:
            repeats, first_repeat = repeats + 1, first_repeat or lineno
            continue
        if len(words) == len(vectors):
            grown = max(2 * len(vectors), min(count, max(1, (1 << 22) // dim)))
            vectors = np.concatenate([vectors, np.empty((grown - len(vectors), dim), dtype=np.float32)])
        vectors[len(words)] = vector
        seen.add(parts[0])
        words.append(parts[0])
    if len(words) + repeats != count:
        raise InputError(f"{path}: header promises {count} vectors, found {len(words) + repeats}")
    if repeats:
        LOG.warning(f"{path}:{first_repeat}: {repeats} word(s) given again; each keeps its first vector")
    return words, vectors[:len(words)]


def write_word2vec_text(path: str, words: list[str], vectors: np.ndarray) -> None:
    """Write the word2vec text format: a ``count dim`` line, then ``word v1 ... vdim`` per word (6 digits)."""
    with atomic_output(path) as out:
        out.write(f"{len(words)} {vectors.shape[1]}\n")
        for start in range(0, len(words), 4096):
            block = vectors[start : start + 4096]
            out.writelines(f"{w} {' '.join(f'{v:.6g}' for v in row)}\n"
                           for w, row in zip(words[start:], block.tolist()))


class TextVectors:
    """The vectors of a word2vec text file; unknown words get a zero vector."""

    def __init__(self, path: str):
        self.path = path
        words, self.vectors = read_word2vec_text(path)
        self.rows = {w: i for i, w in enumerate(words)}
        self.dim = self.vectors.shape[1]

    def lookup(self, words: list[str]) -> tuple[np.ndarray, np.ndarray]:
        """(len(words), dim) float32 vectors (zero where unknown) and a boolean mask of the known words."""
        rows = np.array([self.rows.get(w, -1) for w in words], dtype=np.int64)
        known = rows >= 0
        return np.where(known[:, None], self.vectors[np.maximum(rows, 0)], np.float32(0)), known


class FastTextVectors:
    """The word vectors of a fastText ``.bin`` model (``get_word_vector``: known for every word)."""

    def __init__(self, path: str):
        if not os.path.isfile(path):
            raise InputError(f"{path}: fastText model not found (the shipped configs' models are built by `make data` "
                             "(en-300, dialogue) and `make data-parallel` (en-100/ja-100, filtering); "
                             "or pass your own .bin)")
        fasttext = import_optional("fasttext", "by the fasttext encoder")

        fasttext.FastText.eprint = lambda *args, **kw: None  # silence its load-time warning
        try:
            self.model = fasttext.load_model(path)
        except ValueError as exc:
            raise InputError(f"{path}: not a fastText .bin model ({exc})") from None
        self.path, self.dim = path, self.model.get_dimension()

    def lookup(self, words: list[str]) -> tuple[np.ndarray, np.ndarray]:
        vectors = (np.stack([self.model.get_word_vector(w) for w in words]) if words
                   else np.zeros((0, self.dim), np.float32))
        return vectors, np.ones(len(words), dtype=bool)


def open_word_vectors(path: str) -> TextVectors | FastTextVectors:
    """A fastText model for a ``.bin`` path, otherwise a word2vec text file."""
    return FastTextVectors(path) if path.endswith(".bin") else TextVectors(path)
