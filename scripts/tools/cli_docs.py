"""Regenerate docs/cli.md from the click definitions: every command's options (name, aliases, type,
default, help), the vocabulary they share, the --jobs workers and the old spellings kept for one release.

Usage: python -m scripts.tools.cli_docs > docs/cli.md   (or `make cli-docs`; tests/test_cli_docs.py keeps it in sync)
"""

from __future__ import annotations

import click

from kcooc.cli import cli
from kcooc.cli.options import Bounded

# Commands without -i/--input or -o/--output, and why (tests/test_cli_docs.py checks this list is exact).
EXCEPTIONS = {
    "phsic merge": "its inputs are the models to merge, given as positional arguments "
                   "(`kcooc phsic merge a.npz b.npz -o m.npz`)",
    "srk classify": "two inputs of the same format: `--train` (labelled pairs) and `--test` (pairs to classify)",
    "ks align": "two inputs of equal standing: `--source` and `--target` objects",
}

VOCABULARY = """\
| option | meaning, the same in every command |
|---|---|
| `-i`, `--input` | the main input: a path, `-` for stdin where the format streams, `.gz`/`.bz2`/`.xz` read as such |
| `-o`, `--output` | the main output, written atomically (it appears only when complete); `-` for stdout where it streams |
| `-c`, `--config` | a YAML config ([configs/README.md](../configs/README.md) lists every key); options override its keys |
| `--print-config` | print the resolved config (file + options) and exit; needs none of the options a run requires |
| `-m`, `--model` | a model file written by another kcooc command |
| `-q`, `--quiet` | no progress bar; on stderr only warnings and errors |
| `-v`, `--verbose` | debug messages too: the resolved config, and the traceback of a runtime failure |
| `--log-file` | also append every message, with its time, command and pid, to this file (INFO, or DEBUG with `-v`; `-q` does not silence it) |
| `--summary` | a one-line JSON summary of the run (counts, timings, where the outputs went) |
| `--seed` | the seed of every random choice; reruns with the same seed are byte-identical |
| `-j`, `--jobs` | how many CPU cores to use (default 1, `0` for all); the output is the same for every value |
| `--work-dir` | scratch directory for the run's temporary files, removed at the end (default: hidden, beside `--output`) |
| `--report` | one self-contained HTML page of what the run did (`.html`, or `-` for stdout); it makes no request (no script, font or image from anywhere, a CSP that forbids any), and it is an output like the others: checked before any work, written atomically with them. `filter-parallel`: drops per reason with samples, the score histogram and cut, the learned score's features; `ca embed`: the singular values and their share of the total inertia, the SVD's residuals, SCA's supervised pairs |

Two inputs of the same standing are named by their role, with no `-i`: `srk classify --train/--test`,
`ks align --source/--target`. Further inputs and outputs are also named by role (`--gold`, `--seeds`,
`--metrics`, `--scores`, `--annotated`, `--export-w2v`, `--save-model`). No long option is a single letter.
Messages go through Python's `logging` (logger `kcooc`); errors are one line `kcooc CMD: error: ...` and
set the exit code (0 success, 1 runtime failure, 2 bad usage or input, 75 output locked by another run,
130 SIGINT, 143 SIGTERM; a stopped run removes its temporaries and leaves the previous outputs).
"""  # noqa: E501 (markdown table rows)


def commands(group: click.Group = cli, prefix: str = "") -> list[tuple[str, click.Command]]:
    """(name, command) of every leaf command, sorted, through lazy groups too."""
    ctx = click.Context(group)
    found = []
    for name in group.list_commands(ctx):
        command = group.get_command(ctx, name)
        full = f"{prefix}{name}"
        found += commands(command, full + " ") if isinstance(command, click.Group) else [(full, command)]
    return found


def visible(command: click.Command) -> list[click.Parameter]:
    return [p for p in command.params if not getattr(p, "hidden", False) and p.name != "help"]


