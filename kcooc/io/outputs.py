"""The output guard: one per run (:func:`check_outputs` -> :class:`OutputGuard`) checks its outputs
and directories before any work, holds the output lock for the run, makes its scratch directory and
commits the outputs: :func:`~kcooc.io.writers.atomic_output` (writers.py) writes each output to a
temporary file beside it, and the guard renames them all into place only when the whole run succeeded,
so a failed, interrupted or killed run never leaves a half-written or a new file and never destroys the
previous outputs.

Every temporary a run makes carries its pid in its name (``.NAME.kcooc-<pid>-<random>.tmp`` beside an
output, ``.kcooc-<command>-<output>-<pid>-<random>/`` for scratch directories), so that the next run
removes what a killed run left (:func:`remove_dead_temporaries`).
"""

from __future__ import annotations

import contextlib
import errno
import glob
import os
import re
import shutil
import tempfile
from typing import Iterable, Iterator, Sequence

from ..errors import InputError, KcoocError, LockedError, raise_if_signalled
from .writers import ACTIVE_GUARDS, check_directory_of, check_writable_format


def check_outputs(*outputs: str | None, inputs: Iterable[str | None] = (),
                  directories: Sequence[tuple[str, str | None, bool]] = (), lock_required: bool = False
                  ) -> OutputGuard:
    """Fail before any work if an output cannot be written or would replace an input; the outputs' guard.

    ``directories``: (option, path, may be new) of the run's work or cache directories, checked too;
    ``lock_required``: the command promises its lock (cron's commands), so where there is no fcntl it
    stops instead of running unlocked.
    """
    return OutputGuard(*outputs, inputs=inputs, directories=directories, lock_required=lock_required)


class OutputGuard:
    """The files one run writes, guarded from the first check to the last rename.

    Made before any work, it checks every output (None, not written, passes): a file path in an
    existing, writable directory, not a directory, not given twice (``-``, stdout, at most once),
    and never an input, not even through a symlink or a hard link, nor a path inside an input
    directory; and the run's work or cache ``directories``: directories (or, where they may be new,
    in one), writable, and not the path of an output.

    ``with guard:`` (or ``guard.locked()``) is the run: it holds the first output's lock (a second
    run on it raises :class:`LockedError`, exit code 75; the kernel drops the lock when a run dies;
    a lock path that is a symlink is refused) and removes what killed runs left beside every
    output. Where there is no fcntl (Windows) a run holds no lock and leaves killed runs' files alone,
    unless ``lock_required``, which makes it stop with one line. Each output written with
    :func:`~kcooc.io.writers.atomic_output` inside the block goes to a temporary file; the guard
    renames them all into place when the block ends without error (one commit
    step), and removes them otherwise: a failed run leaves no new file. ``guard.scratch(command)``
    is the run's scratch directory.
    """

    def __init__(self, *outputs: str | None, inputs: Iterable[str | None] = (),
                 directories: Sequence[tuple[str, str | None, bool]] = (), lock_required: bool = False):
        self.first, self.paths = outputs[0], [path for path in outputs if path and path != "-"]
        self.lock_required = lock_required
        if sum(path == "-" for path in outputs) > 1:
            raise InputError("two outputs on stdout (-): give every output but one a file path")
        inputs = list(inputs)
        for path in self.paths:
            _check_output(path, inputs)
            check_writable_format(path)
        real = [os.path.realpath(path) for path in self.paths]
        for i, path in enumerate(real):
            if path in real[:i]:
                raise InputError(f"{self.paths[i]}: given for two outputs; every output needs its own file")
        for option, directory, may_be_new in directories:
            if directory is None:
                continue
            check_directory(directory, option, may_be_new)
            if os.path.realpath(directory) in real:
                raise InputError(f"{option} {directory}: is also an output file; give the directory its own path")
        self.real = real
        self._pending: list[tuple[str, str]] = []

    def __enter__(self) -> "OutputGuard":
        self._run = self.locked()
        self._run.__enter__()
        return self

    def __exit__(self, *exc) -> bool | None:
        return self._run.__exit__(*exc)

    @contextlib.contextmanager
    def locked(self) -> Iterator["OutputGuard"]:
        """The run: hold the first output's lock, delete what killed runs left beside every output
        (only the lock holder may, so a running run's files are never touched), and commit every
        output written in the block when it ends without error."""
        first = self.first
        with contextlib.ExitStack() as stack:
            lockable = first and first != "-" and (not os.path.exists(first) or os.path.isfile(first))
            if lockable and (self.lock_required or _can_lock()):  # not stdout, /dev/stdout or a FIFO
                stack.enter_context(_exclusive_lock(first))
                for path in self.paths:
                    _remove_stale_temporaries(path)
            ACTIVE_GUARDS.append(self)
            try:
                yield self
                self.commit()
            except BaseException:  # also a temporary a signal caught between its creation and its cleanup
                for path in self.real:
                    directory, name = os.path.split(path)
                    for tmp in glob.glob(os.path.join(glob.escape(directory), f".{glob.escape(name)}.kcooc-"
                                                      f"{os.getpid()}-*.tmp")):
                        with contextlib.suppress(FileNotFoundError):
                            os.unlink(tmp)
                raise
            finally:
                ACTIVE_GUARDS.remove(self)
                for tmp, _ in self._pending:
                    with contextlib.suppress(FileNotFoundError):
                        os.unlink(tmp)
                self._pending.clear()

    def owns(self, real_path: str) -> bool:
        return real_path in self.real

    def add(self, tmp: str, real_path: str) -> None:
        """A finished temporary of the output ``real_path``, renamed into place by :meth:`commit`."""
        for earlier in [t for t, p in self._pending if p == real_path]:  # written twice: the last one counts
            os.unlink(earlier)
        self._pending = [(t, p) for t, p in self._pending if p != real_path] + [(tmp, real_path)]

    def commit(self) -> None:
        """Rename every finished temporary into place (the run succeeded), unless a signal stopped the run
        and a library swallowed its exception: raise it again, so the temporaries go and the previous
        outputs stay (see :func:`~kcooc.errors.raise_if_signalled`)."""
        raise_if_signalled()
        while self._pending:
            tmp, path = self._pending[0]
            os.replace(tmp, path)
            self._pending.pop(0)

    def scratch(self, command: str, parent: str | None = None) -> contextlib.AbstractContextManager[str]:
        """A fresh hidden directory for the run's scratch files in ``parent`` (default: beside the first
        output, or the system's temporary directory for stdout), removed at the end (see
        :func:`_run_directory`); call it while holding the lock."""
        return _run_directory(parent or _beside(self.first), self.first or "-", command)



