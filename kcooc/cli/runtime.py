"""What every command run shares: one-line errors and exit codes, logging, progress bars, the config
it runs with, checks of its directory options, the JSON summary. A library error about a parameter or
config key (``KcoocError.key``) is printed led by the command's option for it (``--header: ...``).
"""

from __future__ import annotations

import contextlib
import functools
import json
import logging
import os
import signal
import sys
import threading
import traceback
from typing import Any, Callable, Iterator, NoReturn

import click
from tqdm import tqdm

from .. import config as config_module
from ..errors import Caught, InputError, KcoocError, caught_signal, raise_if_signalled, signal_exit
from ..io.outputs import check_directory as check_directory  # the commands import it from here
from ..io.writers import atomic_output
from .options import option_of


def command_name(ctx: click.Context | None = None) -> str:
    """``kcooc phsic train`` for the running (sub)command, whatever the program was called."""
    ctx = ctx or click.get_current_context(silent=True)
    names = []
    while ctx is not None and ctx.parent is not None:
        names.append(ctx.info_name)
        ctx = ctx.parent
    return " ".join(["kcooc", *reversed(names)])


def fail(message: str, exit_code: int, ctx: click.Context | None = None) -> NoReturn:
    """Print ``kcooc CMD: error: message`` as one line on stderr (and in the --log-file) and exit."""
    message = " ".join(message.split("\n")).strip()
    if LOG.handlers:  # a command is running: its handlers add the prefix
        LOG.error(message)
    else:
        click.echo(f"{command_name(ctx)}: error: {message}", err=True)
    sys.exit(exit_code)


def with_option(exc: KcoocError) -> str:
    """``exc``'s message, led by the running command's option for its key where the command has one (a
    config value's bare ``problem`` then, as the option, not the key, was given)."""
    ctx = click.get_current_context(silent=True)
    option = option_of(exc.key, ctx.command) if ctx is not None else None
    return f"{option}: {getattr(exc, 'problem', exc)}" if option else str(exc)


def guarded(command: Callable) -> Callable:
    """Turn kcooc errors into one-line messages and exit codes (2: bad input/usage, 1: runtime; SIGINT
    130, SIGTERM 143, after the run's cleanup: see :func:`signals_unwind`)."""

    @functools.wraps(command)
    def wrapper(*args, **kwargs):
        caught = None
        try:
            with signals_unwind() as caught:
                result = command(*args, **kwargs)
                raise_if_signalled()  # the run went on after the signal: a library swallowed its exception
                return result
        except KcoocError as exc:
            fail(with_option(exc), exc.exit_code)
        except BrokenPipeError:  # e.g. `kcooc phsic score ... | head`
            os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
            sys.exit(0)
        except KeyboardInterrupt as exc:  # the run has unwound: its temporaries, lock and workers are gone
            interrupted(exc)
        except (click.exceptions.Exit, click.ClickException, SystemExit):
            raise
        except Exception as exc:  # noqa: BLE001 - the contract is "never a traceback" (unless asked: -v)
            signalled = interrupt_behind(exc) or (caught.exception() if caught is not None else None)
            if signalled is not None:  # a library wrapped it (pybind11: ImportError "initialization failed")
                interrupted(signalled)
            if os.environ.get("KCOOC_DEBUG"):
                traceback.print_exc()
            else:
                LOG.debug("traceback of the failure below", exc_info=True)
            fail(f"{type(exc).__name__}: {exc} (-v or KCOOC_DEBUG=1 for a traceback)", 1)

    return wrapper


EXIT_AT_ONCE = {"enabled": False}  # set by the real entry point (kcooc, python -m kcooc), never in-process


def interrupted(exc: KeyboardInterrupt) -> NoReturn:
    """Exit 143 after SIGTERM (:class:`~kcooc.errors.Terminated`), 130 after SIGINT, once the run has unwound."""
    message, code = signal_exit(exc)
    if EXIT_AT_ONCE["enabled"]:  # a reading thread may hold stdin's lock: no interpreter shutdown
        with contextlib.suppress(SystemExit):
            fail(message, code)
        logging.shutdown()
        for stream in (sys.stdout, sys.stderr):
            with contextlib.suppress(Exception):
                stream.flush()
        os._exit(code)
    fail(message, code)


def interrupt_behind(exc: BaseException) -> KeyboardInterrupt | None:
    """The signal's exception (signals_unwind) that ``exc`` was raised from or while handling, if any: a
    signal that lands while a compiled module initialises comes back as that module's ImportError."""
    seen = set()
    while exc is not None and id(exc) not in seen:
        if isinstance(exc, KeyboardInterrupt):
            return exc
        seen.add(id(exc))
        exc = exc.__cause__ or exc.__context__
    return None


@contextlib.contextmanager
def signals_unwind() -> Iterator[Caught]:
    """SIGTERM and SIGINT raise in the main thread (:class:`~kcooc.errors.Terminated`, KeyboardInterrupt) for the
    block, so that the run unwinds: its temporaries, scratch directories and lock are removed, its
    worker processes stopped, its previous outputs left as they were. A second signal during that
    cleanup ends the process at once (the next run removes what is left). Yields the block's
    :class:`~kcooc.errors.Caught` (see :func:`~kcooc.errors.raise_if_signalled`)."""
    if threading.current_thread() is not threading.main_thread():
        yield Caught()
        return
    with caught_signal() as caught:
        def unwind(signum, frame):
            signal.signal(signal.SIGTERM, signal.SIG_DFL)
            signal.signal(signal.SIGINT, signal.SIG_DFL)
            caught.signum = signum
            raise caught.exception()

        saved = {signum: signal.getsignal(signum) for signum in (signal.SIGTERM, signal.SIGINT)}
        for signum in saved:
            signal.signal(signum, unwind)
        try:
            yield caught
        finally:
            for signum, handler in saved.items():
                signal.signal(signum, handler if handler is not None else signal.SIG_DFL)


