"""The passes of ``filter-parallel`` over a parallel corpus, on any engine.

1. screen: hard rules, pair hashes (dedup), word counts and the line number of every row; for
   feature-space kernels also the PHSIC statistics (n, sum phi, sum psi, sum phi psi^T) of the
   passing pairs; for data-space kernels a seeded sample for the incomplete Cholesky pivots. With
   the learned scorer also the corpus counts of features.py and the seeded sample of passing
   pairs' texts the classifier learns from. On local engines each task leaves its passing pairs
   (texts, and their encoding where it computed one) in a spool for the score pass.
2. statistics (data-space kernels only): the statistics with the Yokoi 2018, Eq. 34 features.
   (learned scorer: the calling process fits the alignment model and the classifier on the text
   sample and its synthetic noise; the workers compute the examples' features.)
3. score (after deduplication): PHSIC of every passing pair (Yokoi 2018, Eq. 18 / Eq. 33), or the learned
   probability that it is clean from every feature of the pair (the per-pair ones too: lengths,
   agreement, language ID), into a float64 array on disk (with the features and the weakest one
   per line); a task carries only the pairs it scores (on local engines, their row numbers: the
   texts are in the spool, so the input is not read again), and a duplicate gets the results of
   its first copy instead of being scored again (nor are its features computed in any pass).
4. write (in the calling process): the kept lines, cut out of the undecoded input by line number,
   ``--scores`` and ``--annotated``.

The input is cut into tasks of ``task_lines`` lines; a task's result depends on its lines only
and results are reduced in task order, so every engine gives the same bytes. Per-line arrays
(reason codes, hashes, words, scores) live in files in a work directory and are memory-mapped:
memory is bounded by the model, a few tasks and those arrays, not by the corpus.
"""

from __future__ import annotations

import dataclasses
import hashlib
import os
import shutil
from typing import Callable, Iterator

import numpy as np
import scipy.sparse as sp

from ..config import to_dict
from ..encoders import build_pair_encoders, mix64
from ..engine import Context, Engine
from ..errors import KcoocError
from ..kernels import KERNELS
from ..linalg import vstack
from ..io import line_blocks
from ..pairs import open_pairs
from ..phsic.model import PHSIC, CrossMoments
from ..text import TextStats
from .config import FilterConfig
from .alignment import AlignmentModel
from .features import CorpusCounts
from .rules import CODE, PASS, REASONS, rule_reasons
from .scorer import FeatureExtractor, PairClassifier


FEATURE_BLOCK = 2048  # training examples per task of the features step (40,000 examples: 20 tasks)


@dataclasses.dataclass
class Task:
    """``task_lines`` consecutive pairs starting at row ``offset`` (their rule codes once known)."""

    offset: int
    src: list[str] | None  # None in a score pass that reads the spool
    tgt: list[str] | None
    reasons: np.ndarray | None = None
    sample_bound: int = 2**64 - 1
    text_bound: int = 2**64 - 1
    rows: np.ndarray | None = None  # score pass: the task's rows to score (src/tgt hold only those)


@dataclasses.dataclass
class Screened:
    reasons: np.ndarray
    hashes: np.ndarray | None
    words: np.ndarray | None
    moments: CrossMoments | None
    sample: tuple | None  # (priorities, rows, X, Y) of the task's lowest-priority passing pairs
    counts: CorpusCounts | None = None
    texts: tuple | None = None  # (priorities, rows, src, tgt) of the lowest-priority passing pairs


@dataclasses.dataclass
class Scored:
    """Results of a task's scored ``rows`` (of its ``lines``), one entry per scored row."""

    lines: int
    rows: np.ndarray
    scores: np.ndarray
    features: np.ndarray | None = None  # (rows, every feature) float32
    weakest: np.ndarray | None = None  # uint8 index of the feature that lowered the score most


@dataclasses.dataclass
class LearnedScorer:
    """What the learned score needs besides PHSIC: feature names, corpus counts, alignment model
    and classifier."""

    names: list[str]
    counts: CorpusCounts | None = None
    alignment: AlignmentModel | None = None
    classifier: PairClassifier | None = None
    validation: dict | None = None


