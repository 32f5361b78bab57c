"""The options of ``kcooc filter-parallel`` (commands.py), in the order ``--help`` lists them, and
:func:`aligned_input`, which checks the two forms of the input (``-i`` or ``--src-input``/``--tgt-input``)."""

from __future__ import annotations

import click

from ..cli.options import (
    aligned_options,
    config_options,
    given,
    input_options,
    jobs_option,
    output_option,
    report_option,
    seed_option,
    sigma_option,
    work_dir_option,
)
from ..cli.runtime import require
from ..io.aligned import AlignedFiles

OPTIONS = [
    config_options,
    input_options,
    aligned_options,
    output_option("Kept lines, verbatim, in input order (path or -; with --src-output/--tgt-output only if given).",
                  default="-", show_default=True),
    click.option("--scores", "scores_path", default=None,
                 help="Also write every line's score (nan if a rule dropped it)."),
    click.option("--annotated", "annotated_path", default=None,
                 help="Also write every line + score, keep/drop and the reason it was dropped (learned scorer: what "
                      "lowered a dropped line's score most, tgt_lang/src_lang or a feature (detector:feature with "
                      "learn.detectors), and every feature's value)."),
    report_option("Also write one self-contained HTML page of the run (.html: counts and time per pass, drops per "
                  "reason with a seeded sample of each, the score histogram and cut; learned score: features, "
                  "held-out metrics, the language gate); no request leaves the file."),
    click.option("--scorer", type=click.Choice(["learned", "phsic"]), default=None,
                 help="learned probability of a clean pair (default), or the paper's PHSIC ranking [config: scorer]."),
    click.option("--src-lang", default=None,
                 help="Expected source language, ISO 639-1 code (e.g. en) [config: src_lang]."),
    click.option("--tgt-lang", default=None,
                 help="Expected target language, ISO 639-1 code (e.g. de) [config: tgt_lang]."),
    click.option("--top-k", type=click.IntRange(min=0), default=None,
                 help="Keep the k best pairs [config: select.top_k]."),
    click.option("--top-ratio", type=click.FloatRange(0, 1, min_open=True), default=None,
                 help="Keep this share of the pairs that pass the rules [config: select.top_ratio]."),
    click.option("--threshold", type=float, default=None,
                 help="Keep pairs scoring at least this [config: select.threshold]."),
    click.option("--word-budget", type=click.IntRange(min=0), default=None,
                 help="Keep the best pairs up to this many words [config: select.word_budget]."),
    click.option("--kernel", type=click.Choice(["linear", "cos", "rbf", "laplacian", "poly"]), default=None,
                 help="PHSIC kernel [config: kernel.name]."),
    click.option("--rank", type=click.IntRange(min=1), default=None,
                 help="Incomplete Cholesky rank [config: kernel.rank]."),
    sigma_option,
    click.option("--model", "-m", "model_path", default=None,
                 help="Score with this model (--save-model of a learned run; for --scorer phsic a `phsic train` model) "
                      "instead of learning one."),
    click.option("--save-model", "save_model_path", default=None,
                 help="Also save the model learned on this corpus (.npz: the learned scorer, or PHSIC with "
                      "--scorer phsic)."),
    jobs_option("processes"),
    click.option("--engine", type=click.Choice(["local", "dask"]), default="local", show_default=True,
                 help="local processes, or a Dask cluster (--scheduler)."),
    click.option("--scheduler", default=None, help="Dask scheduler address, e.g. tcp://10.0.0.5:8786."),
    click.option("--task-lines", type=click.IntRange(min=1), default=None,
                 help="Lines per task sent to a worker [config: task_lines]."),
    work_dir_option,
    seed_option(),
]


def filter_options(command):
    """``command`` with every option of :data:`OPTIONS`, the first listed first."""
    for option in reversed(OPTIONS):
        command = option(command)
    return command


def aligned_input(input_path, output, src_input, tgt_input, src_output, tgt_output, options
                  ) -> tuple[str | AlignedFiles, str | None, bool]:
    """(the input, the TSV output or None, whether the input is two aligned files): ``--src-input``/
    ``--tgt-input`` instead of ``-i``, read as one TSV of their lines; ``--src-output``/``--tgt-output``
    replace ``-o`` unless it is given too."""
    require((src_input is None) == (tgt_input is None), "--src-input and --tgt-input go together")
    require((src_output is None) == (tgt_output is None), "--src-output and --tgt-output go together")
    if src_input is None:
        require(src_output is None, "--src-output/--tgt-output write the form of --src-input/--tgt-input; "
                                    "with -i, the kept lines go to -o")
        return input_path, output, False
    require(not given("input_path"), "-i/--input and --src-input/--tgt-input exclude each other")
    require("-" not in (src_input, tgt_input), "--src-input and --tgt-input take paths (stdin is one stream)")
    for option in ("src_col", "tgt_col", "header"):
        require(options.get(option) is None, f"--{option.replace('_', '-')} chooses columns of a TSV; two aligned "
                                             "files have none")
    return AlignedFiles(src_input, tgt_input), output if src_output is None or given("output") else None, True