LOG = logging.getLogger("kcooc")


class _Stderr(logging.Handler):
    """Messages on stderr without breaking a running progress bar; warnings and errors carry the
    ``kcooc CMD: error:`` prefix."""

    def __init__(self, name: str, level: int):
        super().__init__(level)
        self.name_ = name

    def emit(self, record: logging.LogRecord) -> None:
        try:
            message = self.format(record)
            if record.levelno >= logging.WARNING:
                message = f"{self.name_}: {record.levelname.lower()}: {message}"
            tqdm.write(message, file=sys.stderr)
        except Exception:  # noqa: BLE001 - logging's own policy
            self.handleError(record)


@contextlib.contextmanager
def logging_to(name: str, quiet: bool, verbose: bool, log_file: str | None) -> Iterator[None]:
    """The ``kcooc`` logger for one run: stderr at INFO (-q: warnings and errors only, -v: DEBUG), and the
    --log-file (appended) at INFO or DEBUG whatever -q says."""
    handlers = [_Stderr(name, logging.WARNING if quiet else logging.DEBUG if verbose else logging.INFO)]
    if log_file:
        clash = _log_file_clash(log_file)
        if clash:
            fail(f"--log-file {log_file}: is also the command's {clash}; the log appends, "
                 "so it must be another file", 2)
        try:
            handlers.append(logging.FileHandler(log_file, encoding="utf-8"))
        except OSError as exc:
            fail(f"--log-file {log_file}: {exc.strerror}", 2)
        handlers[-1].setLevel(logging.DEBUG if verbose else logging.INFO)
        handlers[-1].setFormatter(logging.Formatter(f"%(asctime)s {name}[{os.getpid()}] %(levelname)s: %(message)s"))
    saved = LOG.handlers[:], LOG.level, LOG.propagate
    LOG.handlers[:], LOG.propagate = handlers, False
    LOG.setLevel(logging.DEBUG)
    try:
        yield
    finally:
        for handler in handlers:
            handler.close()
        LOG.handlers[:], LOG.level, LOG.propagate = saved


def _log_file_clash(log_file: str) -> str | None:
    """The option whose file ``log_file`` is (an input, the output, a model: appending would corrupt it), if any."""
    ctx = click.get_current_context(silent=True)
    real_log = os.path.realpath(log_file)
    for param in ctx.command.params if ctx else ():
        values = ctx.params.get(param.name)
        for value in values if isinstance(values, (list, tuple)) else [values]:
            if param.name == "log_file" or not isinstance(value, str) or value == "-":
                continue
            real = os.path.realpath(value)
            same = real == real_log
            if not same and os.path.isfile(real) and os.path.isfile(real_log):
                same = os.path.samefile(real, real_log)
            if same:
                return max(param.opts, key=len) if param.opts else param.name
    return None


def run_options(command: Callable) -> Callable:
    """-q/--quiet, -v/--verbose, --log-file, --summary on every command; sets up the log for the run.
    The command receives ``quiet`` (its progress bars) and ``summary_path``."""

    @functools.wraps(command)
    def run(*args, verbose: bool, log_file: str | None, **kwargs):
        ctx = click.get_current_context()
        if verbose and kwargs["quiet"]:
            fail("-q/--quiet and -v/--verbose exclude each other", 2, ctx)
        with logging_to(command_name(ctx), kwargs["quiet"], verbose, log_file):
            for old, new in ctx.meta.get("kcooc.deprecated", []):
                LOG.warning(f"{old} is deprecated and will be removed in the next release; use {new}")
            return command(*args, **kwargs)

    decorators = [
        click.option("--quiet", "-q", is_flag=True, help="No progress bar; on stderr only warnings and errors."),
        click.option("--verbose", "-v", is_flag=True,
                     help="Debug messages too (the resolved config, a failure's traceback)."),
        click.option("--log-file", default=None, help="Also append the messages, with times, to this file."),
        click.option("--summary", "summary_path", default=None, help="Write a one-line JSON summary here."),
    ]
    for decorator in reversed(decorators):
        run = decorator(run)
    return run


def load_config(cls: type, path: str | None, overrides: dict[str, Any], print_config: bool = False):
    cfg = config_module.load(cls, path, overrides)
    if print_config:
        click.echo(config_module.dump(cfg), nl=False)
        sys.exit(0)
    LOG.debug("config:\n%s", config_module.dump(cfg).rstrip())
    return cfg


def progress(quiet: bool, unit: str = "pairs") -> tqdm:
    """A progress bar on stderr, off with --quiet or when stderr is not a terminal."""
    return tqdm(unit=unit, unit_scale=True, disable=quiet or not sys.stderr.isatty(), file=sys.stderr,
                dynamic_ncols=True)


def write_summary(path: str | None, summary: dict[str, Any]) -> None:
    raise_if_signalled()  # not a summary (nor a wait on a FIFO) for a run that a signal stopped
    if path:
        with atomic_output(path) as out:
            out.write(json.dumps(summary, sort_keys=True) + "\n")


def require(condition: bool, message: str) -> None:
    if not condition:
        raise InputError(message)