class FilterContext(Context):
    """Config and (partial) model shared by every task of a pass; encoders are built per worker."""

    def __init__(self, cfg: FilterConfig, model: PHSIC | None, encoder_specs: list[dict] | None = None,
                 learned: LearnedScorer | None = None, spool: str | None = None):
        super().__init__()
        self.cfg, self.model, self.learned, self.spool = cfg, model, learned, spool
        self.encoder_specs = encoder_specs or [to_dict(cfg.encoder), cfg.y_encoder and to_dict(cfg.y_encoder)]

    def prepare(self) -> "FilterContext":
        self.encoders = build_pair_encoders(*self.encoder_specs)
        if self.learned is not None:
            from .features import CorpusModel

            corpus = CorpusModel(self.learned.counts) if self.learned.counts is not None else None
            self.extractor = FeatureExtractor(self.learned.names, self.cfg.src_lang, self.cfg.tgt_lang,
                                              self.encoders, self.model, corpus, self.learned.alignment)
        return self

    def encode(self, src: list[str], tgt: list[str], rows: np.ndarray, texts: bool = False,
               encoded: tuple | None = None) -> Iterator[tuple]:
        """Encoded (X, Y) of ``rows``, in blocks of ``input.block_size`` (and their texts if asked);
        ``encoded``: the (X, Y) of ``rows`` already (from the spool), cut into the same blocks."""
        size = self.cfg.input.block_size
        for start in range(0, rows.size, size):
            chunk = rows[start : start + size]
            s, t = [src[i] for i in chunk], [tgt[i] for i in chunk]
            if encoded is None:
                block = (self.encoders[0].encode(s), self.encoders[1].encode(t))
            else:
                block = (encoded[0][start : start + size], encoded[1][start : start + size])
            yield (*block, s, t) if texts else block

    def moments(self, task: Task, rows: np.ndarray, keep: bool = False) -> tuple[CrossMoments | None, tuple | None]:
        """Statistics of ``rows`` of a task, added block after block (the same order on every engine),
        and with ``keep`` the rows' encoding (X, Y)."""
        total, blocks = None, []
        for X, Y in self.encode(task.src, task.tgt, rows):
            block = self.model.block_moments(X, Y)
            total = block if total is None else total.add(block)
            if keep:
                blocks.append((X, Y))
        return total, stack_blocks(blocks) if blocks else None


def spool_file(directory: str, offset: int) -> str:
    return os.path.join(directory, str(offset))


def save_spooled(path: str, rows: np.ndarray, src: list[str], tgt: list[str], encoded: tuple | None = None) -> None:
    """A task's ``rows`` (those that pass the rules) for the score pass on the same machine, in the
    directory ``path``: their texts (UTF-8, one a line: a column holds no newline) and, if given,
    their encoding (X, Y: sparse CSR or dense) as .npy files, which the score pass memory-maps to
    read only the rows it scores."""
    os.makedirs(path + ".part")
    arrays = {"rows": rows}
    for name, M in zip(("x", "y"), encoded or ()):
        if sp.issparse(M):  # hashed counts and feature indices fit in small integers: half the bytes written
            arrays.update({f"{name}_data": narrowed(M.data), f"{name}_indices": narrowed(M.indices),
                           f"{name}_indptr": M.indptr, f"{name}_shape": np.array(M.shape),
                           f"{name}_dtypes": np.array([M.data.dtype.str, M.indices.dtype.str])})
        else:
            arrays[f"{name}_dense"] = M
    for name, array in arrays.items():
        np.save(os.path.join(path + ".part", name + ".npy"), array, allow_pickle=False)
    for name, texts in (("src", src), ("tgt", tgt)):
        with open(os.path.join(path + ".part", name + ".txt"), "wb") as f:
            f.write("\n".join(texts).encode("utf-8"))
    os.replace(path + ".part", path)


