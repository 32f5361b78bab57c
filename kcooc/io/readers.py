"""Reading inputs: a path or ``-`` (stdin), ``.gz``/``.bz2``/``.xz``/``.zst`` decompressed by suffix, or by
their magic bytes (stdin, and a path without one of those suffixes), as text lines, decoded blocks or
undecoded blocks of whole lines; a bad byte, a truncated or corrupt archive is an :class:`InputError`
naming ``file:line``. zstd needs the ``zstd`` extra (the ``zstandard`` package). :class:`RawLines` cuts
rows out of blocks of whole lines (:func:`line_blocks`), each as the TSV reader (tsv.py) read it.
"""

from __future__ import annotations

import bz2
import gzip
import io
import lzma
import os
import shutil
import sys
import zlib
from dataclasses import dataclass
from typing import BinaryIO, Callable, Iterator

import numpy as np

from ..errors import InputError
from ..extras import import_optional

_DECOMPRESSION_ERRORS = (EOFError, zlib.error, lzma.LZMAError, gzip.BadGzipFile, OSError)
COMPRESSED_SUFFIXES = (".gz", ".bz2", ".xz", ".zst")
_MAGIC_BYTES = 10  # the longest signature below (bzip2's)


@dataclass(frozen=True)
class AlignedFiles:
    """Two aligned files, one sentence a line (Moses/OPUS form: ``corpus.en``, ``corpus.de``), each a
    path, compressed or not, read as one TSV of ``src<TAB>tgt`` lines (:func:`open_input`), so that
    every reader and every pass sees the pairs a TSV of them would give. A tab inside a sentence,
    or files of different line counts, are an :class:`InputError` naming the file (and the line)."""

    src: str
    tgt: str

    def __str__(self) -> str:
        return f"{self.src} + {self.tgt}"

    def where(self, line: int, byte: int, raw: bytes) -> tuple[str, int]:
        """(file, byte in its line) of byte ``byte`` of the merged line ``raw``."""
        tab = raw.find(b"\t")
        return (self.src, byte) if tab < 0 or byte < tab else (self.tgt, byte - tab - 1)


def display_name(path: str | AlignedFiles) -> str:
    return "<stdin>" if path == "-" else str(path)


def bad_utf8_location(path: str | AlignedFiles, line: int, byte: int, raw: bytes) -> str:
    """``file:line: invalid UTF-8 at byte N`` for a bad byte of an input line (of either aligned file)."""
    if isinstance(path, AlignedFiles):
        name, byte = path.where(line, byte, raw)
        return f"{name}:{line}: invalid UTF-8 at byte {byte}"
    return f"{display_name(path)}:{line}: invalid UTF-8 at byte {byte}"


def compression_of(head: bytes) -> str | None:
    """The suffix of the compressed format whose signature ``head`` (a file's first bytes) starts
    with, or None. None of them is valid UTF-8 text except bzip2's, whose 10 bytes no text starts with."""
    if head.startswith(b"\x1f\x8b"):
        return ".gz"
    if head.startswith(b"\xfd7zXZ\x00"):
        return ".xz"
    if head.startswith(b"\x28\xb5\x2f\xfd"):
        return ".zst"
    if head[:3] == b"BZh" and head[3:4].isdigit() and head[4:10] in (b"1AY&SY", b"\x17rE8P\x90"):
        return ".bz2"
    return None


def open_input(path: str | AlignedFiles) -> BinaryIO:
    """Open ``path`` (or stdin for ``-``) for binary reading, decompressing by suffix, else by magic bytes;
    :class:`AlignedFiles` as one TSV of their lines.

    The stream returned for stdin never closes stdin itself."""
    if isinstance(path, AlignedFiles):
        return io.BufferedReader(_AlignedStream(path), 1 << 16)
    if path == "-":
        stdin = sys.stdin.buffer
        head = _read(stdin, path, 1, _MAGIC_BYTES, exact=True)
        return _decompressing(compression_of(head), io.BufferedReader(_Prefixed(head, stdin), 1 << 16), path)
    try:
        suffix = next((suffix for suffix in COMPRESSED_SUFFIXES if path.endswith(suffix)), None)
        stream = open(path, "rb")
    except OSError as exc:
        raise InputError(f"{path}: cannot open: {exc.strerror or exc}") from None
    if suffix is None:
        suffix = compression_of(_read(stream, path, 1, _MAGIC_BYTES, exact=True))
        stream.seek(0)
    return _decompressing(suffix, stream, path)


