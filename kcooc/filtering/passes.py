"""What each pass of ``filter-parallel`` computes on one task, in a worker of any engine.

1. screen: hard rules, pair hashes (dedup), word counts; for feature-space kernels also the PHSIC
   statistics (n, sum phi, sum psi, sum phi psi^T) of the passing pairs; for data-space kernels a
   seeded sample for the incomplete Cholesky pivots. When the learned scorer is being learned, also
   the corpus counts of features.py and the seeded sample of passing pairs' texts the classifier
   learns from. Where the workers share this machine's disk, each task leaves its passing pairs
   (texts, and their encoding where it computed one) in the spool for the score pass.
2. statistics (data-space kernels only): the statistics with the Yokoi 2018, Eq. 34 features.
   (learned scorer: the calling process fits the alignment model and the classifier on the text
   sample and its synthetic noise; the workers compute the examples' features: ``features_task``.)
3. score (after deduplication): PHSIC of every passing pair (Yokoi 2018, Eq. 18 / Eq. 33), or the learned
   probability that it is clean from every feature of the pair (the per-pair ones too: lengths,
   agreement, language ID), and, where the run explains its drops, the features and the weakest one.
   A task carries only the pairs it scores (with a spool, their row numbers: the texts are there, so
   the input is not read again); a duplicate is not scored (nor are its features computed in any pass).

A task's result depends on its lines only, so every engine gives the same bytes; job.py cuts the
input into tasks and reduces their results in task order.
"""

from __future__ import annotations

import dataclasses
from typing import Iterator

import numpy as np

from ..encoders import build_pair_encoders
from ..hashing import pair_hashes
from ..linalg import vstack
from ..phsic.model import PHSIC
from ..phsic.moments import CrossMoments
from ..text import TextStats, lowered, lowered_rows
from .config import FilterConfig
from .corpus import CorpusCounts
from .learning import LearnedScorer
from .rules import PASS, rule_reasons
from .sampling import NO_BOUND, Sample, lowest, sample_priorities
from .sentences import sentence_keys
from .spool import load_spooled, save_spooled, spool_file

FEATURE_BLOCK = 2048  # training examples per task of the features step (40,000 examples: 20 tasks)


@dataclasses.dataclass
class Task:
    """``task_lines`` consecutive pairs starting at row ``offset`` (their rule codes once known)."""

    offset: int
    src: list[str] | None  # None in a score pass that reads the spool
    tgt: list[str] | None
    reasons: np.ndarray | None = None
    sample_bound: int = NO_BOUND
    text_bound: int = NO_BOUND
    rows: np.ndarray | None = None  # score pass: the task's rows to score (src/tgt hold only those)


@dataclasses.dataclass
class Screened:
    reasons: np.ndarray
    hashes: np.ndarray | None
    words: np.ndarray | None
    moments: CrossMoments | None
    sample: Sample | None  # the task's lowest-priority passing pairs, encoded: columns (X, Y)
    counts: CorpusCounts | None = None
    texts: Sample | None = None  # the task's lowest-priority passing pairs: columns (src, tgt)
    sentences: np.ndarray | None = None  # sentences.sentence_keys of the passing pairs' sides


@dataclasses.dataclass
class Scored:
    """Results of a task's scored ``rows`` (of its ``lines``), one entry per scored row."""

    lines: int
    rows: np.ndarray
    scores: np.ndarray
    features: np.ndarray | None = None  # (rows, every feature) float32
    weakest: np.ndarray | None = None  # uint8 index of the feature that lowered the score most


