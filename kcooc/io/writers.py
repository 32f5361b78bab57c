"""Writing one output atomically: :func:`atomic_output` writes to a temporary file beside the output
(``.NAME.kcooc-<pid>-<random>.tmp``) and renames it into place when its block succeeds, or hands it to
the run's guard (outputs.py), which renames every output at once when the whole run succeeded. ``-``
is stdout; a ``.gz``/``.bz2``/``.xz``/``.zst`` suffix compresses (``.zst``: the ``zstd`` extra, at
:data:`ZSTD_LEVEL`; gzip with a zero timestamp: reruns are byte-identical).
"""

from __future__ import annotations

import bz2
import contextlib
import gzip
import io
import lzma
import os
import sys
import tempfile
from typing import BinaryIO, Iterator

from ..errors import InputError
from ..extras import import_optional

ZSTD_LEVEL = 3  # zstd's own default: about gzip -6's ratio at several times its speed

ACTIVE_GUARDS: list = []  # the output guards (outputs.OutputGuard) whose block is running; they commit at its end


@contextlib.contextmanager
def atomic_output(path: str, binary: bool = False) -> Iterator[io.IOBase]:
    """Yield a writable file that appears at ``path`` only if the block finishes without error.

    Inside a run's guard (``with guard:``) an output of that guard appears only when the whole run
    succeeds (the guard commits every output at once); any other path (a cache entry) when its block
    ends. ``-`` writes to stdout. A ``.gz``/``.bz2``/``.xz``/``.zst`` suffix compresses (gzip with a zero
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
    check_directory_of(path)
    directory = os.path.dirname(path)
    fd, tmp = tempfile.mkstemp(dir=directory, prefix=f".{os.path.basename(path)}.kcooc-{os.getpid()}-", suffix=".tmp")
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
        guard = next((g for g in reversed(ACTIVE_GUARDS) if g.owns(path)), None)
        if guard is not None:
            guard.add(tmp, path)
        else:
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


def check_directory_of(path: str) -> None:
    """Fail before any work if ``path``'s directory does not exist."""
    directory = os.path.dirname(os.path.abspath(path))
    if path != "-" and not os.path.isdir(directory):
        raise InputError(f"{path}: output directory {directory} does not exist")
