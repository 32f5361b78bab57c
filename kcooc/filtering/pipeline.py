"""``filter-parallel``'s pipeline: fit a filter on the corpus (or load one), score every line, select, write.

:func:`fit` screens the corpus (hard rules) and learns PHSIC on the pairs that pass (Yokoi 2018,
§6.3), and for the learned scorer the corpus counts, the alignment tables and the classifier
(learning.py), or loads a saved model; it returns a frozen :class:`FittedFilter`. :func:`run` scores
the lines that pass (duplicates get their first copy's results), selects, writes the outputs
atomically and saves the model, and returns the summary's counts. Which per-pair results the score
pass keeps (every feature and the weakest, for ``Outputs.annotated``) is decided here, once.
"""

from __future__ import annotations

import contextlib
import dataclasses
import logging
from typing import Callable

import numpy as np

from .. import __version__
from ..config import dump, to_dict
from ..encoders import build_pair_encoders
from ..errors import InputError
from ..io.limits import display_name
from ..io.writers import atomic_output
from ..kernels import KERNELS
from ..pairs import open_pairs
from ..phsic.config import PhsicConfig
from ..phsic.model import PHSIC, load_phsic
from ..phsic.stream import format_scores, write_scored
from ..timing import Timer
from . import report as page
from .alignment import AlignmentModel
from .config import FilterConfig
from .damage import misdecoded_sentences
from .extractor import feature_names
from .gate import LONG_SIDE, declared_language_share
from .job import FilterJob, Scores, Screening
from .learning import LearnedScorer, train
from .persistence import load_learned, save_learned
from .priors import PRIORS
from .rules import PASS, REASONS, mark_duplicates, reason_counts
from .select import SELECTION_CODES, score_quantiles, scored_rows, select

LOG = logging.getLogger(__name__)
DOUBTFUL_LANGUAGE_SHARE = 0.5  # long sides identified as their declared language, below which a run warns
MISDECODED_SHARE = 0.1  # sampled sides with misdecoded UTF-8 from which a run warns (real corpora: under 0.5%)

PHSIC_SECTIONS = [field.name for field in dataclasses.fields(PhsicConfig)]


@dataclasses.dataclass(frozen=True)
class FittedFilter:
    """What scores a corpus: PHSIC, the specs of the pair encoders, the learned scorer (None: PHSIC
    ranks), and the seconds each step of fitting took."""

    phsic: PHSIC
    encoders: list
    learned: LearnedScorer | None
    seconds: dict

    def save(self, path: str, cfg: FilterConfig, data_sha256: str) -> None:
        """The learned scorer as a ``filter`` artifact, or PHSIC as a model ``phsic score`` reads."""
        encoders = [encoder.spec() for encoder in build_pair_encoders(*self.encoders)]
        if self.learned is not None:
            save_learned(path, to_dict(cfg), self.phsic, encoders, self.learned, data_sha256)
        else:
            self.phsic.save(path, config={k: v for k, v in to_dict(cfg).items() if k in PHSIC_SECTIONS},
                            encoders=encoders, data_sha256=data_sha256)


@dataclasses.dataclass(frozen=True)
class Outputs:
    """The files a run writes (None: not written): the kept lines, every line's score, every line
    annotated (score, keep/drop, reason; learned scorer: the weakest feature and every feature's
    value), the fitted model, the kept pairs' two sides in files of their own (``src``, ``tgt``:
    the input is two aligned files, read as ``src<TAB>tgt`` lines), and the HTML page of the run
    (``report``: report.py)."""

    kept: str | None
    scores: str | None = None
    annotated: str | None = None
    model: str | None = None
    src: str | None = None
    tgt: str | None = None
    report: str | None = None