class FilterContext:
    """Config and (partial) model shared by every task of a pass, the context of ``engine.map``: encoders
    are built per worker (``prepare``).

    ``encoders``: the specs of the pair encoders; ``learned``: the learned scorer (features pass: without
    its classifier yet); ``spool``: where the screen pass leaves the passing pairs (None: nowhere);
    ``learn``: the screen pass counts the corpus and samples its texts for the classifier;
    ``keep_features``: the score pass returns every scored pair's features and weakest feature.
    """

    def __init__(self, cfg: FilterConfig, model: PHSIC | None, encoders: list, learned: LearnedScorer | None = None,
                 spool: str | None = None, *, learn: bool = False, keep_features: bool = False):
        self.cfg, self.model, self.encoder_specs, self.learned, self.spool = cfg, model, encoders, learned, spool
        self.learn, self.keep_features = learn, keep_features

    def prepare(self) -> "FilterContext":
        self.encoders = build_pair_encoders(*self.encoder_specs)
        if self.learned is not None:
            self.extractor = self.learned.extractor(self.cfg.src_lang, self.cfg.tgt_lang, self.encoders, self.model)
        return self

    def encode(self, src: list[str], tgt: list[str], rows: np.ndarray, texts: bool = False,
               encoded: tuple | None = None, sides: tuple | None = None) -> Iterator[tuple]:
        """Encoded (X, Y) of ``rows``, in blocks of ``input.block_size`` (and if asked their texts and the
        texts' ``lowered`` code points, made once for the encoders and the caller); ``encoded``: the (X, Y)
        of ``rows`` already (from the spool), cut into the same blocks; ``sides``: the ``lowered`` code
        points of the rows' sources and targets, which an encoder reads instead of lowering the texts again."""
        size = self.cfg.input.block_size
        for start in range(0, rows.size, size):
            chunk = rows[start : start + size]
            s, t = [src[i] for i in chunk], [tgt[i] for i in chunk]
            block_sides = (tuple(lowered_rows(text, start, start + chunk.size) for text in sides) if sides is not None
                           else (lowered(s), lowered(t)) if texts else None)
            if encoded is not None:
                block = (encoded[0][start : start + size], encoded[1][start : start + size])
            elif block_sides is not None:
                block = tuple(encoder.encode_lowered(x, text)
                              for encoder, x, text in zip(self.encoders, (s, t), block_sides))
            else:
                block = (self.encoders[0].encode(s), self.encoders[1].encode(t))
            yield (*block, s, t, *block_sides) if texts else block

    def moments(self, task: Task, rows: np.ndarray, keep: bool = False,
                sides: tuple | None = None) -> tuple[CrossMoments | None, tuple | None]:
        """Statistics of ``rows`` of a task, added block after block (the same order on every engine),
        and with ``keep`` the rows' encoding (X, Y); ``sides``: as ``encode``'s."""
        total, blocks = None, []
        for X, Y in self.encode(task.src, task.tgt, rows, sides=sides):
            block = self.model.block_moments(X, Y)
            total = block if total is None else total.add(block)
            if keep:
                blocks.append((X, Y))
        return total, stack_blocks(blocks) if blocks else None


