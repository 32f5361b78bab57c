"""What every command shares: options, config loading, progress bars, logging, summaries, exit codes.

The option vocabulary (docs/cli.md lists every command's options, generated from these definitions):
``-i/--input`` the main input, ``-o/--output`` the main output, ``-c/--config`` and ``--print-config``
(config_options), ``-q/--quiet``, ``-v/--verbose``, ``--log-file`` and ``--summary`` (run_options, on every
command), ``--seed`` (seed_option), ``-j/--jobs`` (jobs_option). Old spellings kept for one release are
listed in a command's ``old_options`` (KcoocCommand): they still work and print a warning.
"""

from __future__ import annotations

import contextlib
import functools
import json
import logging
import os
import re
import sys
import traceback
from typing import Any, Callable, Iterable, Iterator, NoReturn

import click
from tqdm import tqdm

from . import config as config_module
from .errors import InputError, KcoocError
from .io import atomic_output, check_output_path, exclusive_lock, remove_stale_temporaries


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


def guarded(command: Callable) -> Callable:
    """Turn kcooc errors into one-line messages and exit codes (2: bad input/usage, 1: runtime)."""

    @functools.wraps(command)
    def wrapper(*args, **kwargs):
        try:
            return command(*args, **kwargs)
        except KcoocError as exc:
            fail(str(exc), exc.exit_code)
        except BrokenPipeError:  # e.g. `kcooc phsic score ... | head`
            os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
            sys.exit(0)
        except KeyboardInterrupt:
            click.echo("kcooc: interrupted", err=True)
            sys.exit(130)
        except (click.exceptions.Exit, click.ClickException, SystemExit):
            raise
        except Exception as exc:  # noqa: BLE001 - the contract is "never a traceback" (unless asked: -v)
            if os.environ.get("KCOOC_DEBUG"):
                traceback.print_exc()
            else:
                LOG.debug("traceback of the failure below", exc_info=True)
            fail(f"{type(exc).__name__}: {exc} (-v or KCOOC_DEBUG=1 for a traceback)", 1)

    return wrapper


def input_option(help: str, **kwargs) -> Callable:
    """``-i/--input``: the command's main input (its value reaches the command as ``input_path``)."""
    return click.option("--input", "-i", "input_path", help=help, **kwargs)


def output_option(help: str, **kwargs) -> Callable:
    """``-o/--output``: the command's main output."""
    return click.option("--output", "-o", "output", help=help, **kwargs)


def input_options(command: Callable) -> Callable:
    """--input, column choice and malformed-line policy; None means "from the config"."""
    decorators = [
        input_option("TSV of pairs (path, .gz/.bz2/.xz, or - for stdin).", default="-", show_default=True),
        click.option("--src-col", default=None, help="x column: 1-based index or header name [config: input.src_col]."),
        click.option("--tgt-col", default=None, help="y column: 1-based index or header name [config: input.tgt_col]."),
        click.option("--header/--no-header", default=None, help="First line names the columns [config: input.header]."),
        click.option("--on-error", type=click.Choice(["fail", "skip"]), default=None,
                     help="Malformed line: stop with file:line, or skip and count [config: input.on_error]."),
        click.option("--block-size", type=click.IntRange(min=1), default=None, help="Pairs per block [config: input.block_size]."),
    ]
    for decorator in reversed(decorators):
        command = decorator(command)
    return command


class Bounded(click.ParamType):
    """A number within a :class:`kcooc.config.Range` (the bounds config keys declare), for the options
    that set no config key; NaN and infinities are refused."""

    def __init__(self, bounds: config_module.Range, number: type = int):
        self.bounds, self.number = bounds, number
        self.name = "integer" if number is int else "number"

    def convert(self, value, param, ctx):
        try:
            number = value if isinstance(value, self.number) else self.number(value)
        except (TypeError, ValueError):
            self.fail(f"{value!r} is not {'an integer' if self.number is int else 'a number'}", param, ctx)
        problem = self.bounds.problem(number)
        if problem:
            self.fail(problem, param, ctx)
        return number


SEED = Bounded(config_module.SEED)
JOBS = config_module.Range(0, 1024)  # more processes or threads than this is never meant (and overflows semaphores)


def seed_option(help: str = "Seed for every random choice [config: seed].") -> Callable:
    return click.option("--seed", type=SEED, default=None, help=help)


def config_options(command: Callable) -> Callable:
    """``-c/--config`` and ``--print-config`` (which needs none of the command's required options)."""
    command = click.option("--print-config", is_flag=True,
                           help="Print the resolved config (file + options) and exit; needs no input or output.")(command)
    return click.option("--config", "-c", "config_path", default=None,
                        help="YAML config (see configs/README.md).")(command)


def all_cores(ctx, param, value: int) -> int:
    return value or os.cpu_count() or 1


JOBS_HELP = ("CPU cores to use (0: all; at most 1024); the output is the same for any value (processes or threads: "
             "docs/cli.md).")


def jobs_option(workers: str) -> Callable:
    """``-j/--jobs``, one meaning everywhere: how many cores; ``workers`` says how a command uses them
    ("processes" or "threads"), shown in docs/cli.md."""
    def decorator(command: Callable) -> Callable:
        command = click.option("--jobs", "-j", type=Bounded(JOBS), default=1, show_default=True,
                               callback=all_cores, help=JOBS_HELP)(command)
        command.__click_params__[-1].workers = workers
        return command
    return decorator


