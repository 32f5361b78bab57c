"""Two aligned files, one sentence a line (Moses/OPUS form), read as one TSV of ``src<TAB>tgt`` lines:
:class:`AlignedFiles` names them, :func:`open_aligned` merges them a block of lines at a time, each side
bounded by the line limit (limits.py) and opened as any input (compression.py).
"""

from __future__ import annotations

import io
from dataclasses import dataclass, field
from typing import BinaryIO

from ..errors import InputError
from .compression import open_file, read_chunk
from .limits import SKIP_LIMIT, line_too_long, max_line_bytes


@dataclass(frozen=True)
class AlignedFiles:
    """Two aligned files, one sentence a line (Moses/OPUS form: ``corpus.en``, ``corpus.de``), each a
    path, compressed or not, read as one TSV of ``src<TAB>tgt`` lines (:func:`open_aligned`), so that
    every reader and every pass sees the pairs a TSV of them would give. A tab inside a sentence,
    or files of different line counts, are an :class:`InputError` naming the file (and the line)."""

    src: str
    tgt: str
    max_line_bytes: int | None = field(default=None, compare=False)  # a side's longest line; None: max_line_bytes()
    skip_long: bool = field(default=False, compare=False)  # on_error skip: a longer line is cut for the reader to skip

    def __str__(self) -> str:
        return f"{self.src} + {self.tgt}"

    def where(self, line: int, byte: int, raw: bytes) -> tuple[str, int]:
        """(file, byte in its line) of byte ``byte`` of the merged line ``raw``."""
        tab = raw.find(b"\t")
        return (self.src, byte) if tab < 0 or byte < tab else (self.tgt, byte - tab - 1)


def open_aligned(files: AlignedFiles) -> BinaryIO:
    """The lines of ``files`` as one binary stream of ``src<TAB>tgt`` lines (readers.open_input's form)."""
    return io.BufferedReader(_AlignedStream(files), 1 << 16)


class _AlignedStream(io.RawIOBase):
    """The lines of two aligned files as ``src<TAB>tgt`` lines (each side without its line ending),
    merged a block of lines at a time."""

    block_bytes = 1 << 20

    def __init__(self, files: AlignedFiles):
        self.files, self.limit = files, files.max_line_bytes or max_line_bytes()
        self.streams = [open_file(files.src), open_file(files.tgt)]
        self.tails, self.ended, self.lines, self.pending = [b"", b""], [False, False], 0, b""
        self.dropping, self.dropped = [False, False], [0, 0]

    def readable(self) -> bool:
        return True

    def _lines_of(self, side: int) -> list[bytes]:
        """The whole lines read so far of one side (reading more while it has none)."""
        path = (self.files.src, self.files.tgt)[side]
        while not self.ended[side] and b"\n" not in self.tails[side]:
            data = read_chunk(self.streams[side], path, self.lines + 1, self.block_bytes)
            if data and self.dropping[side]:  # the rest of a line cut at the limit
                end = data.find(b"\n")
                if end < 0:
                    self.dropped[side] += len(data)
                    if self.dropped[side] > SKIP_LIMIT * self.limit:
                        raise line_too_long(path, self.lines + 1, SKIP_LIMIT * self.limit)
                    continue
                data, self.dropping[side], self.dropped[side] = data[end:], False, 0
            if not data:
                self.ended[side] = True
                if self.tails[side]:  # the last line, without its newline
                    self.tails[side] += b"\n"
            self.tails[side] += data
            self._bound(side, path)
        cut = self.tails[side].rfind(b"\n") + 1
        lines, self.tails[side] = self.tails[side][:cut].split(b"\n")[:-1], self.tails[side][cut:]
        return lines

    def _bound(self, side: int, path: str) -> None:
        """The line being read of one side (line ``lines + 1``: every line before it is taken) is at most
        ``limit`` bytes: a longer one (``/dev/zero``) is an InputError naming the file, or with
        ``skip_long`` its first ``limit + 1`` bytes are kept (the reader skips the pair as too long)
        and the rest is dropped up to its newline (an InputError after ``SKIP_LIMIT`` times the limit)."""
        tail = self.tails[side]
        end = tail.find(b"\n")
        if (end if end >= 0 else len(tail)) <= self.limit:
            return
        if not self.files.skip_long:
            raise line_too_long(path, self.lines + 1, self.limit)
        self.tails[side] = tail[: self.limit + 1] + (tail[end:] if end >= 0 else b"")
        self.dropping[side] = end < 0

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
                if not self.files.skip_long and max(map(len, lines), default=0) > self.limit:  # skip: the reader skips
                    raise line_too_long(name, self.lines + 1 + next(i for i, text in enumerate(lines)
                                                                    if len(text) > self.limit), self.limit)
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
