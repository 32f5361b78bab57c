"""The ``kcooc`` command: a click group; each method adds a thin command module."""

from __future__ import annotations

import click

from . import __version__
from .ca.commands import ca
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


@click.group(epilog=EPILOG, context_settings={"help_option_names": ["-h", "--help"]})
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