def narrowed(array: np.ndarray) -> np.ndarray:
    """``array`` in the smallest of int8, uint8, int16, uint16 whose values convert back to the same
    bits, else ``array`` itself."""
    for dtype in (np.int8, np.uint8, np.int16, np.uint16):
        info = np.iinfo(dtype)
        if array.size and not (info.min <= array.min() and array.max() <= info.max):
            continue
        small = array.astype(dtype)
        if np.array_equal(small.astype(array.dtype).view(np.uint8), array.view(np.uint8)):
            return small
    return array


def load_spooled(path: str, rows: np.ndarray) -> tuple[list[str], list[str], tuple | None]:
    """(src, tgt, (X, Y) or None) of ``rows`` (a subset of the saved rows) from ``save_spooled``'s
    directory, which is then removed."""
    load = lambda name: np.load(os.path.join(path, name + ".npy"), mmap_mode="r", allow_pickle=False)  # noqa: E731
    positions = np.searchsorted(load("rows"), rows)
    texts = []
    for name in ("src", "tgt"):
        with open(os.path.join(path, name + ".txt"), "rb") as f:
            lines = f.read().decode("utf-8").split("\n")
        texts.append([lines[i] for i in positions.tolist()])
    sides = []
    for name in ("x", "y"):
        if os.path.exists(os.path.join(path, f"{name}_dense.npy")):
            sides.append(np.array(load(f"{name}_dense")[positions]))
        elif os.path.exists(os.path.join(path, f"{name}_indptr.npy")):
            indptr, (data_type, index_type) = load(f"{name}_indptr"), load(f"{name}_dtypes").tolist()
            starts, lengths = indptr[positions], indptr[positions + 1] - indptr[positions]
            new_indptr = np.concatenate([[0], np.cumsum(lengths)])
            take = np.repeat(starts - new_indptr[:-1], lengths) + np.arange(new_indptr[-1])
            sides.append(sp.csr_matrix((load(f"{name}_data")[take].astype(data_type),
                                        load(f"{name}_indices")[take].astype(index_type), new_indptr),
                                       shape=(rows.size, int(load(f"{name}_shape")[1]))))
    shutil.rmtree(path)
    return texts[0], texts[1], tuple(sides) if sides else None


def pair_hashes(src: list[str], tgt: list[str]) -> np.ndarray:
    """A 64-bit BLAKE2b digest of each pair (exact-duplicate detection)."""
    digests = (hashlib.blake2b(f"{s}\t{t}".encode("utf-8", "surrogatepass"), digest_size=8).digest()
               for s, t in zip(src, tgt))
    return np.frombuffer(b"".join(digests), dtype="<u8").copy()


def sample_priorities(rows: np.ndarray, seed: int) -> np.ndarray:
    """A seeded pseudo-random priority per global row: the sample is the rows with the smallest."""
    return mix64(rows.astype(np.uint64) ^ mix64(np.uint64(seed) + np.uint64(0x9E3779B97F4A7C15)))


def lowest(priorities: np.ndarray, bound: int, limit: int | None) -> np.ndarray:
    """Positions of the ``limit`` lowest priorities under ``bound``, in their original order."""
    keep = np.flatnonzero(priorities < np.uint64(bound))
    if limit is not None and keep.size > limit:
        keep = np.sort(keep[np.argpartition(priorities[keep], limit - 1)[:limit]])
    return keep


