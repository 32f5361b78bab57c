"""``filter-parallel``'s passes over a parallel corpus, run on an engine (passes.py: what each task computes).

The input is cut into tasks of ``task_lines`` lines, re-read for each pass (and checked not to have
changed); results are reduced in task order, so every engine gives the same bytes. Per-line arrays
(reason codes, hashes, words, line numbers, scores, features) are appended to the run's workspace
and memory-mapped: memory is bounded by the model, a few tasks and those arrays, not by the corpus.
The write pass (pipeline.py) reads the input once more, undecoded (:meth:`FilterJob.raw_lines`).
"""

from __future__ import annotations

import dataclasses
import hashlib
import os
from typing import Callable, Iterator

import numpy as np

from ..engine import Engine
from ..errors import KcoocError
from ..io.readers import RawLines, line_blocks
from ..pairs import open_pairs
from ..phsic.model import PHSIC
from ..phsic.moments import CrossMoments
from .config import FilterConfig
from .corpus import CorpusCounts
from .learning import LearnedScorer
from .passes import FEATURE_BLOCK, FilterContext, Task, features_task, score_task, screen_task, statistics_task
from .rules import PASS
from .sampling import NO_BOUND, Sample
from .sentences import SentenceCounts
from .workspace import Workspace


@dataclasses.dataclass(frozen=True)
class Screening:
    """What the screen pass computed besides the per-line arrays: the PHSIC statistics (feature-space
    kernels), the sample for the incomplete Cholesky pivots (data-space kernels), and while learning the
    scorer the corpus counts and the sample of texts it learns from."""

    moments: CrossMoments | None = None
    sample: Sample | None = None
    counts: CorpusCounts | None = None
    texts: Sample | None = None
    sentences: SentenceCounts | None = None


@dataclasses.dataclass(frozen=True)
class Scores:
    """Per line: the score (NaN where a rule dropped the line) and, if the pass kept them, every
    feature (float32, one row a line) and the index of the weakest one."""

    scores: np.ndarray
    features: np.ndarray | None = None
    weakest: np.ndarray | None = None


