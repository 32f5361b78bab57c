"""Streaming readers and atomic writers shared by every command: the input and output contracts.

* A path or ``-`` (stdin/stdout); ``.gz``/``.bz2``/``.xz`` are read and written transparently.
* TSV columns are chosen by 1-based index or by header name and validated before any work starts.
* A malformed line (wrong field count, undecodable UTF-8, over-long line) is an :class:`InputError`
  naming ``file:line``, or with ``on_error="skip"`` it is skipped and counted by reason.
* :class:`RawLines` cuts rows out of undecoded blocks of whole lines (:func:`line_blocks`), each as
  the TSV reader read it.
* Outputs go to a temporary file in the target directory and are renamed into place on success,
  so a crash never leaves a half-written file and never destroys the previous output.
"""

from __future__ import annotations

import bz2
import contextlib
import glob
import gzip
import hashlib
import io
import lzma
import os
import queue
import shutil
import sys
import tempfile
import threading
import zlib
from collections import Counter
from dataclasses import dataclass, field
from typing import BinaryIO, Callable, Iterable, Iterator, Sequence, TypeVar

import numpy as np

from .errors import InputError, KcoocError, LockedError

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
    yield from _file_blocks(path, chunk_bytes, observe, _after_last_newline)


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


def _after_last_newline(block: bytes) -> int:
    return block.rfind(b"\n") + 1


def _file_blocks(path: str, chunk_bytes: int, observe: Callable[[bytes], None] | None,
                 cut: Callable[[bytes], int]) -> Iterator[tuple[int, bytes]]:
    if chunk_bytes < 1:
        raise InputError(f"chunk size must be >= 1 byte, got {chunk_bytes}")
    stream = open_input(path)
    try:
        yield from _byte_blocks(stream, path, chunk_bytes, observe, cut)
    finally:
        if stream is not sys.stdin.buffer:
            stream.close()


