"""``kcooc filter-parallel``: options -> config, the output lock, the pipeline (pipeline.py), the summary."""

from __future__ import annotations

import contextlib

import click

from ..cli.options import (
    KcoocCommand,
    aligned_options,
    config_options,
    given,
    input_options,
    input_overrides,
    jobs_option,
    output_option,
    report_option,
    seed_option,
    sigma_option,
    work_dir_option,
)
from ..cli.runtime import check_directory, guarded, load_config, progress, require, run_options, write_summary
from ..config import NULL
from ..engine import make_engine
from ..io.outputs import check_outputs
from ..io.readers import AlignedFiles, display_name, rereadable_input
from ..timing import Timer
from .config import FilterConfig, language_defaults

# The pipeline and its maths (numba, scipy, scikit-learn) are imported when the command runs, so that
# `--help` and option errors stay fast.


@click.command("filter-parallel", cls=KcoocCommand)
@config_options
@input_options
@aligned_options
@output_option("Kept lines, verbatim, in input order (path or -; with --src-output/--tgt-output only if given).",
               default="-", show_default=True)
@click.option("--scores", "scores_path", default=None, help="Also write every line's score (nan if a rule dropped it).")
@click.option("--annotated", "annotated_path", default=None,
              help="Also write every line + score, keep/drop and the reason it was dropped (learned scorer: what "
                   "lowered a dropped line's score most, tgt_lang/src_lang or a feature (detector:feature with "
                   "learn.detectors), and every feature's value).")
@report_option("Also write one self-contained HTML page of the run (.html: counts and time per pass, drops per "
               "reason with a seeded sample of each, the score histogram and cut; learned score: features, "
               "held-out metrics, the language gate); no request leaves the file.")
@click.option("--scorer", type=click.Choice(["learned", "phsic"]), default=None,
              help="learned probability of a clean pair (default), or the paper's PHSIC ranking [config: scorer].")
@click.option("--src-lang", default=None, help="Expected source language, ISO 639-1 code (e.g. en) [config: src_lang].")
@click.option("--tgt-lang", default=None, help="Expected target language, ISO 639-1 code (e.g. de) [config: tgt_lang].")
@click.option("--top-k", type=click.IntRange(min=0), default=None, help="Keep the k best pairs [config: select.top_k].")
@click.option("--top-ratio", type=click.FloatRange(0, 1, min_open=True), default=None,
              help="Keep this share of the pairs that pass the rules [config: select.top_ratio].")
@click.option("--threshold", type=float, default=None,
              help="Keep pairs scoring at least this [config: select.threshold].")
@click.option("--word-budget", type=click.IntRange(min=0), default=None,
              help="Keep the best pairs up to this many words [config: select.word_budget].")
@click.option("--kernel", type=click.Choice(["linear", "cos", "rbf", "laplacian", "poly"]), default=None,
              help="PHSIC kernel [config: kernel.name].")
@click.option("--rank", type=click.IntRange(min=1), default=None,
              help="Incomplete Cholesky rank [config: kernel.rank].")
@sigma_option
@click.option("--model", "-m", "model_path", default=None,
              help="Score with this model (--save-model of a learned run; for --scorer phsic a `phsic train` model) "
                   "instead of learning one.")
@click.option("--save-model", "save_model_path", default=None,
              help="Also save the model learned on this corpus (.npz: the learned scorer, or PHSIC with "
                   "--scorer phsic).")
@jobs_option("processes")
@click.option("--engine", type=click.Choice(["local", "dask"]), default="local", show_default=True,
              help="local processes, or a Dask cluster (--scheduler).")
@click.option("--scheduler", default=None, help="Dask scheduler address, e.g. tcp://10.0.0.5:8786.")
@click.option("--task-lines", type=click.IntRange(min=1), default=None,
              help="Lines per task sent to a worker [config: task_lines].")
