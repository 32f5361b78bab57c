"""The passes of ``filter-parallel`` over a parallel corpus, on any engine.

1. screen: hard rules, pair hashes (dedup) and word counts for every line; for feature-space
   kernels also the PHSIC statistics (n, sum phi, sum psi, sum phi psi^T) of the passing pairs;
   for data-space kernels a seeded sample for the incomplete Cholesky pivots.
2. statistics (data-space kernels only): the statistics with the Eq. 34 features.
3. score: PHSIC of every passing pair (Eq. 18 / Eq. 33), into a float64 array on disk.
4. write (in the calling process): the kept lines, ``--scores`` and ``--annotated``.

The input is cut into tasks of ``task_lines`` lines; a task's result depends on its lines only
and results are reduced in task order, so every engine gives the same bytes. Per-line arrays
(reason codes, hashes, words, scores) live in files in a work directory and are memory-mapped:
memory is bounded by the model, a few tasks and those arrays, not by the corpus.
"""

from __future__ import annotations

import dataclasses
import hashlib
import os
from typing import Callable, Iterator

import numpy as np

from ..cliutils import open_pairs
from ..config import to_dict
from ..encoders import build_pair_encoders, mix64
from ..engine import Context, Engine
from ..errors import KcoocError
from ..kernels import KERNELS
from ..linalg import vstack
from ..phsic.model import PHSIC, CrossMoments
from ..text import TextStats
from .config import FilterConfig
from .rules import CODE, PASS, REASONS, rule_reasons


@dataclasses.dataclass
class Task:
    """``task_lines`` consecutive pairs starting at row ``offset`` (their rule codes once known)."""

    offset: int
    src: list[str]
    tgt: list[str]
    reasons: np.ndarray | None = None
    sample_bound: int = 2**64 - 1


@dataclasses.dataclass
class Screened:
    reasons: np.ndarray
    hashes: np.ndarray | None
    words: np.ndarray | None
    moments: CrossMoments | None
    sample: tuple | None  # (priorities, rows, X, Y) of the task's lowest-priority passing pairs


class FilterContext(Context):
    """Config and (partial) model shared by every task of a pass; encoders are built per worker."""

    def __init__(self, cfg: FilterConfig, model: PHSIC | None, encoder_specs: list[dict] | None = None):
        super().__init__()
        self.cfg, self.model = cfg, model
        self.encoder_specs = encoder_specs or [to_dict(cfg.encoder), cfg.y_encoder and to_dict(cfg.y_encoder)]

    def prepare(self) -> "FilterContext":
        self.encoders = build_pair_encoders(*self.encoder_specs)
        return self

    def encode(self, src: list[str], tgt: list[str], rows: np.ndarray) -> Iterator[tuple]:
        """Encoded (X, Y) of ``rows``, in blocks of ``input.block_size``."""
        size = self.cfg.input.block_size
        for start in range(0, rows.size, size):
            chunk = rows[start : start + size]
            yield (self.encoders[0].encode([src[i] for i in chunk]), self.encoders[1].encode([tgt[i] for i in chunk]))

    def moments(self, task: Task, rows: np.ndarray) -> CrossMoments | None:
        """Statistics of ``rows`` of a task, added block after block (the same order on every engine)."""
        total = None
        for X, Y in self.encode(task.src, task.tgt, rows):
            block = self.model.block_moments(X, Y)
            total = block if total is None else total.merge(block)
        return total


def pair_hashes(src: list[str], tgt: list[str]) -> np.ndarray:
    """A 64-bit BLAKE2b digest of each pair (exact-duplicate detection)."""
    digests = (hashlib.blake2b(f"{s}\t{t}".encode("utf-8", "surrogatepass"), digest_size=8).digest()
               for s, t in zip(src, tgt))
    return np.frombuffer(b"".join(digests), dtype="<u8").copy()


def sample_priorities(rows: np.ndarray, seed: int) -> np.ndarray:
    """A seeded pseudo-random priority per global row: the sample is the rows with the smallest."""
    return mix64(rows.astype(np.uint64) ^ mix64(np.uint64(seed) + np.uint64(0x9E3779B97F4A7C15)))


