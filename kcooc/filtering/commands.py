"""``kcooc filter-parallel``: parse options, lock, run the passes of job.py, write atomically."""

from __future__ import annotations

import contextlib
import dataclasses
from typing import TYPE_CHECKING

import click
import numpy as np

from ..cliutils import (KcoocCommand, Timer, check_outputs, config_options, guarded, input_options, input_overrides,
                        jobs_option, load_config, locked_outputs, output_option, progress, require, run_options,
                        seed_option, sigma_option, work_dir_option, write_summary)
from ..config import NULL, to_dict
from ..engine import make_engine
from ..io import atomic_output, beside, check_directory, display_name, rereadable_input, run_directory
from ..phsic.config import PhsicConfig
from .config import SCRIPT_LANGUAGE, FilterConfig
from .rules import PASS, REASONS
from .select import select

# The maths (numba, scipy, scikit-learn) is imported where it is used, so that `--help` and option
# errors stay fast.
if TYPE_CHECKING:
    from ..phsic.model import PHSIC
    from .job import FilterJob, LearnedScorer

PHSIC_SECTIONS = [field.name for field in dataclasses.fields(PhsicConfig)]


@click.command("filter-parallel", cls=KcoocCommand)
@config_options
@input_options
@output_option("Kept lines, verbatim, in input order (path or -).", default="-", show_default=True)
@click.option("--scores", "scores_path", default=None, help="Also write every line's score (nan if a rule dropped it).")
@click.option("--annotated", "annotated_path", default=None,
              help="Also write every line + score, keep/drop and the reason it was dropped (learned scorer: what "
                   "lowered a dropped line's score most, tgt_lang/src_lang or a feature (detector:feature with learn.detectors), "
                   "and every feature's value).")
@click.option("--scorer", type=click.Choice(["learned", "phsic"]), default=None,
              help="learned probability of a clean pair (default), or the paper's PHSIC ranking [config: scorer].")
@click.option("--src-lang", default=None, help="Expected source language, ISO 639-1 code (e.g. en) [config: src_lang].")
@click.option("--tgt-lang", default=None, help="Expected target language, ISO 639-1 code (e.g. de) [config: tgt_lang].")
@click.option("--top-k", type=click.IntRange(min=0), default=None, help="Keep the k best pairs [config: select.top_k].")
@click.option("--top-ratio", type=click.FloatRange(0, 1, min_open=True), default=None,
              help="Keep this share of the pairs that pass the rules [config: select.top_ratio].")
@click.option("--threshold", type=float, default=None, help="Keep pairs scoring at least this [config: select.threshold].")
@click.option("--word-budget", type=click.IntRange(min=0), default=None,
              help="Keep the best pairs up to this many words [config: select.word_budget].")
@click.option("--kernel", type=click.Choice(["linear", "cos", "rbf", "laplacian", "poly"]), default=None,
              help="PHSIC kernel [config: kernel.name].")
@click.option("--rank", type=click.IntRange(min=1), default=None, help="Incomplete Cholesky rank [config: kernel.rank].")
@sigma_option
@click.option("--model", "-m", "model_path", default=None,
              help="Score with this model (--save-model of a learned run; for --scorer phsic a `phsic train` model) "
                   "instead of learning one.")
