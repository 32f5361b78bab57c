"""Streaming TSV: columns chosen by 1-based index or by header name and validated before any work starts;
a malformed line (wrong field count, undecodable UTF-8, over-long line) is an :class:`InputError` naming
``file:line``, or with ``on_error="skip"`` it is skipped and counted by reason (:class:`ReadStats`).
"""

from __future__ import annotations

import hashlib
import sys
from collections import Counter
from dataclasses import dataclass, field
from typing import Iterator, Sequence

import numpy as np

from ..errors import InputError
from .limits import display_name
from .readers import after_last_newline, bad_utf8_location, byte_blocks, open_input, read_line


def resolve_columns(specs: Sequence[int | str], header: Sequence[str] | None, path: str) -> list[int]:
    """Turn 1-based indices or header names into 0-based field indices, or raise InputError."""
    resolved = []
    for spec in specs:
        if isinstance(spec, str) and not spec.isdigit():
            if header is None:
                raise InputError(f"column {spec!r} is a name but the input has no header line", key="input.header")
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


REASON_NAMES = {"bad_utf8": "bad UTF-8", "wrong_field_count": "wrong field count", "line_too_long": "line too long"}


def describe_rejection(stats: ReadStats, header: bool = False) -> str:
    """Why a reader produced no row: "empty input", or "all 6,000 lines skipped: bad UTF-8 (6,000)"."""
    data_lines = stats.lines - (1 if header else 0)
    if data_lines <= 0:
        return "empty input (no data lines" + (" after the header)" if header else ")")
    reasons = ", ".join(f"{REASON_NAMES.get(reason, reason)} ({count:,})"
                        for reason, count in stats.skipped.most_common())
    return f"all {data_lines:,} lines skipped: {reasons}"


@dataclass
class TsvBlock:
    """A block of consecutive well-formed rows: the raw lines and the selected columns."""

    lines: list[str]
    columns: list[list[str]]
    linenos: np.ndarray  # 1-based input line number of each row (for file:line messages about a row)


