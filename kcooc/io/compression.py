"""Compressed inputs: ``.gz``/``.bz2``/``.xz``/``.zst`` found by suffix, else by magic bytes
(:func:`compression_of`: stdin, a FIFO, a path without one of those suffixes), opened by
:func:`open_file` as one decompressed binary stream (zstd needs the ``zstd`` extra, the ``zstandard``
package, and is read a bounded amount at a time), and :func:`read_chunk`, the one read every reader
makes, which turns a truncated or corrupt archive and a line over the limit into an
:class:`InputError` naming ``file:line``.
"""

from __future__ import annotations

import bz2
import gzip
import io
import lzma
import sys
import zlib
from typing import BinaryIO

from ..errors import InputError
from ..extras import import_optional
from .limits import display_name, line_too_long

DECOMPRESSION_ERRORS = (EOFError, zlib.error, lzma.LZMAError, gzip.BadGzipFile, OSError)
COMPRESSED_SUFFIXES = (".gz", ".bz2", ".xz", ".zst")
MAGIC_BYTES = 10  # the longest signature below (bzip2's)


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


def open_file(path: str) -> BinaryIO:
    """Open ``path`` (or stdin for ``-``) for binary reading, decompressing by suffix, else by magic bytes.

    The stream returned for stdin never closes stdin itself."""
    if path == "-":
        stdin = sys.stdin.buffer
        head = read_chunk(stdin, path, 1, MAGIC_BYTES, exact=True)
        return decompressing(compression_of(head), io.BufferedReader(Prefixed(head, stdin), 1 << 16), path)
    try:
        suffix = next((suffix for suffix in COMPRESSED_SUFFIXES if path.endswith(suffix)), None)
        stream = open(path, "rb")
    except OSError as exc:
        raise InputError(f"{path}: cannot open: {exc.strerror or exc}") from None
    if suffix is None:
        head = read_chunk(stream, path, 1, MAGIC_BYTES, exact=True)
        suffix = compression_of(head)
        if stream.seekable():
            stream.seek(0)
        else:  # a FIFO, a process substitution: the sniffed bytes are read again in front of the rest
            stream = io.BufferedReader(Prefixed(head, stream, owned=True), 1 << 16)
    return decompressing(suffix, stream, path)


def decompressing(suffix: str | None, stream: BinaryIO, path: str) -> BinaryIO:
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


class Prefixed(io.RawIOBase):
    """``head`` (bytes already read to sniff the format), then the rest of ``stream``; closing it
    leaves ``stream`` (stdin) open unless it is ``owned`` (a FIFO opened for it)."""

    def __init__(self, head: bytes, stream: BinaryIO, owned: bool = False):
        self.head, self.stream, self.owned = head, stream, owned

    def close(self) -> None:
        if not self.closed and self.owned:
            self.stream.close()
        super().close()

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


class _ZstdReader(io.RawIOBase):
    """A zstd stream (one frame or several, concatenated as ``zstd`` and ``cat`` make them),
    decompressed; a stream that ends inside a frame is an EOFError, a corrupt one an OSError.

    It decompresses ``read_bytes`` of input at a time: zstd's ratio is at most about 32,768 (a run of one
    byte), so what waits for the readers' line limit stays under 128 MiB even for ``/dev/zero`` compressed."""

    read_bytes = 1 << 12

    def __init__(self, stream: BinaryIO, zstandard):
        self.stream, self.zstandard = stream, zstandard
        self.decompressor, self.in_frame, self.pending = None, False, b""

    def readable(self) -> bool:
        return True

    def readinto(self, buffer) -> int:
        while not self.pending:
            data = self.stream.read(self.read_bytes)
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


def read_chunk(stream: BinaryIO, path: str, line: int, size: int = -1, *, whole_lines: bool = False,
               exact: bool = False) -> bytes:
    """One read of a (possibly compressed) stream; a corrupt or truncated archive names ``path:line``.
    ``exact``: read until ``size`` bytes or the end (a pipe may return fewer at a time). ``whole_lines``:
    one line of at most ``size`` bytes (a longer one is an InputError)."""
    try:
        if not whole_lines:
            data = stream.read(size)
            while exact and data and len(data) < size and (more := stream.read(size - len(data))):
                data += more
            return data
        raw = stream.readline(size + 1 if size > 0 else -1)
    except DECOMPRESSION_ERRORS as exc:
        raise InputError(f"{display_name(path)}:{line}: truncated or corrupt input ({exc})") from None
    if size > 0 and len(raw) > size and not (len(raw) == size + 1 and raw.endswith(b"\n")):
        raise line_too_long(path, line, size)
    return raw