def screen_task(ctx: FilterContext, task: Task) -> Screened:
    cfg = ctx.cfg
    reasons, words = [], []
    for start in range(0, len(task.src), cfg.input.block_size):  # block by block: memory ~ one block
        src, tgt = task.src[start : start + cfg.input.block_size], task.tgt[start : start + cfg.input.block_size]
        s, t = TextStats(src), TextStats(tgt)
        reasons.append(rule_reasons(src, tgt, s, t, cfg.rules))
        words.append({"src": s.words, "tgt": t.words, "both": s.words + t.words}[cfg.select.budget_side])
    reasons = np.concatenate(reasons) if reasons else np.zeros(0, np.uint8)
    words = np.concatenate(words).astype(np.int32) if cfg.select.word_budget is not None and words else None
    passing = np.flatnonzero(reasons == PASS)
    moments = sample = None
    if ctx.model is not None and ctx.model.x_map is not None:  # feature-space kernel: train in this pass
        moments = ctx.moments(task, passing)
    elif ctx.model is not None:  # data-space kernel: offer this task's share of the global sample
        priorities = sample_priorities(task.offset + passing, cfg.seed)
        keep = priorities < np.uint64(task.sample_bound)
        passing, priorities = passing[keep], priorities[keep]
        if cfg.kernel.sample is not None and passing.size > cfg.kernel.sample:
            best = np.sort(np.argpartition(priorities, cfg.kernel.sample - 1)[: cfg.kernel.sample])
            passing, priorities = passing[best], priorities[best]
        encoded = list(ctx.encode(task.src, task.tgt, passing))
        sample = (priorities, task.offset + passing, *stack_blocks(encoded)) if encoded else None
    return Screened(reasons, pair_hashes(task.src, task.tgt) if cfg.rules.dedup else None, words, moments, sample)


def statistics_task(ctx: FilterContext, task: Task) -> CrossMoments | None:
    return ctx.moments(task, np.flatnonzero(task.reasons == PASS))


def score_task(ctx: FilterContext, task: Task) -> np.ndarray:
    scores = np.full(len(task.src), np.nan)
    rows = np.flatnonzero(task.reasons == PASS)
    start = 0
    for X, Y in ctx.encode(task.src, task.tgt, rows):
        scores[rows[start : start + X.shape[0]]] = ctx.model.score(X, Y)
        start += X.shape[0]
    return scores


def stack_blocks(blocks: list[tuple]) -> tuple:
    return vstack([b[0] for b in blocks]), vstack([b[1] for b in blocks])


