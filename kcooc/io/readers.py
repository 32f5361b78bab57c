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
import stat
import sys
import zlib
from dataclasses import dataclass
from typing import BinaryIO, Callable, Iterator

import numpy as np

from ..errors import InputError

_DECOMPRESSION_ERRORS = (EOFError, zlib.error, lzma.LZMAError, gzip.BadGzipFile, OSError)
_COMPRESSORS = {".gz": gzip, ".bz2": bz2, ".xz": lzma}
MAX_LINE_BYTES = 1 << 20
"""The longest line (or, in a corpus read in blocks, the longest run of bytes without whitespace) the
readers of files other than TSV accept (benchmarks, JSON lines, ks objects, corpora, tables): 1 MiB, or
the environment's ``KCOOC_MAX_LINE_BYTES``. TSV inputs have their config's ``input.max_line_bytes``."""


def max_line_bytes() -> int:
    """:data:`MAX_LINE_BYTES`, or ``KCOOC_MAX_LINE_BYTES`` when the environment sets it (1 to 2^30)."""
    value = os.environ.get("KCOOC_MAX_LINE_BYTES")
    if value is None:
        return MAX_LINE_BYTES
    if not value.strip().isdigit() or not 1 <= int(value) <= 1 << 30:
        raise InputError(f"KCOOC_MAX_LINE_BYTES={value!r}: expected a number of bytes in [1, 2^30]")
    return int(value)


SKIP_LIMIT = 64  # on_error skip: a line is skipped if it ends within 64 times the limit; beyond, the run stops


def line_too_long(path: str, line: int, limit: int) -> InputError:
    return InputError(f"{display_name(path)}:{line}: line longer than {limit:,} bytes (the limit: "
                      "input.max_line_bytes for TSV, KCOOC_MAX_LINE_BYTES for other files)")


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
    """One read of a (possibly compressed) stream; a corrupt or truncated archive names ``path:line``.
    ``whole_lines``: one line of at most ``size`` bytes (a longer one is an InputError)."""
    try:
        if not whole_lines:
            return stream.read(size)
        raw = stream.readline(size + 1 if size > 0 else -1)
    except _DECOMPRESSION_ERRORS as exc:
        raise InputError(f"{display_name(path)}:{line}: truncated or corrupt input ({exc})") from None
    if size > 0 and len(raw) > size and not (len(raw) == size + 1 and raw.endswith(b"\n")):
        raise line_too_long(path, line, size)
    return raw


def read_line(stream: BinaryIO, path: str, line: int, limit: int) -> bytes:
    """Line ``line`` of ``stream`` (b"" at the end), at most ``limit`` bytes: a longer one is an InputError."""
    return _read(stream, path, line, limit, whole_lines=True)


def raw_lines(stream: BinaryIO, path: str, limit: int | None = None) -> Iterator[bytes]:
    """The lines of an open binary stream, newline included, each at most ``limit`` bytes
    (default :func:`max_line_bytes`): a longer one (``/dev/zero``, a file without newlines) is an
    InputError naming ``path:line`` once the limit is passed, never a hang or a MemoryError."""
    limit = limit or max_line_bytes()
    lineno = 0
    while raw := _read(stream, path, lineno + 1, limit, whole_lines=True):
        lineno += 1
        yield raw


def text_lines(path: str) -> Iterator[tuple[int, str]]:
    """(line number, text without the newline) of a text file, ``-`` or .gz/.bz2/.xz; errors name file:line
    (a line over :func:`max_line_bytes` too)."""
    stream = open_input(path)
    try:
        for lineno, raw in enumerate(raw_lines(stream, path), start=1):
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
        if stream is not sys.stdin.buffer:
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
    while block := _read(stream, path, line, chunk_bytes):
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


def rereadable_input(path: str, directory: str, cut: Callable[[bytes], int] = after_last_newline,
                     max_tail: int | None = None, skip_long: bool = False) -> str:
    """A path that can be read more than once: stdin (``-``) and any input that is not a regular file
    (a FIFO, a process substitution, a character device) is first copied once into ``directory`` (under
    its own name, so that a .gz suffix still decompresses). ``cut``, ``max_tail`` and ``skip_long`` as
    in :func:`byte_blocks`: an uncompressed input is copied as the reader will cut it, so that a line
    over the limit (``/dev/zero``) stops the copy instead of filling the disk."""
    if path != "-":
        try:
            if stat.S_ISREG(os.stat(path).st_mode):
                return path
        except OSError:
            return path  # the reader names the missing file
    name = "stdin" if path == "-" else "input-" + os.path.basename(path)
    copy_path = os.path.join(directory, name)
    try:
        source = sys.stdin.buffer if path == "-" else open(path, "rb")
    except OSError as exc:
        raise InputError(f"{path}: cannot open: {exc.strerror or exc}") from None
    try:
        with open(copy_path, "wb") as copy:
            if name.endswith(tuple(_COMPRESSORS)):
                shutil.copyfileobj(source, copy, 1 << 20)
            else:
                for _, block in byte_blocks(source, path, 1 << 20, None, cut, max_tail=max_tail, skip_long=skip_long):
                    copy.write(block)
    finally:
        if source is not sys.stdin.buffer:
            source.close()
    return copy_path
