"""Reading inputs: a path or ``-`` (stdin), ``.gz``/``.bz2``/``.xz`` decompressed by suffix, as text lines,
decoded blocks or undecoded blocks of whole lines; a bad byte, a truncated or corrupt archive is an
:class:`InputError` naming ``file:line``. :class:`RawLines` cuts rows out of blocks of whole lines
(:func:`line_blocks`), each as the TSV reader (tsv.py) read it.
"""

from __future__ import annotations

import bz2
import gzip
import lzma
import os
import shutil
import sys
import zlib
from dataclasses import dataclass
from typing import BinaryIO, Callable, Iterator

import numpy as np

from ..errors import InputError

_DECOMPRESSION_ERRORS = (EOFError, zlib.error, lzma.LZMAError, gzip.BadGzipFile, OSError)
_COMPRESSORS = {".gz": gzip, ".bz2": bz2, ".xz": lzma}


def display_name(path: str) -> str:
    return "<stdin>" if path == "-" else path


def open_input(path: str) -> BinaryIO:
    """Open ``path`` (or stdin for ``-``) for binary reading, decompressing by suffix."""
    if path == "-":
        return sys.stdin.buffer
    try:
        for suffix, module in _COMPRESSORS.items():
            if path.endswith(suffix):
                return module.open(path, "rb")
        return open(path, "rb")
    except OSError as exc:
        raise InputError(f"{path}: cannot open: {exc.strerror or exc}") from None


def decode_utf8(data: bytes, path: str, first_line: int = 1) -> str:
    """``data`` as text, or an InputError naming the file and the line of the first bad byte."""
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = first_line + data.count(b"\n", 0, exc.start)
        column = exc.start - data.rfind(b"\n", 0, exc.start) - 1
        raise InputError(f"{display_name(path)}:{line}: invalid UTF-8 at byte {column} of the line") from None


def _read(stream: BinaryIO, path: str, line: int, size: int = -1, *, whole_lines: bool = False) -> bytes:
    """One read of a (possibly compressed) stream; a corrupt or truncated archive names ``path:line``."""
    try:
        return stream.readline() if whole_lines else stream.read(size)
    except _DECOMPRESSION_ERRORS as exc:
        raise InputError(f"{display_name(path)}:{line}: truncated or corrupt input ({exc})") from None


def text_lines(path: str) -> Iterator[tuple[int, str]]:
    """(line number, text without the newline) of a text file, ``-`` or .gz/.bz2/.xz; errors name file:line."""
    stream = open_input(path)
    try:
        lineno = 0
        while raw := _read(stream, path, lineno + 1, whole_lines=True):
            lineno += 1
            yield lineno, decode_utf8(raw, path, lineno).removesuffix("\n").removesuffix("\r")
    finally:
        if stream is not sys.stdin.buffer:
            stream.close()


def read_text(path: str) -> str:
    """A whole text file (``-``, .gz/.bz2/.xz), decoded; errors name file:line."""
    stream = open_input(path)
    try:
        return decode_utf8(_read(stream, path, 1), path)
    finally:
        if stream is not sys.stdin.buffer:
            stream.close()


def text_blocks(path: str, chunk_bytes: int, observe: Callable[[bytes], None] | None = None) -> Iterator[str]:
    """A text file as decoded blocks of about ``chunk_bytes``, each cut after whitespace (no token is split).

    ``observe``, if given, is called with every block of bytes read (a digest's update, a progress bar).
    Errors name file:line.
    """
    cut = lambda block: max(block.rfind(b" "), block.rfind(b"\n"), block.rfind(b"\t")) + 1  # noqa: E731
    for line, block in _file_blocks(path, chunk_bytes, observe, cut):
        if block.strip():
            yield decode_utf8(block, path, line)


def line_blocks(path: str, chunk_bytes: int = 1 << 23, observe: Callable[[bytes], None] | None = None
                ) -> Iterator[tuple[int, bytes]]:
    """A file's bytes, undecoded, in blocks of whole lines (about ``chunk_bytes``; the last may lack
    its newline), each with the number of its first line. ``observe`` as in :func:`text_blocks`."""
    yield from _file_blocks(path, chunk_bytes, observe, after_last_newline)