def screen_task(ctx: FilterContext, task: Task) -> Screened:
    cfg = ctx.cfg
    reasons, words = [], []
    for start in range(0, len(task.src), cfg.input.block_size):  # block by block: memory ~ one block
        src, tgt = task.src[start : start + cfg.input.block_size], task.tgt[start : start + cfg.input.block_size]
        s, t = TextStats(src), TextStats(tgt)
        codes = rule_reasons(src, tgt, s, t, cfg.rules)
        reasons.append(codes)
        words.append({"src": s.words, "tgt": t.words, "both": s.words + t.words}[cfg.select.budget_side])
    reasons = np.concatenate(reasons) if reasons else np.zeros(0, np.uint8)
    words = np.concatenate(words).astype(np.int32) if cfg.select.word_budget is not None and words else None
    passing = np.flatnonzero(reasons == PASS)
    moments = sample = counts = texts = encoded = None
    if ctx.model is not None and ctx.model.x_map is not None:  # feature-space kernel: train in this pass
        moments, encoded = ctx.moments(task, passing, keep=ctx.spool is not None)
    elif ctx.model is not None:  # data-space kernel: offer this task's share of the global sample
        priorities = sample_priorities(task.offset + passing, cfg.seed)
        keep = lowest(priorities, task.sample_bound, cfg.kernel.sample)
        blocks = list(ctx.encode(task.src, task.tgt, passing[keep]))
        sample = (priorities[keep], task.offset + passing[keep], *stack_blocks(blocks)) if blocks else None
    src, tgt = [task.src[i] for i in passing.tolist()], [task.tgt[i] for i in passing.tolist()]
    if ctx.learned is not None and passing.size and ctx.learned.classifier is None:  # learning: count and sample
        counts = CorpusCounts.count(src, tgt, cfg.learn.fluency_buckets)
        priorities = sample_priorities(task.offset + passing, cfg.seed)
        keep = lowest(priorities, task.text_bound, cfg.learn.sample)
        texts = (priorities[keep], task.offset + passing[keep], np.array(src, dtype=object)[keep],
                 np.array(tgt, dtype=object)[keep])
    if ctx.spool is not None and passing.size:  # the score pass reads the passing pairs from here
        save_spooled(spool_file(ctx.spool, task.offset), passing, src, tgt, encoded)
    return Screened(reasons, pair_hashes(task.src, task.tgt) if cfg.rules.dedup else None, words, moments, sample,
                    counts, texts)


def statistics_task(ctx: FilterContext, task: Task) -> CrossMoments | None:
    return ctx.moments(task, np.flatnonzero(task.reasons == PASS))[0]


def score_task(ctx: FilterContext, task: Task) -> Scored:
    """Scores of the task's ``rows``: compact arrays, one entry per row. The rows' texts are the
    task's (which holds only those), or on local engines (``task.src`` None) the screen pass's spool,
    with their encoding if it was kept there."""
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
    features = np.empty((task.rows.size, len(ctx.learned.names)), dtype=np.float32)
    weakest = np.empty(task.rows.size, dtype=np.uint8)
    start = 0
    for X, Y, src_block, tgt_block in ctx.encode(src, tgt, positions, texts=True, encoded=encoded):
        block = slice(start, start + X.shape[0])
        pair = ctx.extractor.pair(src_block, tgt_block, TextStats(src_block), TextStats(tgt_block))
        F = np.hstack([pair, ctx.extractor.statistical(src_block, tgt_block, X, Y)])
        features[block] = F
        scores[block], weakest[block] = ctx.learned.classifier.predict_with_reasons(F)
        start += X.shape[0]
    return Scored(task.reasons.size, task.rows, scores, features, weakest)


def features_task(ctx: FilterContext, pairs: tuple[list[str], list[str]]) -> np.ndarray:
    """Every feature of a block of training examples (texts), one row per pair."""
    return ctx.extractor(*pairs)


def stack_blocks(blocks: list[tuple]) -> tuple:
    return vstack([b[0] for b in blocks]), vstack([b[1] for b in blocks])


