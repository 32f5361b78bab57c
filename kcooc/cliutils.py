"""What every command shares: options, config loading, progress bars, summaries, exit codes."""

from __future__ import annotations

import functools
import json
import os
import sys
import time
import traceback
from typing import Any, Callable

import click
from tqdm import tqdm

from . import config as config_module
from .errors import InputError, KcoocError
from .io import TsvReader, atomic_output, check_output_directory


def guarded(command: Callable) -> Callable:
    """Turn kcooc errors into one-line messages and exit codes (2: bad input/usage, 1: runtime)."""

    @functools.wraps(command)
    def wrapper(*args, **kwargs):
        try:
            return command(*args, **kwargs)
        except KcoocError as exc:
            click.echo(f"kcooc: error: {exc}", err=True)
            sys.exit(exc.exit_code)
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
            click.echo(f"kcooc: error: {type(exc).__name__}: {exc} (set KCOOC_DEBUG=1 for a traceback)", err=True)
            sys.exit(1)

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


def run_options(command: Callable) -> Callable:
    decorators = [
        click.option("--seed", type=int, default=None, help="Seed for every random choice [config: seed]."),
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


def open_pairs(path: str, input_cfg) -> TsvReader:
    return TsvReader(path, [input_cfg.src_col, input_cfg.tgt_col], header=input_cfg.header,
                     on_error=input_cfg.on_error, block_size=input_cfg.block_size,
                     max_line_bytes=input_cfg.max_line_bytes)


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


def check_outputs(*paths: str | None) -> None:
    """Fail before any work if an output's directory is missing (see io.check_output_directory)."""
    for path in paths:
        if path:
            check_output_directory(path)


def use_threads(jobs: int | None) -> None:
    """Threads for numba's parallel loops (None: all cores)."""
    if jobs:
        import numba

        numba.set_num_threads(min(jobs, numba.config.NUMBA_NUM_THREADS))


def require(condition: bool, message: str) -> None:
    if not condition:
        raise InputError(message)