def _byte_blocks(stream: BinaryIO, path: str, chunk_bytes: int, observe: Callable[[bytes], None] | None,
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


REASON_NAMES = {"bad_utf8": "bad UTF-8", "wrong_field_count": "wrong field count", "line_too_long": "line too long"}


def describe_rejection(stats: ReadStats, header: bool = False) -> str:
    """Why a reader produced no row: "empty input", or "all 6,000 lines skipped: bad UTF-8 (6,000)"."""
    data_lines = stats.lines - (1 if header else 0)
    if data_lines <= 0:
        return "empty input (no data lines" + (" after the header)" if header else ")")
    reasons = ", ".join(f"{REASON_NAMES.get(reason, reason)} ({count:,})" for reason, count in stats.skipped.most_common())
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
        for _, data in _byte_blocks(self._stream, self.path, self.chunk_bytes, None, _after_last_newline,
                                    self._lineno + 1):
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
            self._malformed(lineno, "bad_utf8", f"invalid UTF-8 at byte {exc.start}")
            return None
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
        self.sha256.update(data)
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
                self._malformed(lineno, "wrong_field_count", f"expected {self._n_fields} tab-separated fields, found {what}")
                continue
            lines.append(text)
            rows.append(row)
            linenos.append(lineno)
        return lines, [[row[i] for row in rows] for i in self.indices], np.array(linenos, dtype=np.int64)

    def _read_header_and_resolve(self) -> list[int]:
        if self.header:
            raw = self._stream.readline()
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


@contextlib.contextmanager
def exclusive_lock(path: str) -> Iterator[str]:
    """Hold an advisory lock on ``path + '.lock'`` for the block, or raise :class:`LockedError`.

    The kernel releases the lock when the process ends, even on SIGKILL, so a crashed run never
    blocks the next one. The lock file holds the owner's pid; it is removed when the block ends
    (a killed run's file is reused by the next run). A lock taken on a file that another run has
    just removed is retaken on the new file, so two runs never both hold "the" lock.
    """
    try:
        import fcntl  # POSIX only: everything else in kcooc runs where there is none
    except ImportError:
        raise KcoocError(f"{path}: locking the output needs fcntl, which this platform lacks (POSIX only)") from None
    lock_path = os.path.realpath(path) + ".lock"
    check_output_directory(lock_path)
    while True:
        lock = open(lock_path, "a+", encoding="utf-8")
        try:
            fcntl.flock(lock.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            lock.seek(0)
            owner = lock.read().strip() or "unknown"
            lock.close()
            raise LockedError(f"{path}: another run (pid {owner}) is writing this output; "
                              f"it holds {lock_path}") from None
        with contextlib.suppress(FileNotFoundError):
            if os.stat(lock_path).st_ino == os.fstat(lock.fileno()).st_ino:
                break
        lock.close()  # the holder removed the file between our open and flock: lock the new one
    with lock:
        lock.seek(0)
        lock.truncate()
        lock.write(f"{os.getpid()}\n")
        lock.flush()
        try:
            yield lock_path
        finally:
            with contextlib.suppress(FileNotFoundError):
                os.unlink(lock_path)
            fcntl.flock(lock.fileno(), fcntl.LOCK_UN)


def remove_stale_temporaries(path: str) -> None:
    """Delete temporary files that killed runs left beside ``path`` (call only while holding its lock)."""
    directory, name = os.path.split(os.path.realpath(path))
    for entry in os.listdir(directory):
        if entry.startswith(f".{name}.") and entry.endswith(".tmp"):
            with contextlib.suppress(FileNotFoundError):
                os.unlink(os.path.join(directory, entry))


@contextlib.contextmanager
def run_directory(parent: str | None, output: str, command: str) -> Iterator[str]:
    """A fresh hidden directory for a run's scratch files (spools, per-line arrays), removed at the end.

    It is named after ``command`` and the output; directories that killed runs on the same output
    left in ``parent`` are removed first (the caller holds the output's lock). ``parent`` None:
    the system temporary directory (no stale-directory cleanup: there is no lock to rely on).
    """
    prefix = f".kcooc-{command}-{os.path.basename(output) if output != '-' else 'stdout'}-"
    if parent is not None and output != "-":
        for stale in glob.glob(os.path.join(glob.escape(parent), prefix + "*")):
            shutil.rmtree(stale, ignore_errors=True)
    path = tempfile.mkdtemp(prefix=prefix, dir=parent)
    try:
        yield path
    finally:
        shutil.rmtree(path, ignore_errors=True)


def beside(output: str) -> str | None:
    """The directory of ``output`` (its symlink target's), or None for stdout."""
    return None if output == "-" else os.path.dirname(os.path.realpath(output))


def rereadable_input(path: str, directory: str) -> str:
    """A path that can be read more than once: stdin (``-``) is first copied into ``directory``."""
    if path != "-":
        return path
    copy_path = os.path.join(directory, "stdin")
    with open(copy_path, "wb") as copy:
        shutil.copyfileobj(sys.stdin.buffer, copy, 1 << 20)
    return copy_path


def check_output_directory(path: str) -> None:
    """Fail before any work if ``path``'s directory does not exist."""
    directory = os.path.dirname(os.path.abspath(path))
    if path != "-" and not os.path.isdir(directory):
        raise InputError(f"{path}: output directory {directory} does not exist")


def check_output_path(path: str, inputs: Iterable[str | None] = ()) -> None:
    """Fail before any work if ``path`` cannot become a file or would replace one of ``inputs``.

    Refused: an existing directory, a missing directory, and a path that resolves (through
    symlinks or as a hard link) to an input, or lies inside an input directory.
    """
    if path == "-" or (os.path.exists(path) and not os.path.isfile(path) and not os.path.isdir(path)):
        return  # stdout, /dev/stdout, a FIFO: written in place
    real = os.path.realpath(path)
    if os.path.isdir(real):
        raise InputError(f"{path}: is a directory; the output must be a file path")
    check_output_directory(real)
    for source in inputs:
        if source and source != "-" and _replaces(real, source):
            raise InputError(f"{path}: would overwrite the input {source}; write the output elsewhere")


def _replaces(real_output: str, source: str) -> bool:
    real_source = os.path.realpath(source)
    if real_output == real_source or real_output.startswith(real_source.rstrip(os.sep) + os.sep):
        return True
    with contextlib.suppress(OSError):
        return os.path.samefile(real_output, real_source)
    return False


def check_directory(path: str | None, option: str, may_be_new: bool = False) -> None:
    """Fail before any work unless ``path`` (a work/cache/spool directory) is a directory.

    With ``may_be_new`` a missing directory whose parent exists is accepted (the command makes it).
    """
    if path is None or os.path.isdir(path):
        return
    if os.path.exists(path):
        raise InputError(f"{option} {path}: not a directory")
    if not may_be_new or not os.path.isdir(os.path.dirname(os.path.abspath(path))):
        raise InputError(f"{option} {path}: no such directory")


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
    if os.path.exists(path) and not os.path.isfile(path):  # /dev/stdout, a FIFO: cannot be replaced
        with open(path, "wb" if binary else "w", encoding=None if binary else "utf-8") as stream:
            yield stream
        return
    path = os.path.realpath(path)  # write beside a symlink's target, never over the link
    check_output_directory(path)
    directory = os.path.dirname(path)
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


T = TypeVar("T")


class _Failure:
    def __init__(self, exc: BaseException):
        self.exc = exc


def prefetch(items: Iterable[T], depth: int = 2) -> Iterator[T]:
    """Produce ``items`` in a background thread, at most ``depth`` ahead, in their order.

    Reading, decoding and encoding the next block overlap the maths on the current one where
    either side releases the GIL (BLAS, numba, most numpy). An error in the producer is raised
    in the consumer.
    """
    handoff: queue.Queue = queue.Queue(maxsize=depth)
    done = object()

    def produce() -> None:
        try:
            for item in items:
                handoff.put(item)
            handoff.put(done)
        except BaseException as exc:  # noqa: BLE001 - re-raised in the consuming thread
            handoff.put(_Failure(exc))

    threading.Thread(target=produce, daemon=True).start()
    while True:
        item = handoff.get()
        if item is done:
            return
        if isinstance(item, _Failure):
            raise item.exc
        yield item