def _can_lock() -> bool:
    """Whether this platform has fcntl (POSIX)."""
    try:
        import fcntl
    except ImportError:
        return False
    return fcntl is not None


@contextlib.contextmanager
def _exclusive_lock(path: str) -> Iterator[str]:
    """Hold an advisory lock on ``path + '.lock'`` for the block, or raise :class:`LockedError`.

    The kernel releases the lock when the process ends, even on SIGKILL, so a crashed run never
    blocks the next one. The lock file holds the owner's pid; it is removed when the block ends
    (a killed run's file is reused by the next run). A lock taken on a file that another run has
    just removed is retaken on the new file, so two runs never both hold "the" lock. The lock file
    is opened without following symlinks: a lock path that is a link (to an input, to any file) is
    refused, and nothing it points to is read, truncated or written.
    """
    try:
        import fcntl  # POSIX only: everything else in kcooc runs where there is none
    except ImportError:
        raise KcoocError(f"{path}: locking the output needs fcntl, which this platform lacks (POSIX only)") from None
    lock_path = os.path.realpath(path) + ".lock"
    check_directory_of(lock_path)
    while True:
        try:
            fd = os.open(lock_path, os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC, 0o644)
        except OSError as exc:
            if exc.errno == errno.ELOOP or os.path.islink(lock_path):
                raise InputError(f"{lock_path}: the output's lock file is a symbolic link; remove it "
                                 "(kcooc never writes through a link)") from None
            raise InputError(f"{lock_path}: cannot open the output's lock file: {exc.strerror}") from None
        if not _is_regular(fd):
            os.close(fd)
            raise InputError(f"{lock_path}: the output's lock file is not a regular file; remove it")
        lock = os.fdopen(fd, "r+", encoding="utf-8")
        try:
            fcntl.flock(lock.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            lock.seek(0)
            owner = lock.read(32).strip() or "unknown"
            lock.close()
            raise LockedError(f"{path}: another run (pid {owner}) is writing this output; "
                              f"it holds {lock_path}") from None
        with contextlib.suppress(FileNotFoundError):
            if os.stat(lock_path, follow_symlinks=False).st_ino == os.fstat(lock.fileno()).st_ino:
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


def _is_regular(fd: int) -> bool:
    import stat

    return stat.S_ISREG(os.fstat(fd).st_mode)


_PID_IN_NAME = re.compile(r"^\.(?:.+\.kcooc-(\d+)-[a-z0-9_]+\.tmp|kcooc-.+-(\d+)-[a-z0-9_]+)$")


def pid_of(name: str) -> int | None:
    """The pid in the name of a temporary a run made (``.NAME.kcooc-<pid>-<random>.tmp`` or a scratch
    directory ``.kcooc-...-<pid>-<random>``), or None for any other name."""
    match = _PID_IN_NAME.match(name)
    return int(match.group(1) or match.group(2)) if match else None


def _dead(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return True
    except OSError:  # alive, another user's
        return False
    return False


def remove_dead_temporaries(directory: str, recursive: bool = False) -> list[str]:
    """Delete the temporary files and scratch directories in ``directory`` (and its subdirectories
    with ``recursive``) whose run (the pid in their name) is no longer running; the removed paths."""
    removed = []
    for parent, dirs, files in os.walk(directory) if recursive else [(directory, *_entries(directory))]:
        for name in files + dirs:
            pid = pid_of(name)
            if pid is not None and pid != os.getpid() and _dead(pid):
                path = os.path.join(parent, name)
                if os.path.isdir(path) and not os.path.islink(path):
                    shutil.rmtree(path, ignore_errors=True)
                    dirs.remove(name) if name in dirs else None
                else:
                    with contextlib.suppress(FileNotFoundError):
                        os.unlink(path)
                removed.append(path)
    return removed


def _entries(directory: str) -> tuple[list[str], list[str]]:
    """(subdirectories, files) of ``directory``, as os.walk lists them (nothing if it is unreadable)."""
    dirs, files = [], []
    with contextlib.suppress(OSError):
        for entry in os.scandir(directory):
            (dirs if entry.is_dir(follow_symlinks=False) else files).append(entry.name)
    return dirs, files


def _remove_stale_temporaries(path: str) -> None:
    """Delete temporary files that killed runs left beside ``path`` (call only while holding its lock)."""
    directory, name = os.path.split(os.path.realpath(path))
    for entry in os.listdir(directory):
        if entry.startswith(f".{name}.") and entry.endswith(".tmp"):
            with contextlib.suppress(FileNotFoundError):
                os.unlink(os.path.join(directory, entry))
    remove_dead_temporaries(directory)


@contextlib.contextmanager
def _run_directory(parent: str | None, output: str, command: str) -> Iterator[str]:
    """A fresh hidden directory for a run's scratch files (spools, per-line arrays), removed at the end.

    It is named after ``command``, the output and this process's pid. Directories that killed runs
    on the same output left in ``parent`` are removed first (the caller holds the output's lock), and
    so are those of any kcooc run that is no longer running. ``parent`` None: the system's temporary
    directory.
    """
    parent = parent or tempfile.gettempdir()
    prefix = f".kcooc-{command}-{os.path.basename(output) if output != '-' else 'stdout'}-"
    if output != "-":
        for stale in glob.glob(os.path.join(glob.escape(parent), prefix + "*")):
            shutil.rmtree(stale, ignore_errors=True)
    remove_dead_temporaries(parent)
    path = tempfile.mkdtemp(prefix=f"{prefix}{os.getpid()}-", dir=parent)
    try:
        yield path
    finally:
        shutil.rmtree(path, ignore_errors=True)


def _beside(output: str | None) -> str | None:
    """The directory of ``output`` (its symlink target's), or None for stdout or a special file (``/dev/stdout``
    on a pipe, a FIFO: written in place, as writers.atomic_output does, and its directory may not be one)."""
    if not output or output == "-" or (os.path.exists(output) and not os.path.isfile(output)):
        return None
    return os.path.dirname(os.path.realpath(output))



def _check_writable(directory: str, what: str) -> None:
    """Fail before any work unless a file can be made in ``directory`` (tried: permissions, a
    read-only file system, root's exemptions are all the kernel's to say)."""
    try:
        fd, probe = tempfile.mkstemp(dir=directory, prefix=f".kcooc-probe-{os.getpid()}-")
    except OSError as exc:
        raise InputError(f"{what}: cannot write in {directory}: {exc.strerror or exc}") from None
    os.close(fd)
    os.unlink(probe)


def check_directory(path: str | None, option: str, may_be_new: bool = False) -> None:
    """Fail before any work unless ``path`` (a work/cache/spool directory) is a writable directory.

    With ``may_be_new`` a missing directory whose parent exists (and is writable) is accepted (the
    command makes it).
    """
    if path is None:
        return
    if os.path.isdir(path):
        _check_writable(path, f"{option} {path}")
        return
    if os.path.exists(path):
        raise InputError(f"{option} {path}: not a directory")
    parent = os.path.dirname(os.path.abspath(path))
    if not may_be_new or not os.path.isdir(parent):
        raise InputError(f"{option} {path}: no such directory")
    _check_writable(parent, f"{option} {path}")


def _check_output(path: str, inputs: Iterable[str | None] = ()) -> None:
    """Fail before any work if ``path`` cannot become a file or would replace one of ``inputs``.

    Refused: an existing directory, a missing or unwritable directory, and a path that resolves
    (through symlinks or as a hard link) to an input, or lies inside an input directory.
    """
    if path == "-" or (os.path.exists(path) and not os.path.isfile(path) and not os.path.isdir(path)):
        return  # stdout, /dev/stdout, a FIFO: written in place
    real = os.path.realpath(path)
    if os.path.isdir(real):
        raise InputError(f"{path}: is a directory; the output must be a file path")
    check_directory_of(real)
    for source in inputs:
        if source and source != "-" and _replaces(real, source):
            raise InputError(f"{path}: would overwrite the input {source}; write the output elsewhere")
    _check_writable(os.path.dirname(real), path)


def _replaces(real_output: str, source: str) -> bool:
    real_source = os.path.realpath(source)
    if real_output == real_source or real_output.startswith(real_source.rstrip(os.sep) + os.sep):
        return True
    with contextlib.suppress(OSError):
        return os.path.samefile(real_output, real_source)
    return False