class TsvReader:
    """Stream a TSV file in blocks of rows, validating field counts and UTF-8 per line.

    The expected field count is that of the header (with ``header=True``) or of the first line.
    Lines are read and decoded a megabyte at a time; only a chunk holding a malformed line is
    re-read line by line to name it. ``sha256`` hashes every byte read (the artifact's data hash).
    """

    chunk_bytes = 1 << 20

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
        self.indices = self._read_header_and_resolve()

    # -- reading -----------------------------------------------------------------------------
    def _chunks(self) -> Iterator[bytes]:
        """The rest of the input in chunks of whole lines (about ``chunk_bytes``)."""
        for _, data in byte_blocks(self._stream, self.path, self.chunk_bytes, self.sha256.update, after_last_newline,
                                    self._lineno + 1, max_tail=self.max_line_bytes, skip_long=self.on_error == "skip"):
            yield data

    def _malformed(self, lineno: int, reason: str, message: str) -> None:
        if self.on_error == "skip":
            self.stats.skipped[reason] += 1
            return
        raise InputError(f"{display_name(self.path)}:{lineno}: {message}")

    def _decode_line(self, raw: bytes, lineno: int) -> str | None:
        if len(raw) > self.max_line_bytes:
            self._malformed(lineno, "line_too_long", f"line longer than {self.max_line_bytes} bytes")
            return None
        try:
            text = raw.decode("utf-8")
        except UnicodeDecodeError as exc:
            if self.on_error == "skip":
                self.stats.skipped["bad_utf8"] += 1
                return None
            raise InputError(bad_utf8_location(self.path, lineno, exc.start, raw)) from None
        return text.removesuffix("\n").removesuffix("\r")

    def _fast_parse(self, data: bytes, first: int, count: int) -> tuple[list[str], list[list[str]], np.ndarray] | None:
        """Decode and split a whole chunk of ``count`` lines at once; None if a line needs a closer look.

        Line lengths and field counts are checked on the bytes (newlines and tabs per line,
        vectorised); the selected columns are then strided slices of one split of the whole chunk:
        no Python work per line.
        """
        raw = np.frombuffer(data, dtype=np.uint8)
        ends = np.flatnonzero(raw == 10)
        if ends.size < count:  # the file's last line, without a newline
            ends = np.append(ends, raw.size)
        if np.diff(np.minimum(ends, raw.size - 1), prepend=-1).max() > self.max_line_bytes:  # lengths, newline included
            return None
        try:
            text = data.decode("utf-8")
        except UnicodeDecodeError:
            return None
        lines = text.replace("\r\n", "\n").split("\n")
        if lines[-1] == "":
            lines.pop()
        if len(lines) != count or lines[-1].endswith("\r"):
            return None
        if self._n_fields is None:
            self._set_field_count(lines[0].count("\t") + 1, first)
        tabs_per_line = np.diff(np.searchsorted(np.flatnonzero(raw == 9), ends), prepend=0)
        if (tabs_per_line != self._n_fields - 1).any():
            return None
        fields = "\t".join(lines).split("\t")
        return lines, [fields[i :: self._n_fields] for i in self.indices], np.arange(first, first + len(lines))

    def _parse(self, data: bytes) -> tuple[list[str], list[list[str]], np.ndarray]:
        """The well-formed lines of a chunk and their selected columns; malformed lines fail or are skipped."""
        first = self._lineno + 1
        count = data.count(b"\n") + (not data.endswith(b"\n"))
        self._lineno += count
        self.stats.lines += count
        parsed = self._fast_parse(data, first, count)
        if parsed is not None:
            return parsed
        chunk = [line + b"\n" for line in data.split(b"\n")]
        chunk[-1] = chunk[-1][:-1]  # after the last newline: nothing, or the file's unterminated last line
        lines, rows, linenos = [], [], []
        for lineno, raw in enumerate(chunk[:count], start=first):
            text = self._decode_line(raw, lineno)
            if text is None:
                continue
            row = text.split("\t")
            if self._n_fields is None:
                self._set_field_count(len(row), lineno)
            if len(row) != self._n_fields:
                what = "empty line" if not text else f"{len(row)} tab-separated fields"
                self._malformed(lineno, "wrong_field_count",
                                f"expected {self._n_fields} tab-separated fields, found {what}")
                continue
            lines.append(text)
            rows.append(row)
            linenos.append(lineno)
        return lines, [[row[i] for row in rows] for i in self.indices], np.array(linenos, dtype=np.int64)

    def _read_header_and_resolve(self) -> list[int]:
        if self.header:
            raw = read_line(self._stream, self.path, 1, self.max_line_bytes)
            if raw:
                self.sha256.update(raw)
                self._lineno = self.stats.lines = 1
                text = self._decode_line(raw, 1)
                if text is not None:
                    self.header_fields = text.split("\t")
            if self.header_fields is None:
                raise InputError(f"{display_name(self.path)}: empty input, expected a header line")
        self.indices = resolve_columns(self.column_specs, self.header_fields, self.path)
        if self.header_fields is not None:
            self._set_field_count(len(self.header_fields), 1)
        return self.indices

    def _set_field_count(self, n_fields: int, lineno: int | None = None) -> None:
        self._n_fields = n_fields
        for spec, index in zip(self.column_specs, self.indices):
            if index >= n_fields:
                raise InputError(
                    f"{display_name(self.path)}:{lineno or self._lineno}: column {spec} does not exist; "
                    f"the input has {n_fields} tab-separated fields"
                )

    # -- blocks ------------------------------------------------------------------------------
    def __iter__(self) -> Iterator[TsvBlock]:
        """Blocks of ``block_size`` rows; an input without a single usable row is an InputError saying why."""
        lines: list[str] = []
        columns: list[list[str]] = [[] for _ in self.indices]
        linenos = np.zeros(0, dtype=np.int64)
        size = self.block_size
        for chunk in self._chunks():
            chunk_lines, chunk_columns, chunk_linenos = self._parse(chunk)
            lines += chunk_lines
            linenos = np.concatenate([linenos, chunk_linenos])
            for column, values in zip(columns, chunk_columns):
                column += values
            while len(lines) >= size:
                yield self._block(lines[:size], [column[:size] for column in columns], linenos[:size])
                lines, columns, linenos = lines[size:], [column[size:] for column in columns], linenos[size:]
        if lines:
            yield self._block(lines, columns, linenos)
        self.close()
        if self.stats.rows == 0:
            raise InputError(f"{display_name(self.path)}: {describe_rejection(self.stats, self.header)}")

    def _block(self, lines: list[str], columns: list[list[str]], linenos: np.ndarray) -> TsvBlock:
        self.stats.rows += len(lines)
        return TsvBlock(lines, columns, linenos)

    def close(self) -> None:
        if self._stream is not sys.stdin.buffer:
            self._stream.close()
