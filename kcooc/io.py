"""Streaming readers and atomic writers shared by every command (DESIGN.md, "Contracts").

* A path or ``-`` (stdin/stdout); ``.gz``/``.bz2``/``.xz`` are read and written transparently.
* TSV columns are chosen by 1-based index or by header name and validated before any work starts.
* A malformed line (wrong field count, undecodable UTF-8, over-long line) is an :class:`InputError`
  naming ``file:line``, or with ``on_error="skip"`` it is skipped and counted by reason.
* Outputs go to a temporary file in the target directory and are renamed into place on success,
  so a crash never leaves a half-written file and never destroys the previous output.
"""

from __future__ import annotations

import bz2
import contextlib
import gzip
import hashlib
import io
import lzma
import os
import sys
import tempfile
import zlib
from collections import Counter
from dataclasses import dataclass, field
from typing import BinaryIO, Iterator, Sequence

from .errors import InputError

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


def resolve_columns(specs: Sequence[int | str], header: Sequence[str] | None, path: str) -> list[int]:
    """Turn 1-based indices or header names into 0-based field indices, or raise InputError."""
    resolved = []
    for spec in specs:
        if isinstance(spec, str) and not spec.isdigit():
            if header is None:
                raise InputError(f"column {spec!r} is a name but the input has no header (use --header)")
            if spec not in header:
                raise InputError(f"{display_name(path)}:1: no column named {spec!r} in header {list(header)}")
            resolved.append(list(header).index(spec))
        else:
            index = int(spec)
            if index < 1:
                raise InputError(f"column indices are 1-based, got {index}")
            resolved.append(index - 1)
    return resolved


@dataclass
class ReadStats:
    """What a reader saw: lines read, rows kept, malformed lines skipped (by reason)."""

    lines: int = 0
    rows: int = 0
    skipped: Counter = field(default_factory=Counter)

    def as_dict(self) -> dict:
        return {"lines": self.lines, "rows": self.rows, "skipped": dict(self.skipped)}


@dataclass
class TsvBlock:
    """A block of consecutive well-formed rows: the raw lines and the selected columns."""

    lines: list[str]
    columns: list[list[str]]
    first_line: int