@click.option("--save-model", "save_model_path", default=None,
              help="Also save the model learned on this corpus (.npz: the learned scorer, or PHSIC with --scorer phsic).")
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
                    save_model_path, jobs, engine, scheduler, work_dir, quiet, summary_path, **options):
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
      kcooc filter-parallel -c configs/filter-hashing.yaml -i corpus.tsv -o kept.tsv --engine dask \\
          --scheduler tcp://scheduler:8786
    """
    from .job import FilterJob, LearnedScorer, Workspace, mark_duplicates, reason_counts
    from .persistence import save_learned
    from .scorer import feature_names

    modes = {k: options[k] for k in ("top_k", "top_ratio", "word_budget") if options.get(k) is not None}
    require(len(modes) <= 1, f"choose one of --top-k, --top-ratio, --word-budget (got {len(modes)})")
    cfg = load_config(FilterConfig, config_path, {
        **(no_config_defaults(options["src_lang"], options["tgt_lang"], modes) if config_path is None else {}),
        **input_overrides(options),
        "scorer": options.get("scorer"), "src_lang": options.get("src_lang"), "tgt_lang": options.get("tgt_lang"),
        # a selection mode given on the command line replaces the config's
        **{f"select.{k}": modes.get(k, NULL) for k in ("top_k", "top_ratio", "word_budget") if modes},
        "select.threshold": options.get("threshold"),
        "task_lines": options.get("task_lines"),
        "kernel.name": options.get("kernel"), "kernel.rank": options.get("rank"), "kernel.sigma": options.get("sigma"),
    }, print_config)
    outputs = [output, scores_path, annotated_path, save_model_path, summary_path]
    check_outputs(*outputs, inputs=[input_path, model_path, config_path])
    require(not (model_path and save_model_path), "--model scores with an existing model; --save-model saves a learned one")
    check_directory(work_dir, "--work-dir")
    timer = Timer()
    with contextlib.ExitStack() as stack:
        stack.enter_context(locked_outputs(*outputs))
        work = Workspace(stack.enter_context(run_directory(work_dir or beside(output), output, "filter")))
        input_file = rereadable_input(input_path, work.path)
        run_engine = stack.enter_context(make_engine(engine, jobs, scheduler, work.path))
        bar = stack.enter_context(progress(quiet, unit="lines"))
        job = FilterJob(cfg, input_file, run_engine, work, progress=lambda name: _pass_bar(bar, name))
        seconds = {}
        learned = LearnedScorer(feature_names(cfg.src_lang, cfg.tgt_lang, cfg.learn.languages)) \
            if cfg.scorer == "learned" else None
        model, specs = learn_or_load(job, cfg, model_path, seconds, learned)
        reasons = work.array("reasons", np.uint8)
        lap = Timer()
        # duplicates are not scored again: they get their original's results
        copies = mark_duplicates(reasons, work.array("hashes", np.uint64)) if cfg.rules.dedup else None
        scores = job.score(model, reasons, specs, learned, copies, copy_features=annotated_path is not None)
        seconds["score"] = lap.seconds()
        duplicates = copies[0].size if copies else 0
        words = work.array("words", np.int32) if cfg.select.word_budget is not None else None
        selection = select(scores, reasons, cfg.select, words)
        lap = Timer()
        write_outputs(job, reasons, scores, output, scores_path, annotated_path, learned)
        seconds["write"] = lap.seconds()
        if save_model_path and learned is not None:
            save_learned(save_model_path, to_dict(cfg), model, specs or job_encoder_specs(cfg), learned, job.input_sha256)
        elif save_model_path:
            model.save(save_model_path, config={k: v for k, v in to_dict(cfg).items() if k in PHSIC_SECTIONS},
                       encoders=specs or job_encoder_specs(cfg), data_sha256=job.input_sha256)
        seconds["total"] = timer.seconds()
        write_summary(summary_path, {
            "command": "filter-parallel", "input": display_name(input_path), "input_sha256": job.input_sha256,
            "output": output, "scores": scores_path, "annotated": annotated_path, "read": job.read_stats.as_dict(),
            "pairs": job.n, "dropped": reason_counts(reasons), "duplicates": duplicates, **selection,
            "scorer": cfg.scorer, **({"classifier": learned.validation} if learned else {}),
            "hsic": model.hsic(), "engine": run_engine.describe(), "seconds": seconds})


def no_config_defaults(src_lang: str | None, tgt_lang: str | None, modes: dict) -> dict:
    """Without -c: hashed words (character uni- and bigrams for Chinese and Japanese) per side, and
    the best 80% of the pairs that pass the rules unless a selection was given."""
    def encoder(code):
        if SCRIPT_LANGUAGE.get(code) in ("japanese", "chinese"):
            return {"name": "hashing", "n_features": 1024, "word_ngrams": 0, "char_ngrams": [1, 2]}
        return {"name": "hashing", "n_features": 1024, "word_ngrams": 2}

    x, y = encoder(src_lang), encoder(tgt_lang)
    return {"encoder": x, "y_encoder": None if x == y else y, "select.top_ratio": None if modes else 0.8}


def learn_or_load(job: FilterJob, cfg: FilterConfig, model_path: str | None, seconds: dict,
                  learned: LearnedScorer | None = None) -> tuple[PHSIC, list | None]:
    """Screen the corpus and learn PHSIC on the pairs that pass the rules (or load a given model);
    with ``learned``, also the corpus counts and the classifier (stored in ``learned``)."""
    from ..phsic.model import PHSIC, load_phsic
    from .alignment import AlignmentModel
    from .job import is_feature_space
    from .persistence import load_learned
    from .scorer import train

    lap = Timer()
    if model_path and learned is not None:
        header, model = load_learned(model_path, cfg.src_lang, cfg.tgt_lang, learned)
        job.screen(None, header["encoders"], learned)
        seconds["screen"] = lap.seconds()
        return model, header["encoders"]
    if model_path:
        header, model = load_phsic(model_path)
        require(isinstance(header["encoders"], list), f"{model_path} was trained on precomputed vectors; "
                "filter-parallel needs a model with its encoders")
        job.screen(None, header["encoders"])
        seconds["screen"] = lap.seconds()
        return model, header["encoders"]
    params = {k: v for k, v in to_dict(cfg.kernel).items() if k not in ("name", "sample")}
    model = PHSIC(cfg.kernel.name, seed=cfg.seed, **params)
    if is_feature_space(cfg.kernel.name):
        moments, _, texts = job.screen(model.fit_maps(), None, learned)
        seconds["screen"] = lap.seconds()
    else:
        _, sample, texts = job.screen(model, None, learned)
        seconds["screen"] = lap.seconds()
        require(sample is not None, nothing_passed(job))
        lap = Timer()
        model.fit_maps(sample[2], sample[3])
        moments = job.statistics(model, job.work.array("reasons", np.uint8), None)
        seconds["statistics"] = lap.seconds()
    require(moments is not None, nothing_passed(job))
    model.moments = moments
    model.finalize()
    if learned is not None:
        lap = Timer()
        threads = getattr(job.engine, "jobs", 1)  # local processes: fit both alignment directions at once

        def fit_alignment(src: list[str], tgt: list[str]) -> None:
            learned.alignment = AlignmentModel.fit(src, tgt, cfg.learn.lexical_buckets, threads)

        learned.classifier, learned.validation = train(
            lambda src, tgt: job.features(model, learned, src, tgt), learned.names, texts[2].tolist(),
            texts[3].tolist(), cfg.learn.validation, cfg.learn.regularization, cfg.seed, cfg.learn.language_prior,
            fit=fit_alignment, doubtful_share=cfg.learn.doubtful_share, detectors=cfg.learn.detectors,
            source_language_prior=cfg.learn.source_language_prior, noise_kinds=cfg.learn.noise_kinds)
        seconds["train"] = lap.seconds()
    return model, None


def nothing_passed(job: FilterJob) -> str:
    from .job import reason_counts

    counts = ", ".join(f"{reason} ({count:,})" for reason, count in reason_counts(job.work.array("reasons", np.uint8)).items())
    return f"{job.input_path}: none of the {job.n:,} pairs passed the rules ({counts}): nothing to learn PHSIC from"


def job_encoder_specs(cfg: FilterConfig) -> list[dict]:
    from ..encoders import build_pair_encoders

    return [encoder.spec() for encoder in build_pair_encoders(to_dict(cfg.encoder), cfg.y_encoder and to_dict(cfg.y_encoder))]


def write_outputs(job: FilterJob, reasons: np.ndarray, scores: np.ndarray, output: str, scores_path: str | None,
                  annotated_path: str | None, learned: LearnedScorer | None = None) -> None:
    """Stream the input once more; every output appears only when all of them are complete."""
    from ..phsic.stream import format_scores, write_scored

    names = np.array(["-"] + REASONS[1:], dtype=object)
    explain = annotated_path and learned is not None
    if explain:
        features = job.work.array("features", np.float32).reshape(len(reasons), -1)
        weakest = job.work.array("weakest", np.uint8)
        feature_names = np.array(learned.classifier.expanded_names + ["-"], dtype=object)
    with contextlib.ExitStack() as stack:
        out = stack.enter_context(atomic_output(output, binary=True))
        score_out = stack.enter_context(atomic_output(scores_path)) if scores_path else None
        annotated = stack.enter_context(atomic_output(annotated_path)) if annotated_path else None
        for block in job.raw_lines():
            span = block.rows
            codes = reasons[span]
            keep = codes == PASS
            out.write(block.joined(keep))
            if score_out or annotated:
                texts = format_scores(scores[span])
                if score_out:
                    write_scored(score_out, None, [texts], True)
                if annotated:
                    columns = [texts, np.where(keep, "keep", "drop").tolist(), names[codes].tolist()]
                    if explain:
                        scored = ~np.isnan(scores[span])
                        columns += [feature_names[np.where(scored & ~keep, weakest[span].astype(np.int64), -1)].tolist(),
                                    format_features(features[span], learned.names)]
                    write_scored(annotated, block.texts(), columns, False)


def format_features(features: np.ndarray, names: list[str]) -> list[str]:
    """``name=value`` of every feature, space-separated (``-`` for a line a rule dropped)."""
    return ["-" if np.isnan(row[0]) else " ".join(f"{n}={v:.4g}" for n, v in zip(names, row.tolist()))
            for row in features]


def _pass_bar(bar, name: str):
    bar.reset()
    bar.set_description(name)
    return bar.update