def _decompressing(suffix: str | None, stream: BinaryIO, path: str) -> BinaryIO:
    """``stream`` decompressed as ``suffix`` says (closing the result closes ``stream``)."""
    if suffix is None:
        return stream if isinstance(stream, io.BufferedIOBase) else io.BufferedReader(stream, 1 << 16)
    if suffix == ".zst":
        try:
            zstandard = import_optional("zstandard", f"to read {display_name(path)} (zstd)")
        except InputError:
            stream.close()
            raise
        return io.BufferedReader(_ZstdReader(stream, zstandard), 1 << 16)
    opened = {".gz": lambda: gzip.GzipFile(fileobj=stream, mode="rb"), ".bz2": lambda: bz2.BZ2File(stream, "rb"),
              ".xz": lambda: lzma.LZMAFile(stream, "rb")}[suffix]()
    return _Closing(opened, stream)


class _Closing(io.BufferedIOBase):
    """A decompressing reader that also closes the file under it (gzip, bz2 and lzma leave a file
    object they were given open)."""

    def __init__(self, reader: BinaryIO, under: BinaryIO):
        self.reader, self.under = reader, under

    def readable(self) -> bool:
        return True

    def read(self, size: int | None = -1) -> bytes:
        return self.reader.read(size)

    def read1(self, size: int = -1) -> bytes:
        return self.reader.read1(size)

    def readline(self, size: int | None = -1) -> bytes:
        return self.reader.readline(size)

    def close(self) -> None:
        if not self.closed:
            self.reader.close()
            self.under.close()
        super().close()


class _Prefixed(io.RawIOBase):
    """``head`` (bytes already read to sniff the format), then the rest of ``stream``; closing it
    leaves ``stream`` (stdin) open."""

    def __init__(self, head: bytes, stream: BinaryIO):
        self.head, self.stream = head, stream

    def readable(self) -> bool:
        return True

    def readinto(self, buffer) -> int:
        if self.head:
            n = min(len(buffer), len(self.head))
            buffer[:n], self.head = self.head[:n], self.head[n:]
            return n
        data = self.stream.read1(len(buffer)) if hasattr(self.stream, "read1") else self.stream.read(len(buffer))
        buffer[: len(data)] = data
        return len(data)


class _AlignedStream(io.RawIOBase):
    """The lines of two aligned files as ``src<TAB>tgt`` lines (each side without its line ending),
    merged a block of lines at a time."""

    block_bytes = 1 << 20

    def __init__(self, files: AlignedFiles):
        self.files = files
        self.streams = [open_input(files.src), open_input(files.tgt)]
        self.tails, self.ended, self.lines, self.pending = [b"", b""], [False, False], 0, b""

    def readable(self) -> bool:
        return True

    def _lines_of(self, side: int) -> list[bytes]:
        """The whole lines read so far of one side (reading more while it has none)."""
        path = (self.files.src, self.files.tgt)[side]
        while not self.ended[side] and b"\n" not in self.tails[side]:
            data = _read(self.streams[side], path, self.lines + 1, self.block_bytes)
            if not data:
                self.ended[side] = True
                if self.tails[side]:  # the last line, without its newline
                    self.tails[side] += b"\n"
            self.tails[side] += data
        cut = self.tails[side].rfind(b"\n") + 1
        lines, self.tails[side] = self.tails[side][:cut].split(b"\n")[:-1], self.tails[side][cut:]
        return lines

    def readinto(self, buffer) -> int:
        while not self.pending:
            src, tgt = self._lines_of(0), self._lines_of(1)
            if not src and not tgt:
                return 0
            n = min(len(src), len(tgt))
            if len(src) != len(tgt) and all(self.ended) or (not src and self.ended[0]) or (not tgt and self.ended[1]):
                shorter = self.files.src if len(src) < len(tgt) else self.files.tgt
                longer = self.files.tgt if shorter == self.files.src else self.files.src
                raise InputError(f"{shorter} has {self.lines + n:,} lines and {longer} more: the two files of a "
                                 "corpus must have one line per pair each")
            for side, rest in ((0, src[n:]), (1, tgt[n:])):  # give back what the other side has not reached
                self.tails[side] = b"".join(line + b"\n" for line in rest) + self.tails[side]
            src, tgt = [line.removesuffix(b"\r") for line in src[:n]], [line.removesuffix(b"\r") for line in tgt[:n]]
            for name, lines in ((self.files.src, src), (self.files.tgt, tgt)):
                if any(b"\t" in line for line in lines):
                    line = self.lines + 1 + next(i for i, text in enumerate(lines) if b"\t" in text)
                    raise InputError(f"{name}:{line}: a tab inside a sentence; each file of two aligned files holds "
                                     "one sentence a line (a tab there is refused, not guessed at)")
            self.lines += n
            self.pending = b"".join(a + b"\t" + b + b"\n" for a, b in zip(src, tgt))
        n = min(len(buffer), len(self.pending))
        buffer[:n], self.pending = self.pending[:n], self.pending[n:]
        return n

    def close(self) -> None:
        if not self.closed:
            for stream in self.streams:
                stream.close()
        super().close()


