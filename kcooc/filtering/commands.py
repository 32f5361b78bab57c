"""``kcooc filter-parallel``: options (options.py) -> config, the output guard, the pipeline (pipeline.py), the
summary."""

from __future__ import annotations

import contextlib

import click

from ..cli.options import KcoocCommand, input_overrides
from ..cli.runtime import guarded, load_config, progress, require, run_options, write_summary
from ..config import NULL
from ..engine import make_engine
from ..engine.dask import check_address
from ..io.limits import display_name
from ..io.outputs import check_outputs
from ..io.readers import rereadable_input
from ..timing import Timer
from .config import FilterConfig, language_defaults
from .options import aligned_input, filter_options

# The pipeline and its maths (numba, scipy, scikit-learn) are imported when the command runs, so that
# `--help` and option errors stay fast.


@click.command("filter-parallel", cls=KcoocCommand)
@filter_options
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
                          inputs=[*([src_input, tgt_input] if aligned else [input_path]), model_path, config_path],
                          directories=[("--work-dir", work_dir, False)], lock_required=True)
    require(not (model_path and save_model_path),
            "--model scores with an existing model; --save-model saves a learned one")
    require(engine != "dask" or scheduler, "--engine dask needs --scheduler ADDRESS (e.g. tcp://10.0.0.5:8786)")
    if engine == "dask":
        check_address(scheduler)
    timer = Timer()
    with contextlib.ExitStack() as stack:
        stack.enter_context(guard)
        work = Workspace(stack.enter_context(guard.scratch("filter", work_dir)))
        # read twice (screen, score): a FIFO or stdin is copied once (so is a FIFO given as --src-input or
        # --tgt-input); a line over the limit stops the copy
        input_file = rereadable_input(input_path, work.path, max_tail=cfg.input.max_line_bytes,
                                      skip_long=cfg.input.on_error == "skip")
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


def _pass_bar(bar, name: str):
    bar.reset()
    bar.set_description(name)
    return bar.update