@dataclass
class RawLines:
    """Whole input lines, undecoded: ``data`` (every line ends in a newline), the position of each
    line's newline (``ends``), and the block's rows (a slice of every row, ``rows``) with their line
    in the block (``lines``)."""

    data: np.ndarray
    ends: np.ndarray
    rows: slice
    lines: np.ndarray

    @classmethod
    def of(cls, data: bytes, first: int, linenos: np.ndarray, row: int) -> "RawLines":
        """The block ``data`` of whole lines from line ``first`` on; ``linenos``: every row's line
        number, of which ``row`` is the first in this block."""
        if not data.endswith(b"\n"):  # the file's last line
            data += b"\n"
        array = np.frombuffer(data, dtype=np.uint8)
        ends = np.flatnonzero(array == 10)
        stop = int(np.searchsorted(linenos, first + ends.size))
        return cls(array, ends, slice(row, stop), linenos[row:stop] - first)

    def _spans(self, lines: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """(start, stop) of the text of ``lines`` (indices): up to the newline, less a carriage
        return before it, which the reader strips too."""
        ends = self.ends[lines]
        starts = np.where(lines > 0, self.ends[lines - 1] + 1, 0)
        return starts, ends - ((ends > starts) & (self.data[ends - 1] == 13))

    def joined(self, keep: np.ndarray) -> bytes:
        """The rows where ``keep``, each as the reader read it followed by a newline: the bytes of
        ``"".join(line + "\\n" for line in kept lines)``."""
        lines = self.lines[keep]
        take = np.zeros(self.ends.size, dtype=bool)
        take[lines] = True
        mask = np.repeat(take, np.diff(self.ends, prepend=-1))  # whole lines, newline included
        stops = self._spans(lines)[1]
        mask[stops[stops < self.ends[lines]]] = False  # less their carriage returns
        return self.data[mask].tobytes()

    def texts(self) -> list[str]:
        """Each row's line as the reader decoded it."""
        data = self.data.tobytes()
        return [data[a:b].decode("utf-8") for a, b in zip(*(x.tolist() for x in self._spans(self.lines)))]


def after_last_newline(block: bytes) -> int:
    """Where a block of whole lines ends: after its last newline (0: it holds none)."""
    return block.rfind(b"\n") + 1


def _file_blocks(path: str, chunk_bytes: int, observe: Callable[[bytes], None] | None,
                 cut: Callable[[bytes], int]) -> Iterator[tuple[int, bytes]]:
    if chunk_bytes < 1:
        raise InputError(f"chunk size must be >= 1 byte, got {chunk_bytes}")
    stream = open_input(path)
    try:
        yield from byte_blocks(stream, path, chunk_bytes, observe, cut)
    finally:
        if stream is not sys.stdin.buffer:
            stream.close()


def byte_blocks(stream: BinaryIO, path: str, chunk_bytes: int, observe: Callable[[bytes], None] | None,
                cut: Callable[[bytes], int], line: int = 1) -> Iterator[tuple[int, bytes]]:
    """(first line number, bytes) of blocks of ``stream`` (from line ``line`` on) read ``chunk_bytes``
    at a time, each ending where ``cut`` says (0: read on); the rest of the stream ends the last."""
    tail = b""
    while block := _read(stream, path, line, chunk_bytes):
        if observe is not None:
            observe(block)
        block = tail + block
        end = cut(block)
        block, tail = block[:end], block[end:]
        if block:
            yield line, block
            line += block.count(b"\n")
    if tail:
        yield line, tail


def rereadable_input(path: str, directory: str) -> str:
    """A path that can be read more than once: stdin (``-``) is first copied into ``directory``."""
    if path != "-":
        return path
    copy_path = os.path.join(directory, "stdin")
    with open(copy_path, "wb") as copy:
        shutil.copyfileobj(sys.stdin.buffer, copy, 1 << 20)
    return copy_path