@work_dir_option
@seed_option()
@run_options
@guarded
def filter_parallel(config_path, print_config, input_path, output, scores_path, annotated_path, model_path,
                    save_model_path, jobs, engine, scheduler, work_dir, quiet, summary_path, src_input, tgt_input,
                    src_output, tgt_output, report_path, **options):
    """Rank a parallel corpus by a pair-quality score learned on itself and keep the best pairs,
    after hard rules and deduplication. The learned score is the probability that a pair is clean
    from PHSIC (Yokoi et al., 2018, §6.3), word-alignment, fluency, length, agreement and language-ID
    features; --scorer phsic ranks by PHSIC alone, as the paper.

    Safe from cron: a second run on the same --output exits with code 75 while the first holds
    the lock; outputs appear atomically; reruns on the same input are byte-identical, and so
    are --jobs N and --engine dask runs.

    \b
    Example:
      kcooc filter-parallel -i corpus.tsv -o kept.tsv --src-lang en --tgt-lang de
      kcooc filter-parallel -c configs/filter-aspec.yaml -i corpus.tsv.gz -o kept.tsv --top-ratio 0.7
      kcooc filter-parallel -c configs/filter-hashing.yaml -i corpus.tsv -o kept.tsv --jobs 2 --annotated why.tsv
      kcooc filter-parallel --src-lang en --tgt-lang de --src-input corpus.en.zst --tgt-input corpus.de.zst \\
          --src-output kept.en --tgt-output kept.de
      kcooc filter-parallel -c configs/filter-hashing.yaml -i corpus.tsv -o kept.tsv --engine dask \\
          --scheduler tcp://scheduler:8786
    """
    from .job import FilterJob
    from .pipeline import Outputs, run
    from .workspace import Workspace

    input_path, output, aligned = aligned_input(input_path, output, src_input, tgt_input, src_output, tgt_output,
                                                options)
    modes = {k: options[k] for k in ("top_k", "top_ratio", "word_budget") if options.get(k) is not None}
    require(len(modes) <= 1, f"choose one of --top-k, --top-ratio, --word-budget (got {len(modes)})")
    cfg = load_config(FilterConfig, config_path, {
        **(language_defaults(options["src_lang"], options["tgt_lang"], bool(modes)) if config_path is None else {}),
        **input_overrides(options),
        **({"input.src_col": 1, "input.tgt_col": 2, "input.header": False} if aligned else {}),
        "scorer": options.get("scorer"), "src_lang": options.get("src_lang"), "tgt_lang": options.get("tgt_lang"),
        # a selection mode given on the command line replaces the config's
        **{f"select.{k}": modes.get(k, NULL) for k in ("top_k", "top_ratio", "word_budget") if modes},
        "select.threshold": options.get("threshold"),
        "task_lines": options.get("task_lines"),
        "kernel.name": options.get("kernel"), "kernel.rank": options.get("rank"), "kernel.sigma": options.get("sigma"),
    }, print_config)
    guard = check_outputs(*([output] if output else []), src_output, tgt_output, scores_path, annotated_path,
                          save_model_path, summary_path, report_path,
                          inputs=[*([src_input, tgt_input] if aligned else [input_path]), model_path, config_path])
    require(not (model_path and save_model_path),
            "--model scores with an existing model; --save-model saves a learned one")
    require(engine != "dask" or scheduler, "--engine dask needs --scheduler ADDRESS (e.g. tcp://10.0.0.5:8786)")
    check_directory(work_dir, "--work-dir")
    timer = Timer()
    with contextlib.ExitStack() as stack:
        stack.enter_context(guard.locked())
        work = Workspace(stack.enter_context(guard.scratch("filter", work_dir)))
        input_file = rereadable_input(input_path, work.path)
        run_engine = stack.enter_context(make_engine(engine, jobs, scheduler, work.path))
        bar = stack.enter_context(progress(quiet, unit="lines"))
        job = FilterJob(cfg, input_file, run_engine, work, progress=lambda name: _pass_bar(bar, name))
        report = run(job, Outputs(output, scores_path, annotated_path, save_model_path, src_output, tgt_output,
                                  report_path), model_path)
        write_summary(summary_path, {
            "command": "filter-parallel", "input": display_name(input_path), "output": output,
            **({"src_input": src_input, "tgt_input": tgt_input, "src_output": src_output, "tgt_output": tgt_output}
               if aligned else {}),
            "scores": scores_path, **({"report": report_path} if report_path else {}),
            "annotated": annotated_path, **report, "engine": run_engine.describe(),
            "seconds": {**report["seconds"], "total": timer.seconds()}})


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


def _pass_bar(bar, name: str):
    bar.reset()
    bar.set_description(name)
    return bar.update
