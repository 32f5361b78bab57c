"""The ``kcooc`` command: a click group; each method adds a thin command module, loaded lazily."""

from __future__ import annotations

import importlib
import sys

import click

from .. import __version__
from ..errors import signal_exit
from .runtime import fail

# name -> (module, attribute, the one-line help `kcooc --help` lists). A command's module (and the
# numerical stack behind it) is imported only when that command runs or shows its help, so
# `kcooc CMD --help` costs one method's imports, not all six; tests/test_install.py checks that
# each line here is the command's own short help.
COMMANDS = {
    "ca": ("kcooc.ca.commands", "ca",
           "Correspondence-analysis word vectors (Niitsuma), by a delayed sparse randomized SVD."),
    "filter-parallel": ("kcooc.filtering.commands", "filter_parallel",
                        "Rank a parallel corpus by a pair-quality score learned on itself and keep the best pairs, "
                        "after hard rules and deduplication."),
    "ks": ("kcooc.ks.commands", "ks", "Kernelized sorting: match objects across two domains with no cross-domain "
           "similarity (Jagarlamudi et al., 2010)."),
    "nsk": ("kcooc.nsk.commands", "nsk",
            "Nonstationary convolution kernels with k-NN on paths and trees (Garg et al., 2018)."),
    "phsic": ("kcooc.phsic.commands", "phsic",
              "Pointwise HSIC co-occurrence scores of sentence pairs (Yokoi et al., 2018)."),
    "srk": ("kcooc.srk.commands", "srk",
            "Type-enriched string rewriting kernels for sentence pairs (Gleize & Grau, 2015)."),
}

EPILOG = """\b
Examples:
  kcooc phsic train -c configs/dialogue.yaml -i data/dialogue/train.tsv -o runs/phsic.npz
  kcooc phsic score -m runs/phsic.npz -i data/dialogue/test.tsv --score-only
  kcooc phsic score -m runs/phsic.npz -i candidates.tsv --candidates
  kcooc phsic merge shard1.npz shard2.npz -o model.npz
  kcooc filter-parallel -c configs/filter-hashing.yaml -i corpus.tsv.gz -o kept.tsv --top-ratio 0.7 --jobs 2
  kcooc ks align -c configs/ks-names.yaml --source en.txt --target ar.txt --seeds seeds.tsv -o alignment.tsv
  kcooc srk classify -c configs/srk-paraphrase.yaml --train train.tsv --test test.tsv -o pred.tsv --metrics m.json
  kcooc nsk train -c configs/nsk-brown.yaml -i train.jsonl -o model.npz
  kcooc nsk classify -m model.npz -i test.jsonl -o pred.tsv --metrics m.json

Exit codes: 0 success, 1 runtime failure, 2 bad usage or input, 75 output locked by another run,
130 SIGINT, 143 SIGTERM (the run removes its temporaries; the previous outputs stay).
`kcooc CMD --help` for more.
"""


class KcoocGroup(click.Group):
    """The top-level group: usage errors are one line ``kcooc CMD: error: ...`` with exit code 2,
    like every other error, instead of click's three-line usage block. Commands load lazily from
    ``COMMANDS``."""

    def list_commands(self, ctx):
        return sorted(COMMANDS)

    def get_command(self, ctx, name):
        if name not in COMMANDS:
            return None
        module, attribute, _ = COMMANDS[name]
        return getattr(importlib.import_module(module), attribute)

    def format_commands(self, ctx, formatter):
        """The command list from ``COMMANDS``, without importing any command."""
        limit = formatter.width - 6 - max(map(len, COMMANDS))
        rows = [(name, click.utils.make_default_short_help(help, limit))
                for name, (_, _, help) in sorted(COMMANDS.items())]
        with formatter.section("Commands"):
            formatter.write_dl(rows)

    def main(self, args=None, prog_name=None, standalone_mode=True, **extra):
        try:
            result = super().main(args, prog_name or "kcooc", standalone_mode=False, **extra)
        except click.exceptions.NoArgsIsHelpError as exc:  # a bare group: its help, as click shows it
            exc.show()
            sys.exit(exc.exit_code)
        except click.UsageError as exc:
            hint = f" (see '{exc.ctx.command_path} --help')" if exc.ctx is not None else ""
            fail(exc.format_message() + hint, exc.exit_code, exc.ctx)
        except click.ClickException as exc:
            fail(exc.format_message(), exc.exit_code)
        except click.Abort as exc:  # a signal before a command's ``guarded`` (in-process callers: the entry
            # point's own handlers take it first); click re-raises it as Abort, the signal's exception its cause
            fail(*signal_exit(exc.__cause__))
        if not standalone_mode:
            return result
        sys.exit(result if isinstance(result, int) else 0)


@click.group(cls=KcoocGroup, epilog=EPILOG, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="kcooc")
def cli():
    """Corpus-scale NLP batch jobs built on kernel methods."""


def main() -> None:
    from . import runtime

    # A run stopped by a signal exits at once after its cleanup: a thread blocked reading stdin would
    # otherwise hold the stream's lock at interpreter shutdown (a fatal error, exit code 134).
    runtime.EXIT_AT_ONCE["enabled"] = True
    cli()
