"""Reading inputs: a path or ``-`` (stdin), compressed or not (compression.py), or two aligned files
(aligned.py), as text lines, decoded blocks or undecoded blocks of whole lines; a bad byte, a truncated
or corrupt archive, a line over the limit (limits.py) is an :class:`InputError` naming ``file:line``.
:class:`RawLines` cuts rows out of blocks of whole lines (:func:`line_blocks`), each as the TSV reader
(tsv.py) read it.
"""

from __future__ import annotations

import io
import os
import shutil
import stat
import sys
from dataclasses import dataclass, replace
from typing import BinaryIO, Callable, Iterator

import numpy as np

from ..errors import InputError
from .aligned import AlignedFiles, open_aligned
from .compression import COMPRESSED_SUFFIXES, MAGIC_BYTES, Prefixed, compression_of, open_file, read_chunk
from .limits import SKIP_LIMIT, display_name, line_too_long, max_line_bytes


def bad_utf8_location(path: str | AlignedFiles, line: int, byte: int, raw: bytes) -> str:
    """``file:line: invalid UTF-8 at byte N`` for a bad byte of an input line (of either aligned file)."""
    if isinstance(path, AlignedFiles):
        name, byte = path.where(line, byte, raw)
        return f"{name}:{line}: invalid UTF-8 at byte {byte}"
    return f"{display_name(path)}:{line}: invalid UTF-8 at byte {byte}"


def open_input(path: str | AlignedFiles) -> BinaryIO:
    """Open ``path`` (or stdin for ``-``) for binary reading, decompressing by suffix, else by magic bytes
    (compression.py); :class:`~kcooc.io.aligned.AlignedFiles` as one TSV of their lines (aligned.py).

    The stream returned for stdin never closes stdin itself."""
    return open_aligned(path) if isinstance(path, AlignedFiles) else open_file(path)


def decode_utf8(data: bytes, path: str, first_line: int = 1) -> str:
    """``data`` as text, or an InputError naming the file and the line of the first bad byte."""
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = first_line + data.count(b"\n", 0, exc.start)
        column = exc.start - data.rfind(b"\n", 0, exc.start) - 1
        raise InputError(f"{display_name(path)}:{line}: invalid UTF-8 at byte {column} of the line") from None


def read_line(stream: BinaryIO, path: str, line: int, limit: int) -> bytes:
    """Line ``line`` of ``stream`` (b"" at the end), at most ``limit`` bytes: a longer one is an InputError."""
    return read_chunk(stream, path, line, limit, whole_lines=True)


def raw_lines(stream: BinaryIO, path: str, limit: int | None = None) -> Iterator[bytes]:
    """The lines of an open binary stream, newline included, each at most ``limit`` bytes
    (default :func:`max_line_bytes`): a longer one (``/dev/zero``, a file without newlines) is an
    InputError naming ``path:line`` once the limit is passed, never a hang or a MemoryError."""
    limit = limit or max_line_bytes()
    lineno = 0
    while raw := read_chunk(stream, path, lineno + 1, limit, whole_lines=True):
        lineno += 1
        yield raw


def text_lines(path: str) -> Iterator[tuple[int, str]]:
    """(line number, text without the newline) of a text file, ``-`` or .gz/.bz2/.xz/.zst; errors name file:line
    (a line over :func:`max_line_bytes` too)."""
    stream = open_input(path)
    try:
        for lineno, raw in enumerate(raw_lines(stream, path), start=1):
            yield lineno, decode_utf8(raw, path, lineno).removesuffix("\n").removesuffix("\r")
    finally:
        stream.close()


def read_text(path: str) -> str:
    """A whole text file (``-``, .gz/.bz2/.xz/.zst), decoded; errors name file:line."""
    stream = open_input(path)
    try:
        return decode_utf8(read_chunk(stream, path, 1), path)
    finally:
        stream.close()


def text_blocks(path: str, chunk_bytes: int, observe: Callable[[bytes], None] | None = None) -> Iterator[str]:
    """A text file as decoded blocks of about ``chunk_bytes``, each cut after whitespace (no token is split).

    ``observe``, if given, is called with every block of bytes read (a digest's update, a progress bar).
    Errors name file:line; so does a run of more than :func:`max_line_bytes` bytes without whitespace
    (``/dev/zero``), which no block could end.
    """
    for line, block in _file_blocks(path, chunk_bytes, observe, after_last_space, max_line_bytes()):
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

    def texts_of(self, rows: np.ndarray) -> list[str]:
        """The lines of some of the block's rows (indices from its first row), as the reader decoded them."""
        data = self.data.tobytes()
        return [data[a:b].decode("utf-8") for a, b in zip(*(x.tolist() for x in self._spans(self.lines[rows])))]


def after_last_newline(block: bytes) -> int:
    """Where a block of whole lines ends: after its last newline (0: it holds none)."""
    return block.rfind(b"\n") + 1


def after_last_space(block: bytes) -> int:
    """Where a block of whole tokens ends: after its last space, tab or newline (0: it holds none)."""
    return max(block.rfind(b" "), block.rfind(b"\n"), block.rfind(b"\t")) + 1