class TsvReader:
    """Stream a TSV file in blocks of rows, validating field counts and UTF-8 per line.

    The expected field count is that of the header (with ``header=True``) or of the first line.
    ``sha256`` holds the hash of every byte read once iteration ends (the artifact's data hash).
    """

    def __init__(
        self,
        path: str,
        columns: Sequence[int | str],
        *,
        header: bool = False,
        on_error: str = "fail",
        block_size: int = 8192,
        max_line_bytes: int = 1 << 20,
    ):
        if on_error not in ("fail", "skip"):
            raise InputError(f"on_error must be 'fail' or 'skip', got {on_error!r}")
        self.path, self.column_specs, self.header = path, list(columns), header
        self.on_error, self.block_size, self.max_line_bytes = on_error, block_size, max_line_bytes
        self.stats = ReadStats()
        self.sha256 = hashlib.sha256()
        self.header_fields: list[str] | None = None
        self._stream = open_input(path)
        self._lineno = 0
        self._n_fields: int | None = None
        self._pending: list[str] = []
        self.indices = self._read_header_and_resolve()

    # -- reading raw lines -------------------------------------------------------------------
    def _raw_lines(self) -> Iterator[bytes]:
        name = display_name(self.path)
        try:
            while True:
                raw = self._stream.readline()
                if not raw:
                    return
                self.sha256.update(raw)
                yield raw
        except _DECOMPRESSION_ERRORS as exc:
            raise InputError(f"{name}:{self._lineno + 1}: truncated or corrupt input ({exc})") from None

    def _malformed(self, reason: str, message: str) -> None:
        if self.on_error == "skip":
            self.stats.skipped[reason] += 1
            return
        raise InputError(f"{display_name(self.path)}:{self._lineno}: {message}")

    def _decode(self, raw: bytes) -> str | None:
        self._lineno += 1
        self.stats.lines += 1
        if len(raw) > self.max_line_bytes:
            self._malformed("line_too_long", f"line longer than {self.max_line_bytes} bytes")
            return None
        try:
            text = raw.decode("utf-8")
        except UnicodeDecodeError as exc:
            self._malformed("bad_utf8", f"invalid UTF-8 at byte {exc.start}")
            return None
        return text.rstrip("\n").removesuffix("\r")

    def _read_header_and_resolve(self) -> list[int]:
        self._lines = self._raw_lines()
        if self.header:
            for raw in self._lines:
                text = self._decode(raw)
                if text is not None:
                    self.header_fields = text.split("\t")
                    self._n_fields = len(self.header_fields)
                    break
            if self.header_fields is None:
                raise InputError(f"{display_name(self.path)}: empty input, expected a header line")
        indices = resolve_columns(self.column_specs, self.header_fields, self.path)
        if self._n_fields is not None:
            self._check_indices(indices)
        return indices

    def _check_indices(self, indices: list[int]) -> None:
        for spec, index in zip(self.column_specs, indices):
            if index >= self._n_fields:
                raise InputError(
                    f"{display_name(self.path)}:{self._lineno}: column {spec} does not exist; "
                    f"the input has {self._n_fields} tab-separated fields"
                )

    # -- blocks ------------------------------------------------------------------------------
    def __iter__(self) -> Iterator[TsvBlock]:
        lines: list[str] = []
        columns: list[list[str]] = [[] for _ in self.indices]
        first = self._lineno + 1
        for raw in self._lines:
            text = self._decode(raw)
            if text is None:
                continue
            fields = text.split("\t")
            if self._n_fields is None:
                self._n_fields = len(fields)
                self._check_indices(self.indices)
            if len(fields) != self._n_fields:
                what = "empty line" if not text else f"{len(fields)} tab-separated fields"
                self._malformed("wrong_field_count", f"expected {self._n_fields} tab-separated fields, found {what}")
                continue
            lines.append(text)
            for column, index in zip(columns, self.indices):
                column.append(fields[index])
            if len(lines) == self.block_size:
                self.stats.rows += len(lines)
                yield TsvBlock(lines, columns, first)
                lines, columns, first = [], [[] for _ in self.indices], self._lineno + 1
        if lines:
            self.stats.rows += len(lines)
            yield TsvBlock(lines, columns, first)

    def close(self) -> None:
        if self._stream is not sys.stdin.buffer:
            self._stream.close()


@contextlib.contextmanager
def atomic_output(path: str, binary: bool = False) -> Iterator[io.IOBase]:
    """Yield a writable file that appears at ``path`` only if the block finishes without error.

    ``-`` writes to stdout. A ``.gz``/``.bz2``/``.xz`` suffix compresses (gzip with a zero
    timestamp, so reruns are byte-identical). The final file gets the usual umask permissions.
    """
    if path == "-":
        stream = sys.stdout.buffer if binary else sys.stdout
        yield stream
        stream.flush()
        return
    path = os.path.realpath(path)  # write beside a symlink's target, never over the link
    if os.path.exists(path) and not os.path.isfile(path):  # /dev/stdout, a FIFO: cannot be replaced
        with open(path, "wb" if binary else "w", encoding=None if binary else "utf-8") as stream:
            yield stream
        return
    directory = os.path.dirname(path)
    if not os.path.isdir(directory):
        raise InputError(f"{path}: output directory {directory} does not exist")
    fd, tmp = tempfile.mkstemp(dir=directory, prefix=f".{os.path.basename(path)}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as raw:
            compressed = _compressed_writer(path, raw)
            target = compressed or raw
            stream = target if binary else io.TextIOWrapper(target, encoding="utf-8", newline="\n")
            yield stream
            stream.flush()
            if compressed is not None:
                compressed.close() if binary else stream.close()
            elif not binary:
                stream.detach()
            raw.flush()
            os.fsync(raw.fileno())
        umask = os.umask(0)
        os.umask(umask)
        os.chmod(tmp, 0o666 & ~umask)
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(tmp)
        raise


def _compressed_writer(path: str, raw: BinaryIO):
    if path.endswith(".gz"):
        return gzip.GzipFile(filename="", mode="wb", fileobj=raw, mtime=0)
    if path.endswith(".bz2"):
        return bz2.BZ2File(raw, "wb")
    if path.endswith(".xz"):
        return lzma.LZMAFile(raw, "wb")
    return None