class FilterJob:
    """Runs the passes; ``progress(pass_name)`` returns a callback counting processed lines."""

    def __init__(self, cfg: FilterConfig, input_path: str, engine: Engine, workspace: Workspace,
                 progress: Callable[[str], Callable[[int], None]] = lambda name: (lambda n: None)):
        self.cfg, self.input_path, self.engine, self.work = cfg, input_path, engine, workspace
        self.progress = progress
        self.read_stats = None
        self.input_sha256: str | None = None
        self.n = 0

    # -- reading ---------------------------------------------------------------------------------
    def tasks(self, pass_name: str, reasons: np.ndarray | None = None, bound: Callable[[], int] | None = None,
              text_bound: Callable[[], int] | None = None, passing_only: bool = False) -> Iterator[Task]:
        """The input cut into tasks; each pass re-reads it and checks it did not change meanwhile.

        ``passing_only``: a task carries only the rows whose ``reasons`` are PASS (``Task.rows``)
        and their texts, so that no other line crosses to a worker.
        """
        reader = open_pairs(self.input_path, dataclasses.replace(self.cfg.input, block_size=self.cfg.task_lines))
        tick = self.progress(pass_name)
        offset, first_pass = 0, self.input_sha256 is None
        for block in reader:
            src, tgt = block.columns
            n = len(src)
            codes = None if reasons is None else np.array(reasons[offset : offset + n])
            rows = None
            if passing_only:
                rows = np.flatnonzero(codes == PASS)
                src, tgt = [src[i] for i in rows.tolist()], [tgt[i] for i in rows.tolist()]
            yield Task(offset, src, tgt, codes, bound() if bound else NO_BOUND,
                       text_bound() if text_bound else NO_BOUND, rows)
            if first_pass:  # which input line each row is, for writing
                self.work.append("linenos", block.linenos.astype(np.int64))
            offset += n
            tick(n)
        digest = reader.sha256.hexdigest()
        if self.input_sha256 is None:
            self.input_sha256, self.read_stats, self.n = digest, reader.stats, offset
        elif digest != self.input_sha256 or offset != self.n:
            raise KcoocError(f"{self.input_path} changed while it was being filtered; rerun on a stable copy")

    def spooled_tasks(self, reasons: np.ndarray) -> Iterator[Task]:
        """The score pass's tasks with a spool, without reading the input again: the rows of
        each task (``task_lines`` rows, as the screen pass cut them) that pass the rules; their
        texts are in the spool."""
        tick = self.progress("score")
        for offset in range(0, self.n, self.cfg.task_lines):
            codes = np.array(reasons[offset : offset + self.cfg.task_lines])
            yield Task(offset, None, None, codes, rows=np.flatnonzero(codes == PASS))
            tick(codes.size)

    def raw_lines(self) -> Iterator[RawLines]:
        """The input again, undecoded, for writing: blocks of whole lines and the rows among them
        (the lines that the screen pass read as rows: ``linenos``)."""
        linenos = self.work.array("linenos", np.int64)
        digest = hashlib.sha256()
        tick = self.progress("write")
        row = 0
        for first, data in line_blocks(self.input_path, observe=digest.update):
            block = RawLines.of(data, first, linenos, row)
            yield block
            tick(block.ends.size)
            row = block.rows.stop
        if digest.hexdigest() != self.input_sha256:
            raise KcoocError(f"{self.input_path} changed while it was being filtered; rerun on a stable copy")

    def spool(self) -> str | None:
        """Where the screen pass leaves the passing pairs (texts, and encoding where it computes
        one) for the score pass: the work directory, where the engine's workers share this machine's
        disk (local engines), so that the score pass neither reads the input again nor encodes again;
        none elsewhere (Dask), where a worker may get another task in the score pass: there the score
        pass reads the input and encodes the pairs it scores (sending ~1 KB a pair of sparse rows
        there and back would cost more)."""
        if not self.engine.shares_local_disk:
            return None
        os.makedirs(self.work.file("spool"), exist_ok=True)
        return self.work.file("spool")

    # -- passes ----------------------------------------------------------------------------------
    def screen(self, model: PHSIC | None, encoders: list, learn: bool = False) -> Screening:
        """Pass 1: the per-line arrays ``reasons``, ``hashes``, ``words`` and ``linenos``, and the
        :class:`Screening`. ``model`` has its maps for feature-space kernels, none yet for data-space
        ones (None: a model was loaded); ``learn``: count the corpus and sample the texts the learned
        scorer learns from."""
        ctx = FilterContext(self.cfg, model, encoders, spool=self.spool(), learn=learn)
        moments = sample = counts = texts = None
        limit, text_limit = self.cfg.kernel.sample, self.cfg.learn.sample

        def bound():
            return sample.bound(limit) if sample is not None else NO_BOUND

        def text_bound():
            return texts.bound(text_limit) if texts is not None else NO_BOUND

        for result in self.engine.map(screen_task, ctx, self.tasks("screen", bound=bound, text_bound=text_bound)):
            self.work.append("reasons", result.reasons)
            if result.hashes is not None:
                self.work.append("hashes", result.hashes)
            if result.words is not None:
                self.work.append("words", result.words)
            if result.moments is not None:
                moments = result.moments if moments is None else moments.add(result.moments)
            if result.sample is not None:
                sample = result.sample if sample is None else sample.merge(result.sample, limit)
            if result.counts is not None:
                counts = result.counts if counts is None else counts.add(result.counts)
            if result.texts is not None:
                texts = result.texts if texts is None else texts.merge(result.texts, text_limit)
            if result.sentences is not None:
                self.work.append("sentences", result.sentences)
        sentences = SentenceCounts.of(self.work.array("sentences", np.uint64)) if counts is not None else None
        return Screening(moments, sample, counts, texts, sentences)

    def statistics(self, model: PHSIC, encoders: list, rule_codes: np.ndarray) -> CrossMoments | None:
        """Pass 2 (data-space kernels): the PHSIC statistics of the lines whose ``rule_codes`` pass."""
        ctx = FilterContext(self.cfg, model, encoders)
        moments = None
        for result in self.engine.map(statistics_task, ctx, self.tasks("statistics", rule_codes)):
            if result is not None:
                moments = result if moments is None else moments.add(result)
        return moments

    def features(self, model: PHSIC, encoders: list, learned: LearnedScorer, src: list[str], tgt: list[str],
                 originals: tuple | None = None) -> np.ndarray:
        """Every feature of the training examples ``(src, tgt)``, computed by the engine's workers in
        blocks of ``FEATURE_BLOCK`` pairs: each row depends on its pair alone, so the rows are those
        of one block of all the pairs (the classifier's bytes do not depend on the engine)."""
        ctx = FilterContext(self.cfg, model, encoders, learned)
        def block(i: int) -> tuple:
            rows = slice(i, i + FEATURE_BLOCK)
            return src[rows], tgt[rows], tuple(part[rows] for part in originals) if originals else None

        blocks = (block(i) for i in range(0, len(src), FEATURE_BLOCK))
        return np.vstack(list(self.engine.map(features_task, ctx, blocks)))

    def score(self, model: PHSIC, encoders: list, reasons: np.ndarray, learned: LearnedScorer | None = None,
              copies: tuple[np.ndarray, np.ndarray] | None = None, keep_features: bool = False) -> Scores:
        """Pass 3: the scores per line (NaN where a rule failed); with ``learned`` and ``keep_features``
        also every feature and the weakest one. Only the lines that pass are scored; ``copies`` =
        (rows, originals): lines that get the results of an earlier identical line (duplicates, which
        are not scored again)."""
        ctx = FilterContext(self.cfg, model, encoders, learned, self.spool(), keep_features=keep_features)
        width = len(learned.names) if learned else 0
        tasks = self.spooled_tasks(reasons) if ctx.spool else self.tasks("score", reasons, passing_only=True)
        for result in self.engine.map(score_task, ctx, tasks):
            n, rows = result.lines, result.rows
            scores = np.full(n, np.nan)
            scores[rows] = result.scores
            self.work.append("scores", scores)
            if result.features is not None:
                features = np.full((n, width), np.nan, dtype=np.float32)
                features[rows] = result.features
                weakest = np.zeros(n, dtype=np.uint8)
                weakest[rows] = result.weakest
                self.work.append("features", features)
                self.work.append("weakest", weakest)
        scores = self.work.array("scores", np.float64)
        kept = []
        if learned and keep_features:
            kept = [self.work.array("features", np.float32).reshape(len(reasons), width),
                    self.work.array("weakest", np.uint8)]
        if copies is not None:
            rows, originals = copies
            scores[rows] = scores[originals]
            for array in kept:
                step = self.cfg.task_lines  # a bounded copy at a time: memory stays flat in corpus size
                for start in range(0, rows.size, step):
                    array[rows[start : start + step]] = array[originals[start : start + step]]
                array.flush()
        return Scores(scores, *kept)