def fit(job: FilterJob, model_path: str | None = None) -> FittedFilter:
    """Screen the corpus and learn PHSIC on the pairs that pass the rules, and with the learned
    scorer also the corpus counts, the alignment tables and the classifier; with ``model_path``,
    screen and load that model instead."""
    if model_path:
        return load(job, model_path)
    cfg = job.cfg
    encoders = [to_dict(cfg.encoder), cfg.y_encoder and to_dict(cfg.y_encoder)]
    learn = cfg.scorer == "learned"
    params = {k: v for k, v in to_dict(cfg.kernel).items() if k not in ("name", "sample")}
    model = PHSIC(cfg.kernel.name, seed=cfg.seed, **params)
    seconds, lap = {}, Timer()
    if KERNELS[cfg.kernel.name].feature_space:
        screening = job.screen(model.fit_maps(), encoders, learn)
        seconds["screen"] = lap.seconds()
        moments = screening.moments
    else:
        screening = job.screen(model, encoders, learn)
        seconds["screen"] = lap.seconds()
        if screening.sample is None:
            raise InputError(nothing_passed(job))
        lap = Timer()
        model.fit_maps(*screening.sample.columns)
        moments = job.statistics(model, encoders, job.work.array("reasons", np.uint8))
        seconds["statistics"] = lap.seconds()
    if moments is None:
        raise InputError(nothing_passed(job))
    model.fit_moments(moments)
    learned = None
    if learn:
        lap = Timer()
        learned = learn_scorer(job, model, encoders, screening)
        seconds["train"] = lap.seconds()
    return FittedFilter(model, encoders, learned, seconds)


def learn_scorer(job: FilterJob, model: PHSIC, encoders: list, screening: Screening) -> LearnedScorer:
    """The alignment tables and the classifier, fitted on the screen pass's sample of texts and its
    synthetic noise (scorer.train); the examples' features are computed by the engine's workers."""
    cfg = job.cfg
    names = feature_names(cfg.src_lang, cfg.tgt_lang, cfg.learn.languages)
    alignment = None

    def fit_alignment(src: list[str], tgt: list[str]) -> None:  # local processes: both directions at once
        nonlocal alignment
        alignment = AlignmentModel.fit(src, tgt, cfg.learn.lexical_buckets, job.engine.local_cores)

    def features(src: list[str], tgt: list[str], originals: tuple | None = None) -> np.ndarray:
        return job.features(model, encoders, LearnedScorer(names, screening.counts, alignment,
                                                            sentences=screening.sentences), src, tgt, originals)

    src, tgt = (column.tolist() for column in screening.texts.columns)
    classifier, validation = train(
        features, names, src, tgt, cfg.learn.validation, cfg.learn.regularization, cfg.seed, cfg.learn.language_prior,
        fit=fit_alignment, doubtful_share=cfg.learn.doubtful_share, detectors=cfg.learn.detectors,
        source_language_prior=cfg.learn.source_language_prior, language_weight=cfg.learn.language_weight,
        feature_noise=cfg.learn.feature_noise, feature_noise_tail=cfg.learn.feature_noise_tail,
        typicality_share=cfg.learn.typicality_share, typicality_length_share=cfg.learn.typicality_length_share,
        typicality_word_share=cfg.learn.typicality_word_share, typicality_weight=cfg.learn.typicality_weight,
        noise_kinds=cfg.learn.noise_kinds,
        **{weight: getattr(cfg.learn, weight) for weight in PRIORS.values()})  # each fixed prior's learn.*_weight
    check_decoding(job, src, tgt)
    if cfg.learn.languages:
        check_declared_languages(job, src, tgt)
    return LearnedScorer(names, screening.counts, alignment, classifier, validation, screening.sentences)


def check_decoding(job: FilterJob, src: list[str], tgt: list[str]) -> None:
    """Warn when many sides of the sample are UTF-8 read as Latin-1 or cp1252 (damage.misdecoded_sentences): a
    file decoded with the wrong code page, whose every line the score, calibrated on the corpus itself, takes for
    the corpus's normal."""
    for side, texts in (("sources", src), ("targets", tgt)):
        misdecoded = np.flatnonzero(misdecoded_sentences(texts))
        if misdecoded.size >= MISDECODED_SHARE * len(texts) > 0:
            LOG.warning(f"{display_name(job.input_path)}: {misdecoded.size / len(texts):.0%} of the {len(texts):,} "
                        f"sampled {side} look like UTF-8 read as Latin-1 or cp1252 ({texts[misdecoded[0]][:60]!r}): "
                        "decode the file as UTF-8 first: the score, calibrated on the corpus itself, takes that damage "
                        "for its normal")