@dataclasses.dataclass
class RawLines:
    """Whole input lines, undecoded: ``data`` (every line ends in a newline), the position of each
    line's newline (``ends``), and the block's rows (a slice of every row, ``rows``) with their line
    in the block (``lines``)."""

    data: np.ndarray
    ends: np.ndarray
    rows: slice
    lines: np.ndarray

    @classmethod
    def of(cls, data: bytes, first: int, linenos: np.ndarray, row: int) -> "RawLines":
        """The block ``data`` of whole lines from line ``first`` on; ``linenos``: every row's line
        number, of which ``row`` is the first in this block."""
        if not data.endswith(b"\n"):  # the file's last line
            data += b"\n"
        array = np.frombuffer(data, dtype=np.uint8)
        ends = np.flatnonzero(array == 10)
        stop = int(np.searchsorted(linenos, first + ends.size))
        return cls(array, ends, slice(row, stop), linenos[row:stop] - first)

    def _spans(self, lines: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """(start, stop) of the text of ``lines`` (indices): up to the newline, less a carriage
        return before it, which the reader strips too."""
        ends = self.ends[lines]
        starts = np.where(lines > 0, self.ends[lines - 1] + 1, 0)
        return starts, ends - ((ends > starts) & (self.data[ends - 1] == 13))

    def joined(self, keep: np.ndarray) -> bytes:
        """The rows where ``keep``, each as the reader read it followed by a newline: the bytes of
        ``"".join(line + "\\n" for line in kept lines)``."""
        lines = self.lines[keep]
        take = np.zeros(self.ends.size, dtype=bool)
        take[lines] = True
        mask = np.repeat(take, np.diff(self.ends, prepend=-1))  # whole lines, newline included
        stops = self._spans(lines)[1]
        mask[stops[stops < self.ends[lines]]] = False  # less their carriage returns
        return self.data[mask].tobytes()

    def texts(self) -> list[str]:
        """Each row's line as the reader decoded it."""
        data = self.data.tobytes()
        return [data[a:b].decode("utf-8") for a, b in zip(*(x.tolist() for x in self._spans(self.lines)))]


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
            yield Task(offset, src, tgt, codes, bound() if bound else 2**64 - 1,
                       text_bound() if text_bound else 2**64 - 1, rows)
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
        """The score pass's tasks on local engines, without reading the input again: the rows of
        each task (``task_lines`` rows, as the screen pass cut them) that pass the rules; their
        texts are in the spool."""
        tick = self.progress("score")
        for offset in range(0, self.n, self.cfg.task_lines):
            codes = np.array(reasons[offset : offset + self.cfg.task_lines])
            yield Task(offset, None, None, codes, rows=np.flatnonzero(codes == PASS))
            tick(codes.size)

    def raw_lines(self) -> Iterator["RawLines"]:
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
        one) for the score pass: the work directory, on local engines (every worker sees it), so
        that the score pass neither reads the input again nor encodes again; none on Dask, whose
        workers may not share a disk and may get another task in the score pass: there the score
        pass reads the input and encodes the pairs it scores (sending ~1 KB a pair of sparse rows
        there and back would cost more)."""
        if self.engine.name == "dask":
            return None
        os.makedirs(self.work.file("spool"), exist_ok=True)
        return self.work.file("spool")

    # -- passes ----------------------------------------------------------------------------------
    def screen(self, model: PHSIC | None, encoder_specs: list[dict] | None, learned: LearnedScorer | None = None
               ) -> tuple[CrossMoments | None, tuple | None, tuple | None]:
        """Pass 1: (PHSIC statistics, ICD sample, text sample). ``model`` has its maps for
        feature-space kernels, none yet for data-space ones. With ``learned`` (its feature names
        set), fills in its corpus counts and draws the text sample (priorities, rows, src, tgt)."""
        ctx = FilterContext(self.cfg, model, encoder_specs, learned, self.spool())
        moments, sample, texts = None, None, None
        limit, text_limit = self.cfg.kernel.sample, self.cfg.learn.sample
        bound = lambda: int(sample[0].max()) if sample is not None and limit and sample[0].size >= limit else 2**64 - 1  # noqa: E731
        text_bound = lambda: int(texts[0].max()) if texts is not None and texts[0].size >= text_limit else 2**64 - 1  # noqa: E731
        for result in self.engine.map(screen_task, ctx, self.tasks("screen", bound=bound, text_bound=text_bound)):
            self.work.append("reasons", result.reasons)
            if result.hashes is not None:
                self.work.append("hashes", result.hashes)
            if result.words is not None:
                self.work.append("words", result.words)
            if result.moments is not None:
                moments = result.moments if moments is None else moments.add(result.moments)
            if result.sample is not None:
                sample = result.sample if sample is None else merge_samples(sample, result.sample, limit)
            if result.counts is not None:
                learned.counts = result.counts if learned.counts is None else learned.counts.add(result.counts)
            if result.texts is not None:
                texts = result.texts if texts is None else merge_samples(texts, result.texts, text_limit)
        return moments, sample, texts

    def statistics(self, model: PHSIC, rule_codes: np.ndarray, encoder_specs) -> CrossMoments | None:
        ctx = FilterContext(self.cfg, model, encoder_specs)
        moments = None
        for result in self.engine.map(statistics_task, ctx, self.tasks("statistics", rule_codes)):
            if result is not None:
                moments = result if moments is None else moments.add(result)
        return moments

    def features(self, model: PHSIC, learned: LearnedScorer, src: list[str], tgt: list[str]) -> np.ndarray:
        """Every feature of the training examples ``(src, tgt)``, computed by the engine's workers in
        blocks of ``FEATURE_BLOCK`` pairs: each row depends on its pair alone, so the rows are those
        of one block of all the pairs (the classifier's bytes do not depend on the engine)."""
        ctx = FilterContext(self.cfg, model, None, learned)
        blocks = ((src[i : i + FEATURE_BLOCK], tgt[i : i + FEATURE_BLOCK]) for i in range(0, len(src), FEATURE_BLOCK))
        return np.vstack(list(self.engine.map(features_task, ctx, blocks)))

    def score(self, model: PHSIC, reasons: np.ndarray, encoder_specs, learned: LearnedScorer | None = None,
              copies: tuple[np.ndarray, np.ndarray] | None = None, copy_features: bool = True) -> np.ndarray:
        """Pass 3: scores per line (NaN where a rule failed); with ``learned`` also the per-line
        arrays ``features`` and ``weakest`` in the workspace. Only the lines that pass are scored;
        ``copies`` = (rows, originals): lines that get the results of an earlier identical line
        (duplicates, which are not scored again): their scores, and their features and weakest
        feature if ``copy_features`` (only --annotated reads those; copying maps every page)."""
        ctx = FilterContext(self.cfg, model, encoder_specs, learned, self.spool())
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
        if copies is not None:
            rows, originals = copies
            scores[rows] = scores[originals]
            if learned and copy_features:
                for name, dtype, shape in (("features", np.float32, (len(reasons), width)),
                                           ("weakest", np.uint8, (-1,))):
                    array = self.work.array(name, dtype).reshape(shape)
                    step = self.cfg.task_lines  # a bounded copy at a time: memory stays flat in corpus size
                    for start in range(0, rows.size, step):
                        array[rows[start : start + step]] = array[originals[start : start + step]]
                    array.flush()
        return scores


def merge_samples(a: tuple, b: tuple, limit: int | None) -> tuple:
    """The ``limit`` lowest-priority rows of two samples (priorities, rows, *columns), ties by
    row, in row order; a column is a 2-D (possibly sparse) block or a 1-D array."""
    priorities, rows = np.concatenate([a[0], b[0]]), np.concatenate([a[1], b[1]])
    keep = np.lexsort((rows, priorities))[:limit] if limit else np.arange(rows.size)
    keep = keep[np.argsort(rows[keep], kind="stable")]
    columns = [vstack([x, y]) if x.ndim == 2 else np.concatenate([x, y]) for x, y in zip(a[2:], b[2:])]
    return (priorities[keep], rows[keep], *(column[keep] for column in columns))


def mark_duplicates(reasons: np.ndarray, hashes: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Mark every passing pair whose hash an earlier passing pair has; returns (rows, originals):
    those pairs and, for each, the first passing pair with the same hash."""
    rows = np.flatnonzero(reasons == PASS)
    order = rows[np.argsort(hashes[rows], kind="stable")]
    sorted_hashes = hashes[order]
    repeated = np.concatenate([[False], sorted_hashes[1:] == sorted_hashes[:-1]])
    first = order[np.maximum.accumulate(np.where(repeated, 0, np.arange(order.size)))] if order.size else order
    rows, originals = order[repeated], first[repeated]
    reasons[rows] = CODE["duplicate"]
    in_order = np.argsort(rows)
    return rows[in_order], originals[in_order]


def reason_counts(reasons: np.ndarray) -> dict[str, int]:
    counts = np.bincount(reasons, minlength=len(REASONS))
    return {name: int(count) for name, count in zip(REASONS, counts) if count and name != "pass"}


def is_feature_space(kernel: str) -> bool:
    return KERNELS[kernel].feature_space