work_dir_option = click.option(
    "--work-dir", default=None,
    help="Scratch directory for the run's temporary files, removed at the end (default: hidden, beside --output).")


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
            fail(f"--log-file {log_file}: is also the command's {clash}; the log appends, so it must be another file", 2)
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
        click.option("--verbose", "-v", is_flag=True, help="Debug messages too (the resolved config, a failure's traceback)."),
        click.option("--log-file", default=None, help="Also append the messages, with times, to this file."),
        click.option("--summary", "summary_path", default=None, help="Write a one-line JSON summary here."),
    ]
    for decorator in reversed(decorators):
        run = decorator(run)
    return run


class KcoocCommand(click.Command):
    """A command that keeps old option spellings for one release (``old_options={"--old": "--new"}``:
    rewritten before parsing, with a warning) and lets ``--print-config`` run without the options
    a real run requires."""

    def __init__(self, *args, old_options: dict[str, str] | None = None, **kwargs):
        super().__init__(*args, **kwargs)
        self.old_options = old_options or {}

    def parse_args(self, ctx: click.Context, args: list[str]) -> list[str]:
        rewritten, used = [], []
        for arg in args:
            if arg == "--":
                rewritten += args[len(rewritten):]
                break
            name, sep, value = arg.partition("=")
            if name in self.old_options:
                used.append((name, self.old_options[name]))
                arg = self.old_options[name] + sep + value
            rewritten.append(arg)
        ctx.meta["kcooc.deprecated"] = used
        if "--print-config" not in rewritten:
            return super().parse_args(ctx, rewritten)
        required = [param for param in self.params if param.required]
        for param in required:
            param.required = False
        try:
            return super().parse_args(ctx, rewritten)
        finally:
            for param in required:
                param.required = True


class KcoocGroupOfCommands(click.Group):
    """A method's group (``kcooc phsic``...): its commands are KcoocCommands."""

    command_class = KcoocCommand


def column_override(value: str | None) -> int | str | None:
    return int(value) if value is not None and value.isdigit() else value


def input_overrides(kwargs: dict) -> dict[str, Any]:
    return {
        "input.src_col": column_override(kwargs.get("src_col")),
        "input.tgt_col": column_override(kwargs.get("tgt_col")),
        "input.header": kwargs.get("header"),
        "input.on_error": kwargs.get("on_error"),
        "input.block_size": kwargs.get("block_size"),
        "seed": kwargs.get("seed"),
    }


def load_config(cls: type, path: str | None, overrides: dict[str, Any], print_config: bool = False):
    """The config of ``path`` with ``overrides``; a bad value an option set is reported under the option's name."""
    cfg = config_module.load(cls, path, overrides, option_names=config_options_of())
    if print_config:
        click.echo(config_module.dump(cfg), nl=False)
        sys.exit(0)
    LOG.debug("config:\n%s", config_module.dump(cfg).rstrip())
    return cfg


def config_options_of(ctx: click.Context | None = None) -> dict[str, str]:
    """Dotted config key -> the running command's option that sets it (its help ends ``[config: KEY].``)."""
    ctx = ctx or click.get_current_context(silent=True)
    names = {}
    for param in ctx.command.params if ctx else ():
        match = re.search(r"\[(?:model )?config: ([\w.]+)\]", getattr(param, "help", None) or "")
        if match:
            names[match.group(1)] = max(param.opts, key=len)
    return names


def progress(quiet: bool, unit: str = "pairs") -> tqdm:
    """A progress bar on stderr, off with --quiet or when stderr is not a terminal."""
    return tqdm(unit=unit, unit_scale=True, disable=quiet or not sys.stderr.isatty(), file=sys.stderr,
                dynamic_ncols=True)


def write_summary(path: str | None, summary: dict[str, Any]) -> None:
    if path:
        with atomic_output(path) as out:
            out.write(json.dumps(summary, sort_keys=True) + "\n")


def check_outputs(*outputs: str | None, inputs: Iterable[str | None] = ()) -> None:
    """Fail before any work if an output cannot be written or would replace an input (every command).

    Each output must be a file path in an existing directory, not an existing directory, different
    from the other outputs, and must not resolve to any input (symlinks and hard links included).
    """
    paths = [path for path in outputs if path and path != "-"]
    inputs = list(inputs)
    for path in paths:
        check_output_path(path, inputs)
    real = [os.path.realpath(path) for path in paths]
    for i, path in enumerate(real):
        if path in real[:i]:
            raise InputError(f"{paths[i]}: given for two outputs; every output needs its own file")


@contextlib.contextmanager
def locked_outputs(output: str, *others: str | None) -> Iterator[None]:
    """Hold ``output``'s lock for the run and delete what killed runs left beside every output.

    A second run on the same output exits with code 75; temporaries of a killed run are removed
    by the next one (only the lock holder may, so a running run's files are never touched).
    """
    if output == "-" or (os.path.exists(output) and not os.path.isfile(output)):  # stdout, /dev/stdout, a FIFO
        yield
        return
    with exclusive_lock(output):
        for path in (output, *others):
            if path and path != "-":
                remove_stale_temporaries(path)
        yield


def require(condition: bool, message: str) -> None:
    if not condition:
        raise InputError(message)


def _parse_sigma(value: str | None) -> float | str | None:
    if value in (None, "median"):
        return value
    try:
        return float(value)
    except ValueError:
        raise click.BadParameter(f"expected a number or 'median', got {value!r}") from None


sigma_option = click.option("--sigma", default=None, callback=lambda ctx, param, value: _parse_sigma(value),
                            help="rbf/laplacian bandwidth or 'median' [config: kernel.sigma].")