def check_declared_languages(job: FilterJob, src: list[str], tgt: list[str]) -> None:
    """Warn when most long sides of the sample are not identified as their declared language: swapped
    columns or a wrong code, which the language gate, calibrated on the corpus itself, cannot see."""
    cfg = job.cfg
    for side, key, texts, code, column in (("sources", "src", src, cfg.src_lang, cfg.input.src_col),
                                           ("targets", "tgt", tgt, cfg.tgt_lang, cfg.input.tgt_col)):
        found = declared_language_share(texts, code) if code else None
        if found is not None and found[0] < DOUBTFUL_LANGUAGE_SHARE:
            share, n, other = found
            LOG.warning(f"{display_name(job.input_path)}: only {share:.0%} of the {n:,} sampled {side} of {LONG_SIDE} "
                        f"characters or more are identified as {code!r}, most of the others as {other!r}: check "
                        f"--{key}-lang and the columns (input.{key}_col is {column})")


def load(job: FilterJob, model_path: str) -> FittedFilter:
    """Screen the corpus and load the model to score it with: a ``filter`` artifact for the learned
    scorer, a PHSIC model with its encoders for ``scorer: phsic``."""
    cfg, lap = job.cfg, Timer()
    learned = None
    if cfg.scorer == "learned":
        header, model, learned = load_learned(model_path, cfg.src_lang, cfg.tgt_lang,
                                              feature_names(cfg.src_lang, cfg.tgt_lang, cfg.learn.languages))
    else:
        header, model = load_phsic(model_path)
        if not isinstance(header["encoders"], list):
            raise InputError(f"{model_path} was trained on precomputed vectors; filter-parallel needs a model with "
                             "its encoders")
    job.screen(None, header["encoders"])
    return FittedFilter(model, header["encoders"], learned, {"screen": lap.seconds()})


def nothing_passed(job: FilterJob) -> str:
    counts = ", ".join(f"{reason} ({count:,})"
                       for reason, count in reason_counts(job.work.array("reasons", np.uint8)).items())
    return f"{job.input_path}: none of the {job.n:,} pairs passed the rules ({counts}): nothing to learn PHSIC from"


def run(job: FilterJob, outputs: Outputs, model_path: str | None = None) -> dict:
    """Fit (or load), score, select, write ``outputs``; returns the summary's counts and seconds."""
    cfg = job.cfg
    fitted = fit(job, model_path)
    explain = outputs.annotated is not None and fitted.learned is not None
    reasons = job.work.array("reasons", np.uint8)
    lap = Timer()
    # duplicates are not scored again: they get their original's results
    copies = mark_duplicates(reasons, job.work.array("hashes", np.uint64)) if cfg.rules.dedup else None
    scores = job.score(fitted.phsic, fitted.encoders, reasons, fitted.learned, copies, keep_features=explain)
    seconds = {**fitted.seconds, "score": lap.seconds()}
    words = job.work.array("words", np.int32) if cfg.select.word_budget is not None else None
    selection = select(scores.scores, reasons, cfg.select, words)
    summary = {"input_sha256": job.input_sha256, "read": job.read_stats.as_dict(), "pairs": job.n,
               "dropped": reason_counts(reasons), "duplicates": copies[0].size if copies else 0, **selection,
               "score_quantiles": score_quantiles(scores.scores, reasons, selection),
               "scorer": cfg.scorer, **({"classifier": fitted.learned.validation} if fitted.learned else {}),
               "hsic": fitted.phsic.hsic(), "seconds": seconds}
    lap = Timer()
    report = None
    if outputs.report:
        plan = page.plan(reasons, cfg.seed, fitted.learned is not None)
        report = (plan.rows(), lambda texts: report_page(job, fitted, summary, reasons, scores, plan, texts))
    write_outputs(job, reasons, scores, outputs, fitted.learned if explain else None, report)
    seconds["write"] = lap.seconds()
    if outputs.model:
        fitted.save(outputs.model, cfg, job.input_sha256)
    return summary


