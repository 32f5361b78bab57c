"""The repository's own scripts, run from its root as modules (``python -m scripts.bench.filter --help``).

``bench/`` measures speed against a baseline run in the same process, ``experiments/<method>/`` builds each
paper reproduction's data, runs it and writes its docs/results-*.md page (with the hand-written notes beside
it), ``tools/`` generates docs/cli.md and configs/README.md. ``reports`` is shared by the experiments.
Nothing here is installed with kcooc.
"""
