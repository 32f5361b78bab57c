"""The option vocabulary every command speaks (docs/cli.md lists every command's options, generated from
these definitions): ``-i/--input`` the main input, ``-o/--output`` the main output, ``-c/--config`` and
``--print-config`` (config_options), ``--seed`` (seed_option), ``-j/--jobs`` (jobs_option), the input's
columns and malformed-line policy (input_options), two aligned files instead of a TSV (``--src-input``/
``--tgt-input``, read and written as ``--src-output``/``--tgt-output``: aligned_options), ``--report`` an HTML
page of what the run did (report_option), and the options that override config keys (a help text ending
``[config: key]``); ``-q``, ``-v``, ``--log-file`` and ``--summary`` are
the runtime's (runtime.run_options). Old spellings kept for one release are listed in a command's ``old_options``
(KcoocCommand): they still work and print a warning.
"""

from __future__ import annotations

import os
import re
from typing import Any, Callable

import click

from .. import config as config_module
from ..config import Range


def input_option(help: str, **kwargs) -> Callable:
    """``-i/--input``: the command's main input (its value reaches the command as ``input_path``)."""
    return click.option("--input", "-i", "input_path", help=help, **kwargs)


def output_option(help: str, **kwargs) -> Callable:
    """``-o/--output``: the command's main output."""
    return click.option("--output", "-o", "output", help=help, **kwargs)


def input_options(command: Callable) -> Callable:
    """--input, column choice and malformed-line policy; None means "from the config"."""
    decorators = [
        input_option("TSV of pairs (path, .gz/.bz2/.xz/.zst, or - for stdin).", default="-", show_default=True),
        click.option("--src-col", default=None, help="x column: 1-based index or header name [config: input.src_col]."),
        click.option("--tgt-col", default=None, help="y column: 1-based index or header name [config: input.tgt_col]."),
        click.option("--header/--no-header", default=None, help="First line names the columns [config: input.header]."),
        click.option("--on-error", type=click.Choice(["fail", "skip"]), default=None,
                     help="Malformed line: stop with file:line, or skip and count [config: input.on_error]."),
        click.option("--block-size", type=click.IntRange(min=1), default=None,
                     help="Pairs per block [config: input.block_size]."),
    ]
    for decorator in reversed(decorators):
        command = decorator(command)
    return command


def aligned_options(command: Callable) -> Callable:
    """``--src-input``/``--tgt-input``: the corpus as two aligned files, one sentence a line (instead of
    ``-i``'s TSV), and ``--src-output``/``--tgt-output``: the kept pairs in the same form."""
    decorators = [
        click.option("--src-input", default=None,
                     help="Source side as its own file, one sentence a line (with --tgt-input, instead of -i; "
                          ".gz/.bz2/.xz/.zst); a tab inside a sentence is refused."),
        click.option("--tgt-input", default=None, help="Target side, aligned line by line with --src-input."),
        click.option("--src-output", default=None,
                     help="Kept pairs' source side, one a line (with --tgt-output; two-file input only)."),
        click.option("--tgt-output", default=None, help="Kept pairs' target side, aligned with --src-output."),
    ]
    for decorator in reversed(decorators):
        command = decorator(command)
    return command


def report_option(help: str) -> Callable:
    """``--report FILE.html``: one self-contained HTML page of what the run did (it makes no request:
    no script, font or image from anywhere), an output like any other (checked before work, atomic)."""
    return click.option("--report", "report_path", default=None, help=help)


def given(name: str) -> bool:
    """Whether the running command's parameter ``name`` was given on the command line (not its default)."""
    ctx = click.get_current_context()
    return ctx.get_parameter_source(name) == click.core.ParameterSource.COMMANDLINE


class Bounded(click.ParamType):
    """A number within a :class:`kcooc.config.Range` (the bounds config keys declare), for the options
    that set no config key; NaN and infinities are refused."""

    def __init__(self, bounds: Range, number: type = int):
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
JOBS = Range(0, 1024)  # more processes or threads than this is never meant (and overflows semaphores)


def seed_option(help: str = "Seed for every random choice [config: seed].") -> Callable:
    return click.option("--seed", type=SEED, default=None, help=help)


def config_options(command: Callable) -> Callable:
    """``-c/--config`` and ``--print-config`` (which needs none of the command's required options)."""
    command = click.option(
        "--print-config", is_flag=True,
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


def _parse_sigma(value: str | None) -> float | str | None:
    if value in (None, "median"):
        return value
    try:
        return float(value)
    except ValueError:
        raise click.BadParameter(f"expected a number or 'median', got {value!r}") from None


sigma_option = click.option("--sigma", default=None, callback=lambda ctx, param, value: _parse_sigma(value),
                            help="rbf/laplacian bandwidth or 'median' [config: kernel.sigma].")


CONFIG_KEY = re.compile(r"\[(?:model )?config: ([\w.]+)\]")


def option_of(key: str | None, command: click.Command) -> str | None:
    """The option of ``command`` for the parameter or config key ``key``: the one whose help ends
    ``[config: key]``, else the one named after it (``model`` -> ``--model``), if any."""
    if key is None:
        return None
    named = None
    for param in command.params:
        match = CONFIG_KEY.search(getattr(param, "help", None) or "")
        if match and match.group(1) == key:
            return max(param.opts, key=len)
        if "--" + key.replace("_", "-") in param.opts:
            named = "--" + key.replace("_", "-")
    return named