def _file_blocks(path: str, chunk_bytes: int, observe: Callable[[bytes], None] | None,
                 cut: Callable[[bytes], int], max_tail: int | None = None) -> Iterator[tuple[int, bytes]]:
    if chunk_bytes < 1:
        raise InputError(f"chunk size must be >= 1 byte, got {chunk_bytes}")
    stream = open_input(path)
    try:
        yield from byte_blocks(stream, path, chunk_bytes, observe, cut, max_tail=max_tail)
    finally:
        stream.close()


def byte_blocks(stream: BinaryIO, path: str, chunk_bytes: int, observe: Callable[[bytes], None] | None,
                cut: Callable[[bytes], int], line: int = 1, max_tail: int | None = None,
                skip_long: bool = False) -> Iterator[tuple[int, bytes]]:
    """(first line number, bytes) of blocks of ``stream`` (from line ``line`` on) read ``chunk_bytes``
    at a time, each ending where ``cut`` says (0: read on); the rest of the stream ends the last.

    ``max_tail``: the most bytes that may wait for a cut (a line, a token); more is an InputError
    naming ``path:line`` (``/dev/zero`` ends the run instead of filling the memory), or with
    ``skip_long`` the rest of that line is dropped (its first ``max_tail + 1`` bytes are kept, so
    that the reader sees it is too long and skips it) and reading goes on after its newline; a line
    that has not ended after ``SKIP_LIMIT`` times ``max_tail`` bytes is an InputError all the same
    (an input without newlines is not a text file: skipping would read it for ever).
    """
    tail, dropping, dropped = b"", False, 0
    while block := read_chunk(stream, path, line, chunk_bytes):
        if observe is not None:
            observe(block)
        if dropping:
            end = block.find(b"\n")
            if end < 0:
                dropped += len(block)
                if dropped > SKIP_LIMIT * max_tail:
                    raise line_too_long(path, line, SKIP_LIMIT * max_tail)
                continue
            block, dropping, dropped = block[end:], False, 0
        block = tail + block
        end = cut(block)
        block, tail = block[:end], block[end:]
        if block:
            yield line, block
            line += block.count(b"\n")
        if max_tail is not None and len(tail) > max_tail:
            if not skip_long:
                raise line_too_long(path, line, max_tail)
            tail, dropping = tail[:max_tail + 1], True
    if tail:
        yield line, tail


def rereadable_input(path: str | AlignedFiles, directory: str, cut: Callable[[bytes], int] = after_last_newline,
                     max_tail: int | None = None, skip_long: bool = False) -> str | AlignedFiles:
    """A path that can be read more than once: stdin (``-``) and any input that is not a regular file
    (a FIFO, a process substitution, a character device) is first copied once into ``directory`` (under
    its own name, so that a .gz suffix still decompresses; a compressed stream without one is found by its
    magic bytes when the copy is read). ``cut``, ``max_tail`` and ``skip_long`` as in :func:`byte_blocks`:
    an uncompressed input is copied as the reader will cut it, so that a line over the limit
    (``/dev/zero``) stops the copy instead of filling the disk. :class:`AlignedFiles`: each of the two
    files so (a FIFO given as ``--src-input`` is copied once too), read with the limit ``max_tail``."""
    if isinstance(path, AlignedFiles):
        return replace(path, src=_rereadable(path.src, directory, "src-", cut, max_tail, skip_long),
                       tgt=_rereadable(path.tgt, directory, "tgt-", cut, max_tail, skip_long),
                       max_line_bytes=max_tail, skip_long=skip_long)
    return _rereadable(path, directory, "input-", cut, max_tail, skip_long)


def _rereadable(path: str, directory: str, prefix: str, cut: Callable[[bytes], int], max_tail: int | None,
                skip_long: bool) -> str:
    if path != "-":
        try:
            if stat.S_ISREG(os.stat(path).st_mode):
                return path
        except OSError:
            return path  # the reader names the missing file
    name = "stdin" if path == "-" else prefix + os.path.basename(path)
    copy_path = os.path.join(directory, name)
    try:
        source = sys.stdin.buffer if path == "-" else open(path, "rb")
    except OSError as exc:
        raise InputError(f"{path}: cannot open: {exc.strerror or exc}") from None
    try:
        head = read_chunk(source, path, 1, MAGIC_BYTES, exact=True)
        stream = io.BufferedReader(Prefixed(head, source), 1 << 16)  # closing it leaves source open
        with open(copy_path, "wb") as copy:
            if name.endswith(COMPRESSED_SUFFIXES) or compression_of(head) is not None:
                shutil.copyfileobj(stream, copy, 1 << 20)  # the limit applies when the copy is read
            else:
                for _, block in byte_blocks(stream, path, 1 << 20, None, cut, max_tail=max_tail, skip_long=skip_long):
                    copy.write(block)
    finally:
        if source is not sys.stdin.buffer:
            source.close()
    return copy_path
