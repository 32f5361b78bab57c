"""What every command shares: options, config loading, progress bars, summaries, exit codes."""

from __future__ import annotations

import contextlib
import functools
import json
import math
import os
import sys
import time
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
    """Print ``kcooc CMD: error: message`` as one line on stderr and exit."""
    message = " ".join(message.split("\n")).strip()
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
        except Exception as exc:  # noqa: BLE001 - the contract is "never a traceback"
            if os.environ.get("KCOOC_DEBUG"):
                traceback.print_exc()
            fail(f"{type(exc).__name__}: {exc} (set KCOOC_DEBUG=1 for a traceback)", 1)

    return wrapper


def input_options(command: Callable) -> Callable:
    """--input, column choice and malformed-line policy; None means "from the config"."""
    decorators = [
        click.option("--input", "-i", "input_path", default="-", show_default=True,
                     help="TSV of pairs (path, .gz/.bz2/.xz, or - for stdin)."),
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


SEED = click.IntRange(0, 2**32 - 1)  # what every seeded generator (numpy, numba) accepts


class PositiveFloat(click.FloatRange):
    """A finite number > 0 (click's FloatRange lets NaN through)."""

    def __init__(self):
        super().__init__(min=0, min_open=True)

    def convert(self, value, param, ctx):
        number = super().convert(value, param, ctx)
        if not math.isfinite(number):
            self.fail(f"{value!r} is not a finite number", param, ctx)
        return number


POSITIVE = PositiveFloat()


def seed_option(help: str = "Seed for every random choice [config: seed].") -> Callable:
    return click.option("--seed", type=SEED, default=None, help=help)


def run_options(command: Callable) -> Callable:
    decorators = [
        seed_option(),
        click.option("--quiet", "-q", is_flag=True, help="No progress bar."),
        click.option("--summary", "summary_path", default=None, help="Write a one-line JSON summary here."),
    ]
    for decorator in reversed(decorators):
        command = decorator(command)
    return command


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
    cfg = config_module.load(cls, path, overrides)
    if print_config:
        click.echo(config_module.dump(cfg), nl=False)
        sys.exit(0)
    return cfg


def progress(quiet: bool, unit: str = "pairs") -> tqdm:
    """A progress bar on stderr, off with --quiet or when stderr is not a terminal."""
    return tqdm(unit=unit, unit_scale=True, disable=quiet or not sys.stderr.isatty(), file=sys.stderr,
                dynamic_ncols=True)


class Timer:
    def __init__(self):
        self.start = time.perf_counter()

    def seconds(self) -> float:
        return round(time.perf_counter() - self.start, 3)


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


def use_threads(jobs: int | None) -> None:
    """Threads for numba's parallel loops (None: all cores)."""
    if jobs:
        import numba

        numba.set_num_threads(min(jobs, numba.config.NUMBA_NUM_THREADS))


def require(condition: bool, message: str) -> None:
    if not condition:
        raise InputError(message)