def long_name(param: click.Parameter) -> str:
    if isinstance(param, click.Argument):
        return param.human_readable_name + (" ..." if param.nargs == -1 else "")
    return max(param.opts, key=len)


def old_spellings(command: click.Command) -> dict[str, list[str]]:
    old = {}
    for spelling, new in getattr(command, "old_options", {}).items():
        old.setdefault(new, []).append(spelling)
    return old


def describe_type(param: click.Parameter) -> str:
    kind = param.type
    if getattr(param, "is_flag", False):
        return "flag"
    if isinstance(kind, click.Choice):
        return " \\| ".join(kind.choices)
    if isinstance(kind, (click.IntRange, click.FloatRange)):
        return f"{'integer' if isinstance(kind, click.IntRange) else 'number'} {kind._describe_range()}"
    if isinstance(kind, Bounded):
        return f"{kind.name} {kind.bounds}"
    return {"text": "text", "integer": "integer", "float": "number"}.get(kind.name, kind.name)


def describe_default(param: click.Parameter) -> str:
    if isinstance(param, click.Argument):
        return "required" if param.required else ""
    if param.required:
        return "required"
    if getattr(param, "is_flag", False) or param.default is None or callable(param.default):
        return ""
    return f"`{param.default}`"


def cell(text: str | None) -> str:
    return " ".join((text or "").split()).replace("|", "\\|")


def main() -> None:
    every = commands()
    print("# Command-line options\n")
    print("Every option of every `kcooc` command, generated from the click definitions by")
    print("`python -m scripts.tools.cli_docs > docs/cli.md` (`make cli-docs`); tests/test_cli_docs.py fails when this")
    print("page is stale or a command breaks the shared vocabulary below.\n")
    print("## The shared vocabulary\n")
    print(VOCABULARY)
    print("Commands without `-i`/`-o`:\n")
    for name, why in EXCEPTIONS.items():
        print(f"- `kcooc {name}`: {why}.")
    print("\n## What `--jobs` runs\n")
    print("| command | `--jobs N` starts |")
    print("|---|---|")
    for name, command in every:
        for param in visible(command):
            if param.name == "jobs":
                print(f"| `kcooc {name}` | {param.workers} |")
    print()
    print("Processes each read and score their own share of the input (memory grows with N); threads share one")
    print("process (numba's parallel loops). Either way the output does not depend on N.\n")
    print("## Old spellings (kept for one release)\n")
    print("They still work and print a warning (`kcooc CMD: warning: --old is deprecated ...`); change scripts and")
    print("cron jobs to the new spelling before the next release.\n")
    print("| command | old | new |")
    print("|---|---|---|")
    for name, command in every:
        for old, new in getattr(command, "old_options", {}).items():
            print(f"| `kcooc {name}` | `{old}` | `{new}` |")
    print("\nRenamed without an old spelling: `ca eval -v/--vectors FILE` is `ca eval -i FILE` (`-v` is `--verbose`")
    print("everywhere, `--vectors` is only `ca embed`'s vector kind);")
    print("`ca plot --table FILE` is `ca plot -i FILE` (`--table` is only `ca embed`'s table kind).\n")
    for name, command in every:
        print(f"## kcooc {name}\n")
        print(cell((command.help or "").split("\n\n")[0]) + "\n")
        old = old_spellings(command)
        print("| option | aliases | type | default | help |")
        print("|---|---|---|---|---|")
        for param in visible(command):
            primary = long_name(param)
            aliases = [o for o in getattr(param, "opts", []) if o != primary]
            aliases += getattr(param, "secondary_opts", [])
            aliases += [f"{o} (old)" for o in old.get(primary, [])]
            print(f"| `{primary}` | {', '.join(f'`{a}`' for a in aliases)} | {describe_type(param)} | "
                  f"{describe_default(param)} | {cell(getattr(param, 'help', None))} |")
        print()


if __name__ == "__main__":
    main()