class Workspace:
    """Per-line arrays in files of a private directory: appended pass by pass, then memory-mapped."""

    def __init__(self, path: str):
        self.path = path
        self._files: dict[str, object] = {}

    def file(self, name: str) -> str:
        return os.path.join(self.path, name)

    def append(self, name: str, array: np.ndarray) -> None:
        if name not in self._files:
            self._files[name] = open(self.file(name), "wb")
        self._files[name].write(np.ascontiguousarray(array).tobytes())

    def array(self, name: str, dtype) -> np.ndarray:
        """The appended array, memory-mapped read-write (an empty file gives an empty array)."""
        if name in self._files:
            self._files.pop(name).close()
        if os.path.getsize(self.file(name)) == 0:
            return np.zeros(0, dtype=dtype)
        return np.memmap(self.file(name), dtype=dtype, mode="r+")


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
    def tasks(self, pass_name: str, reasons: np.ndarray | None = None, bound: Callable[[], int] | None = None
              ) -> Iterator[Task]:
        """The input cut into tasks; each pass re-reads it and checks it did not change meanwhile."""
        reader = open_pairs(self.input_path, dataclasses.replace(self.cfg.input, block_size=self.cfg.task_lines))
        tick = self.progress(pass_name)
        offset = 0
        for block in reader:
            src, tgt = block.columns
            n = len(src)
            yield Task(offset, src, tgt, None if reasons is None else np.array(reasons[offset : offset + n]),
                       bound() if bound else 2**64 - 1)
            offset += n
            tick(n)
        digest = reader.sha256.hexdigest()
        if self.input_sha256 is None:
            self.input_sha256, self.read_stats, self.n = digest, reader.stats, offset
        elif digest != self.input_sha256 or offset != self.n:
            raise KcoocError(f"{self.input_path} changed while it was being filtered; rerun on a stable copy")

    def lines(self) -> Iterator[list[str]]:
        """The raw input lines again, block by block, for writing."""
        reader = open_pairs(self.input_path, dataclasses.replace(self.cfg.input, block_size=self.cfg.task_lines))
        tick = self.progress("write")
        for block in reader:
            yield block.lines
            tick(len(block.lines))
        if reader.sha256.hexdigest() != self.input_sha256:
            raise KcoocError(f"{self.input_path} changed while it was being filtered; rerun on a stable copy")

    # -- passes ----------------------------------------------------------------------------------
    def screen(self, model: PHSIC | None, encoder_specs: list[dict] | None) -> tuple[CrossMoments | None, tuple | None]:
        """Pass 1. ``model`` has its maps for feature-space kernels, none yet for data-space ones."""
        ctx = FilterContext(self.cfg, model, encoder_specs)
        moments, sample = None, None
        limit = self.cfg.kernel.sample
        bound = lambda: int(sample[0].max()) if sample is not None and limit and sample[0].size >= limit else 2**64 - 1  # noqa: E731
        for result in self.engine.map(screen_task, ctx, self.tasks("screen", bound=bound)):
            self.work.append("reasons", result.reasons)
            if result.hashes is not None:
                self.work.append("hashes", result.hashes)
            if result.words is not None:
                self.work.append("words", result.words)
            if result.moments is not None:
                moments = result.moments if moments is None else moments.merge(result.moments)
            if result.sample is not None:
                sample = result.sample if sample is None else merge_samples(sample, result.sample, limit)
        return moments, sample

    def statistics(self, model: PHSIC, rule_codes: np.ndarray, encoder_specs) -> CrossMoments | None:
        ctx = FilterContext(self.cfg, model, encoder_specs)
        moments = None
        for result in self.engine.map(statistics_task, ctx, self.tasks("statistics", rule_codes)):
            if result is not None:
                moments = result if moments is None else moments.merge(result)
        return moments

    def score(self, model: PHSIC, rule_codes: np.ndarray, encoder_specs) -> np.ndarray:
        ctx = FilterContext(self.cfg, model, encoder_specs)
        for scores in self.engine.map(score_task, ctx, self.tasks("score", rule_codes)):
            self.work.append("scores", scores)
        return self.work.array("scores", np.float64)


def merge_samples(a: tuple, b: tuple, limit: int | None) -> tuple:
    """The ``limit`` lowest-priority rows of two samples (ties by row), in row order."""
    priorities, rows = np.concatenate([a[0], b[0]]), np.concatenate([a[1], b[1]])
    X, Y = stack_blocks([(a[2], a[3]), (b[2], b[3])])
    keep = np.lexsort((rows, priorities))[:limit] if limit else np.arange(rows.size)
    keep = keep[np.argsort(rows[keep], kind="stable")]
    return priorities[keep], rows[keep], X[keep], Y[keep]


def mark_duplicates(reasons: np.ndarray, hashes: np.ndarray) -> int:
    """Mark every passing pair whose hash an earlier passing pair has; returns how many."""
    rows = np.flatnonzero(reasons == PASS)
    order = rows[np.argsort(hashes[rows], kind="stable")]
    sorted_hashes = hashes[order]
    repeated = order[1:][sorted_hashes[1:] == sorted_hashes[:-1]]
    reasons[repeated] = CODE["duplicate"]
    return int(repeated.size)


def reason_counts(reasons: np.ndarray) -> dict[str, int]:
    counts = np.bincount(reasons, minlength=len(REASONS))
    return {name: int(count) for name, count in zip(REASONS, counts) if count and name != "pass"}


def is_feature_space(kernel: str) -> bool:
    return KERNELS[kernel].feature_space