def report_page(job: FilterJob, fitted: FittedFilter, summary: dict, reasons: np.ndarray, scores: Scores,
                plan: page.Plan, texts: dict[int, str]) -> str:
    """The --report page (report.py) of a run: its summary, the score histogram, the sampled lines (the
    texts of ``plan``'s rows, which the write pass read) and, for the learned score, the features of the
    sampled kept and dropped pairs (computed by the engine's workers, as training examples' are), the
    classifier's held-out metrics and what the language gate did."""
    lap = Timer()
    cfg = job.cfg
    indices = column_indices(job)
    pairs = {row: split_columns(line, indices) for row, line in texts.items()}
    rows = scored_rows(reasons)
    values = np.asarray(scores.scores[rows], dtype=np.float64)
    kept = np.asarray(reasons[rows]) == PASS
    quantiles = summary["score_quantiles"]
    edges = page.score_edges(cfg.scorer, quantiles.get("min"), quantiles.get("max"))
    weakest, learned = {}, None
    if fitted.learned is not None:
        learned, weakest = learned_details(job, fitted, reasons, plan, pairs)
    samples, linenos = {}, job.work.array("linenos", np.int64)
    for code, sampled in plan.reasons.items():
        samples[REASONS[code]] = [{"line": int(linenos[row]),
                                   "src": pairs[row][0], "tgt": pairs[row][1], "score": float(scores.scores[row]),
                                   "weakest": weakest.get(row)} for row in sampled.tolist()]
    return page.render({
        "summary": {**summary, "seconds": {**summary["seconds"], "report (before the write pass)": lap.seconds()}},
        "input": display_name(job.input_path), "version": __version__, "seed": cfg.seed, "config": dump(cfg),
        "samples": samples,
        "score_histogram": {"edges": edges.tolist(), "kept": page.histogram(values[kept], edges).tolist(),
                            "dropped": page.histogram(values[~kept], edges).tolist()},
        "learned": learned})


def learned_details(job: FilterJob, fitted: FittedFilter, reasons: np.ndarray, plan: page.Plan,
                    pairs: dict[int, tuple[str, str]]) -> tuple[dict, dict[int, str]]:
    """For the page: each feature's histogram among the sampled kept and dropped pairs, the classifier's
    validation, the gate's factors, and the weakest feature of every sampled scored line."""
    learned = fitted.learned
    classifier = learned.classifier
    scored = [row for rows in plan.reasons.values() for row in rows.tolist() if reasons[row] in SELECTION_CODES]
    ordered = sorted(set(plan.kept.tolist()) | set(plan.dropped.tolist()) | set(scored))
    weakest, F = {}, np.zeros((0, len(learned.names)))
    if ordered:
        F = job.features(fitted.phsic, fitted.encoders, learned, [pairs[r][0] for r in ordered],
                         [pairs[r][1] for r in ordered])
        names = classifier.expanded_names
        weakest = {row: names[k] for row, k in zip(ordered, classifier.weakest(F).tolist())}
    position = {row: i for i, row in enumerate(ordered)}
    kept_F = F[[position[r] for r in plan.kept.tolist()]]
    dropped_F = F[[position[r] for r in plan.dropped.tolist()]]
    features = []
    for j, name in enumerate(learned.names):
        edges = page.feature_edges(np.concatenate([kept_F[:, j], dropped_F[:, j]]))
        features.append({"name": name, "edges": edges.tolist(), "kept": page.histogram(kept_F[:, j], edges).tolist(),
                         "dropped": page.histogram(dropped_F[:, j], edges).tolist()})
    gate, sides = classifier.gate, []
    factors = {label: gate.factors(block) if len(block) else np.zeros((0, len(gate.columns)))
               for label, block in (("kept", kept_F), ("dropped", dropped_F))}
    dropped_weakest = [weakest[r] for r in plan.dropped.tolist()]
    for g, side in enumerate(gate.gated_names):
        shares = {label: (float(np.mean(f[:, g] < 0.5)) if len(f) else None,
                          float(np.mean(f[:, g])) if len(f) else None) for label, f in factors.items()}
        sides.append({"side": side, "prior": float(gate.priors[g]), "kept_low": shares["kept"][0],
                      "dropped_low": shares["dropped"][0], "kept_mean": shares["kept"][1],
                      "dropped_mean": shares["dropped"][1],
                      "weakest_dropped": sum(1 for w in dropped_weakest if w == side)})
    return {"features": features, "kept_sample": len(kept_F), "dropped_sample": len(dropped_F),
            "validation": learned.validation, "gate": {"sides": sides}}, weakest


