"""Writing outputs: one guard per run (:func:`check_outputs` -> :class:`OutputGuard`) checks its outputs
before any work, holds the output lock for the run and makes its scratch directory; :func:`atomic_output`
writes each output to a temporary file beside it and commits it (renames it into place) on success, so
a crash never leaves a half-written file and never destroys the previous output. ``-`` is stdout; a
``.gz``/``.bz2``/``.xz``/``.zst`` suffix compresses (``.zst``: the ``zstd`` extra).
"""

from __future__ import annotations

import bz2
import contextlib
import glob
import gzip
import io
import lzma
import os
import shutil
import sys
import tempfile
from typing import BinaryIO, Iterable, Iterator

from ..errors import InputError, KcoocError, LockedError
from ..extras import import_optional

ZSTD_LEVEL = 3  # zstd's own default: about gzip -6's ratio at several times its speed


def check_outputs(*outputs: str | None, inputs: Iterable[str | None] = ()) -> OutputGuard:
    """Fail before any work if an output cannot be written or would replace an input; the outputs' guard."""
    return OutputGuard(*outputs, inputs=inputs)


class OutputGuard:
    """The files one run writes, guarded from the first check to the last rename.

    Made before any work, it checks every output (``-``, stdout, and None, not written, pass): a file
    path in an existing directory, not a directory, not given twice, and never an input, not even
    through a symlink or a hard link, nor a path inside an input directory. ``with guard.locked():``
    holds the first output's lock for the run (a second run on it raises :class:`LockedError`, exit
    code 75; the kernel drops the lock when a run dies) and removes what killed runs left beside
    every output; ``guard.scratch(command)`` is the run's scratch directory. Each output is written
    with :func:`atomic_output`: to a temporary file beside it, committed (renamed into place) only
    when its block ends without error.
    """

    def __init__(self, *outputs: str | None, inputs: Iterable[str | None] = ()):
        self.first, self.paths = outputs[0], [path for path in outputs if path and path != "-"]
        inputs = list(inputs)
        for path in self.paths:
            _check_output(path, inputs)
            check_writable_format(path)
        real = [os.path.realpath(path) for path in self.paths]
        for i, path in enumerate(real):
            if path in real[:i]:
                raise InputError(f"{self.paths[i]}: given for two outputs; every output needs its own file")

    @contextlib.contextmanager
    def locked(self) -> Iterator[None]:
        """Hold the first output's lock for the block and delete what killed runs left beside every
        output (only the lock holder may, so a running run's files are never touched)."""
        first = self.first
        if first == "-" or (os.path.exists(first) and not os.path.isfile(first)):  # stdout, /dev/stdout, a FIFO
            yield
            return
        with _exclusive_lock(first):
            for path in self.paths:
                _remove_stale_temporaries(path)
            yield

    def scratch(self, command: str, parent: str | None = None) -> contextlib.AbstractContextManager[str]:
        """A fresh hidden directory for the run's scratch files in ``parent`` (default: beside the first
        output), removed at the end (see :func:`_run_directory`); call it while holding the lock."""
        return _run_directory(parent or _beside(self.first), self.first, command)


@contextlib.contextmanager
def atomic_output(path: str, binary: bool = False) -> Iterator[io.IOBase]:
    """Yield a writable file that appears at ``path`` only if the block finishes without error.

    ``-`` writes to stdout. A ``.gz``/``.bz2``/``.xz``/``.zst`` suffix compresses (gzip with a zero
    timestamp, zstd single-threaded at level 3: reruns are byte-identical). The final file gets the usual
    umask permissions.
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
    _check_directory_of(path)
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
    if path.endswith(".zst"):
        zstandard = import_optional("zstandard", f"to write {path} (zstd)")
        return zstandard.ZstdCompressor(level=ZSTD_LEVEL).stream_writer(raw, closefd=False)
    return None


def check_writable_format(path: str | None) -> None:
    """Fail before any work if ``path``'s compression needs an extra that is not installed (``.zst``)."""
    if path and path != "-" and path.endswith(".zst"):
        import_optional("zstandard", f"to write {path} (zstd)")


@contextlib.contextmanager
def _exclusive_lock(path: str) -> Iterator[str]:
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
    _check_directory_of(lock_path)
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


def _remove_stale_temporaries(path: str) -> None:
    """Delete temporary files that killed runs left beside ``path`` (call only while holding its lock)."""
    directory, name = os.path.split(os.path.realpath(path))
    for entry in os.listdir(directory):
        if entry.startswith(f".{name}.") and entry.endswith(".tmp"):
            with contextlib.suppress(FileNotFoundError):
                os.unlink(os.path.join(directory, entry))


@contextlib.contextmanager
def _run_directory(parent: str | None, output: str, command: str) -> Iterator[str]:
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


def _beside(output: str) -> str | None:
    """The directory of ``output`` (its symlink target's), or None for stdout."""
    return None if output == "-" else os.path.dirname(os.path.realpath(output))


def _check_directory_of(path: str) -> None:
    """Fail before any work if ``path``'s directory does not exist."""
    directory = os.path.dirname(os.path.abspath(path))
    if path != "-" and not os.path.isdir(directory):
        raise InputError(f"{path}: output directory {directory} does not exist")


def _check_output(path: str, inputs: Iterable[str | None] = ()) -> None:
    """Fail before any work if ``path`` cannot become a file or would replace one of ``inputs``.

    Refused: an existing directory, a missing directory, and a path that resolves (through
    symlinks or as a hard link) to an input, or lies inside an input directory.
    """
    if path == "-" or (os.path.exists(path) and not os.path.isfile(path) and not os.path.isdir(path)):
        return  # stdout, /dev/stdout, a FIFO: written in place
    real = os.path.realpath(path)
    if os.path.isdir(real):
        raise InputError(f"{path}: is a directory; the output must be a file path")
    _check_directory_of(real)
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