def screen_task(ctx: FilterContext, task: Task) -> Screened:
    cfg = ctx.cfg
    reasons, words, hashes = [], [], []
    for start in range(0, len(task.src), cfg.input.block_size):  # block by block: memory ~ one block
        src, tgt = task.src[start : start + cfg.input.block_size], task.tgt[start : start + cfg.input.block_size]
        s, t = TextStats(src), TextStats(tgt)
        codes = rule_reasons(src, tgt, s, t, cfg.rules)
        reasons.append(codes)
        if cfg.rules.dedup:
            hashes.append(pair_hashes(s.codes, s.lengths, t.codes, t.lengths))
        words.append({"src": s.words, "tgt": t.words, "both": s.words + t.words}[cfg.select.budget_side])
    reasons = np.concatenate(reasons) if reasons else np.zeros(0, np.uint8)
    words = np.concatenate(words).astype(np.int32) if cfg.select.word_budget is not None and words else None
    passing = np.flatnonzero(reasons == PASS)
    moments = sample = counts = texts = encoded = sentences = None
    src, tgt = [task.src[i] for i in passing.tolist()], [task.tgt[i] for i in passing.tolist()]
    # learning the scorer: each side lowered once, for the corpus counts and the encoders
    lowered_sides = (lowered(src), lowered(tgt)) if ctx.learn and passing.size else None
    if ctx.model is not None and ctx.model.x_map is not None:  # feature-space kernel: train in this pass
        moments, encoded = ctx.moments(task, passing, keep=ctx.spool is not None, sides=lowered_sides)
    elif ctx.model is not None:  # data-space kernel: offer this task's share of the global sample
        priorities = sample_priorities(task.offset + passing, cfg.seed)
        keep = lowest(priorities, task.sample_bound, cfg.kernel.sample)
        blocks = list(ctx.encode(task.src, task.tgt, passing[keep]))
        sample = Sample(priorities[keep], task.offset + passing[keep], stack_blocks(blocks)) if blocks else None
    if lowered_sides is not None:  # learning the scorer: count and sample
        counts = CorpusCounts.of_lowered((src, tgt), lowered_sides, cfg.learn.fluency_buckets,
                                          cfg.learn.word_buckets)
        sentences = np.concatenate([sentence_keys(text, side) for side, text in enumerate(lowered_sides)])
        priorities = sample_priorities(task.offset + passing, cfg.seed)
        keep = lowest(priorities, task.text_bound, cfg.learn.sample)
        texts = Sample(priorities[keep], task.offset + passing[keep],
                       (np.array(src, dtype=object)[keep], np.array(tgt, dtype=object)[keep]))
    if ctx.spool is not None and passing.size:  # the score pass reads the passing pairs from here
        save_spooled(spool_file(ctx.spool, task.offset), passing, src, tgt, encoded)
    hashes = (np.concatenate(hashes) if hashes else np.zeros(0, np.uint64)) if cfg.rules.dedup else None
    return Screened(reasons, hashes, words, moments, sample, counts, texts, sentences)


def statistics_task(ctx: FilterContext, task: Task) -> CrossMoments | None:
    return ctx.moments(task, np.flatnonzero(task.reasons == PASS))[0]


def score_task(ctx: FilterContext, task: Task) -> Scored:
    """Scores of the task's ``rows``: compact arrays, one entry per row. The rows' texts are the
    task's (which holds only those), or with a spool (``task.src`` None) the screen pass's, with
    their encoding if it was kept there."""
    scores = np.empty(task.rows.size)
    src, tgt, encoded = task.src, task.tgt, None
    if src is None and task.rows.size:
        src, tgt, encoded = load_spooled(spool_file(ctx.spool, task.offset), task.rows)
    positions = np.arange(task.rows.size)
    if ctx.learned is None:
        start = 0
        for X, Y in ctx.encode(src, tgt, positions, encoded=encoded):
            scores[start : start + X.shape[0]] = ctx.model.score(X, Y)
            start += X.shape[0]
        return Scored(task.reasons.size, task.rows, scores)
    classifier = ctx.learned.classifier
    features = np.empty((task.rows.size, len(ctx.learned.names)), dtype=np.float32) if ctx.keep_features else None
    weakest = np.empty(task.rows.size, dtype=np.uint8) if ctx.keep_features else None
    start = 0
    for X, Y, src_block, tgt_block, *texts in ctx.encode(src, tgt, positions, texts=True, encoded=encoded):
        block = slice(start, start + X.shape[0])
        texts = tuple(texts)  # each side lowered once, for the encoders and every feature
        pair = ctx.extractor.pair(src_block, tgt_block, TextStats(src_block), TextStats(tgt_block), texts)
        F = np.hstack([pair, ctx.extractor.statistical(src_block, tgt_block, X, Y, texts=texts)])
        if ctx.keep_features:
            features[block] = F
            scores[block], weakest[block] = classifier.predict_with_reasons(F)
        else:
            scores[block] = classifier.predict_proba(F)
        start += X.shape[0]
    return Scored(task.reasons.size, task.rows, scores, features, weakest)


def features_task(ctx: FilterContext, pairs: tuple[list[str], list[str], tuple | None]) -> np.ndarray:
    """Every feature of a block of training examples (texts, and the originals of synthetic ones), one row per pair."""
    return ctx.extractor(*pairs)


def stack_blocks(blocks: list[tuple]) -> tuple:
    return vstack([b[0] for b in blocks]), vstack([b[1] for b in blocks])
