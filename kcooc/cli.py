"""The ``kcooc`` command: a click group; each method adds a thin command module."""

from __future__ import annotations

import sys

import click

from . import __version__
from .ca.commands import ca
from .cliutils import fail
from .filtering.commands import filter_parallel
from .ks.commands import ks
from .nsk.commands import nsk
from .phsic.commands import phsic
from .srk.commands import srk

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

Exit codes: 0 success, 1 runtime failure, 2 bad usage or input, 75 output locked by another run. `kcooc CMD --help` for more.
"""


class KcoocGroup(click.Group):
    """The top-level group: usage errors are one line ``kcooc CMD: error: ...`` with exit code 2,
    like every other error, instead of click's three-line usage block."""

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
        except click.Abort:
            fail("interrupted", 130)
        if not standalone_mode:
            return result
        sys.exit(result if isinstance(result, int) else 0)


@click.group(cls=KcoocGroup, epilog=EPILOG, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="kcooc")
def cli():
    """Corpus-scale NLP batch jobs built on kernel methods."""


cli.add_command(phsic)
cli.add_command(filter_parallel)
cli.add_command(ks)
cli.add_command(ca)
cli.add_command(srk)
cli.add_command(nsk)


def main() -> None:
    cli()