class _ZstdReader(io.RawIOBase):
    """A zstd stream (one frame or several, concatenated as ``zstd`` and ``cat`` make them),
    decompressed; a stream that ends inside a frame is an EOFError, a corrupt one an OSError."""

    def __init__(self, stream: BinaryIO, zstandard):
        self.stream, self.zstandard = stream, zstandard
        self.decompressor, self.in_frame, self.pending = None, False, b""

    def readable(self) -> bool:
        return True

    def readinto(self, buffer) -> int:
        while not self.pending:
            data = self.stream.read(1 << 16)
            if not data:
                if self.in_frame:
                    raise EOFError("zstd stream ended inside a frame (truncated file)")
                return 0
            self.pending = self._decompress(data)
        n = min(len(buffer), len(self.pending))
        buffer[:n], self.pending = self.pending[:n], self.pending[n:]
        return n

    def _decompress(self, data: bytes) -> bytes:
        out = []
        while data:
            if self.decompressor is None:
                self.decompressor, self.in_frame = self.zstandard.ZstdDecompressor().decompressobj(), True
            try:
                out.append(self.decompressor.decompress(data))
            except self.zstandard.ZstdError as exc:
                raise OSError(f"corrupt zstd data: {exc}") from None
            data = b""
            if self.decompressor.eof:  # the frame ended: what follows starts the next one
                data, self.decompressor, self.in_frame = self.decompressor.unused_data, None, False
        return b"".join(out)

    def close(self) -> None:
        if not self.closed:
            self.stream.close()
        super().close()


def decode_utf8(data: bytes, path: str, first_line: int = 1) -> str:
    """``data`` as text, or an InputError naming the file and the line of the first bad byte."""
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = first_line + data.count(b"\n", 0, exc.start)
        column = exc.start - data.rfind(b"\n", 0, exc.start) - 1
        raise InputError(f"{display_name(path)}:{line}: invalid UTF-8 at byte {column} of the line") from None


def _read(stream: BinaryIO, path: str, line: int, size: int = -1, *, whole_lines: bool = False,
          exact: bool = False) -> bytes:
    """One read of a (possibly compressed) stream; a corrupt or truncated archive names ``path:line``.
    ``exact``: read until ``size`` bytes or the end (a pipe may return fewer at a time)."""
    try:
        if whole_lines:
            return stream.readline()
        data = stream.read(size)
        while exact and data and len(data) < size and (more := stream.read(size - len(data))):
            data += more
        return data
    except _DECOMPRESSION_ERRORS as exc:
        raise InputError(f"{display_name(path)}:{line}: truncated or corrupt input ({exc})") from None


def text_lines(path: str) -> Iterator[tuple[int, str]]:
    """(line number, text without the newline) of a text file, ``-`` or .gz/.bz2/.xz/.zst; errors name file:line."""
    stream = open_input(path)
    try:
        lineno = 0
        while raw := _read(stream, path, lineno + 1, whole_lines=True):
            lineno += 1
            yield lineno, decode_utf8(raw, path, lineno).removesuffix("\n").removesuffix("\r")
    finally:
        stream.close()


def read_text(path: str) -> str:
    """A whole text file (``-``, .gz/.bz2/.xz/.zst), decoded; errors name file:line."""
    stream = open_input(path)
    try:
        return decode_utf8(_read(stream, path, 1), path)
    finally:
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

    def texts_of(self, rows: np.ndarray) -> list[str]:
        """The lines of some of the block's rows (indices from its first row), as the reader decoded them."""
        data = self.data.tobytes()
        return [data[a:b].decode("utf-8") for a, b in zip(*(x.tolist() for x in self._spans(self.lines[rows])))]


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


def rereadable_input(path: str | AlignedFiles, directory: str) -> str | AlignedFiles:
    """A path that can be read more than once: stdin (``-``) is first copied into ``directory``."""
    if path != "-":
        return path
    copy_path = os.path.join(directory, "stdin")
    with open(copy_path, "wb") as copy:
        shutil.copyfileobj(sys.stdin.buffer, copy, 1 << 20)
    return copy_path