def column_indices(job: FilterJob) -> list[int]:
    """The 0-based fields of a line that hold the source and the target (header names resolved)."""
    reader = open_pairs(job.input_path, job.cfg.input)
    reader.close()
    return reader.indices


def split_columns(line: str, indices: list[int]) -> tuple[str, str]:
    fields = line.split("\t")
    return tuple(fields[i] if i < len(fields) else "" for i in indices[:2])


def write_outputs(job: FilterJob, reasons: np.ndarray, scores: Scores, outputs: Outputs,
                  explained: LearnedScorer | None = None,
                  report: tuple[np.ndarray, Callable[[dict[int, str]], str]] | None = None) -> None:
    """Stream the input once more; every output appears only when all of them are complete.
    ``explained``: the learned scorer whose features (``scores.features``, ``scores.weakest``) the
    annotated lines show; ``report``: (the rows whose lines the report shows, sorted; what renders the
    page from those lines {row: line}) for ``outputs.report``."""
    names = np.array(["-"] + REASONS[1:], dtype=object)
    if explained is not None:
        weakest_names = np.array(explained.classifier.expanded_names + ["-"], dtype=object)
    with contextlib.ExitStack() as stack:
        out = stack.enter_context(atomic_output(outputs.kept, binary=True)) if outputs.kept else None
        sides = [stack.enter_context(atomic_output(path, binary=True)) for path in (outputs.src, outputs.tgt) if path]
        page_out = stack.enter_context(atomic_output(outputs.report)) if report else None
        wanted, page_lines = (report[0], {}) if report else (np.zeros(0, np.int64), None)
        score_out = stack.enter_context(atomic_output(outputs.scores)) if outputs.scores else None
        annotated = stack.enter_context(atomic_output(outputs.annotated)) if outputs.annotated else None
        for block in job.raw_lines():
            span = block.rows
            codes = reasons[span]
            keep = codes == PASS
            kept = block.joined(keep)
            if page_lines is not None:
                hit = wanted[np.searchsorted(wanted, span.start):np.searchsorted(wanted, span.stop)]
                page_lines.update(zip(hit.tolist(), block.texts_of(hit - span.start)))
            if out is not None:
                out.write(kept)
            if sides:
                for side, data in zip(sides, split_sides(kept)):
                    side.write(data)
            if score_out or annotated:
                texts = format_scores(scores.scores[span])
                if score_out:
                    write_scored(score_out, None, [texts], True)
                if annotated:
                    columns = [texts, np.where(keep, "keep", "drop").tolist(), names[codes].tolist()]
                    if explained is not None:
                        weakest = np.where(~np.isnan(scores.scores[span]) & ~keep,
                                           scores.weakest[span].astype(np.int64), -1)
                        columns += [weakest_names[weakest].tolist(),
                                    format_features(scores.features[span], explained.names)]
                    write_scored(annotated, block.texts(), columns, False)
        if page_out is not None:
            page_out.write(report[1](page_lines))


def split_sides(lines: bytes) -> tuple[bytes, bytes]:
    """``src<TAB>tgt`` lines (one tab each: two aligned files merged) as the two sides' lines."""
    data = np.frombuffer(lines, dtype=np.uint8)
    newline, tab = data == 10, data == 9
    starts = np.zeros(data.size + 1, dtype=np.int8)  # +1 where a line starts, -1 at its tab: inside the source side
    starts[np.flatnonzero(newline) + 1] += 1
    starts[0] += 1
    starts[np.flatnonzero(tab)] -= 1
    source = np.cumsum(starts[:-1]) > 0
    return data[(source & ~tab) | newline].tobytes(), data[~source & ~tab].tobytes()


def format_features(features: np.ndarray, names: list[str]) -> list[str]:
    """``name=value`` of every feature, space-separated (``-`` for a line a rule dropped)."""
    return ["-" if np.isnan(row[0]) else " ".join(f"{n}={v:.4g}" for n, v in zip(names, row.tolist()))
            for row in features]
