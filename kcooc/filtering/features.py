"""Per-pair features of the learned filter score, vectorised over a block of pairs.

Two kinds, computed in different passes of job.py:

* *pair features* need nothing but the pair: log lengths and length ratios, agreement of
  numbers, placeholders/markup, URLs, punctuation and capitalised tokens between the sides, and
  (with declared languages) the language-ID posterior of each side's expected language.
  Computed once, in the screen pass, and kept per line on disk.
* *corpus features* need statistics counted on the corpus in the screen pass
  (:class:`CorpusCounts`, integer counts merged in task order, so every engine gets the same):
  an IBM-1-style lexical translation score in both directions (Brown et al. 1993, model 1
  with co-occurrence counts of hashed words as the translation table; Zipporah, Xu & Koehn 2017,
  uses the same adequacy idea) and a hashed character-trigram fluency score per side.
  PHSIC (Yokoi et al. 2018, Eq. 18) is added by the scorer.

Tokens for the lexical model are maximal runs of letters/digits, lower-cased, every kana and Han
character a token of its own (Japanese and Chinese have no spaces); each is hashed into
``lexical_buckets`` ids per side.
"""

from __future__ import annotations

import re
import zlib
from dataclasses import dataclass

import numba
import numpy as np

from ..encoders import _is_separator
from ..text import TextStats, code_points

AGREEMENT = ("numbers", "placeholders", "urls", "capitals")
PAIR_FEATURES = ("src_chars", "tgt_chars", "char_ratio", "word_ratio", *AGREEMENT, "punctuation")
LANGUAGE_FEATURES = ("src_lang", "tgt_lang")
TOKEN_LIMIT = 32  # distinct tokens per side in the lexical model
CORPUS_FEATURES = ("lexical_tgt_max", "lexical_tgt_avg", "lexical_src_max", "lexical_src_avg",
                   "fluency_src", "fluency_tgt")

PATTERNS = {
    # printf with length modifiers and GCC's %q/%< %>, %NAME (LibreOffice), {0}, $VAR, markup, entities
    "placeholders": re.compile(r"%(?:\([^)\s]+\))?\d*\$?[-+#0']*\d*(?:\.\d+)?[hlLqjztw]*[A-Za-z][A-Z0-9_]*|%[<>]"
                               r"|%\d+\$?[sd]?|\{[\w.:!]*\}"
                               r"|\$\{?\w+\}?|</?[A-Za-z][\w-]*[^<>]*>|&(?:[A-Za-z]+|#\d+|#x[0-9A-Fa-f]+);"),
    "urls": re.compile(r"(?:https?|ftp)://[^\s<>\"]+|www\.[^\s<>\"]+|[\w.+-]+@[\w-]+(?:\.[\w-]+)+"),
}
_TRIGGERS = {kind: np.zeros(1 << 16, dtype=bool) for kind in PATTERNS}
_TRIGGERS["placeholders"][[ord(c) for c in "%{$<&"]] = True
_TRIGGERS["urls"][[ord(c) for c in "/@"]] = True
_DIGIT_VALUE = np.array([int(chr(c)) if chr(c).isdecimal() else -1 for c in range(1 << 16)], dtype=np.int32)
# Punctuation classes, full-width and CJK forms mapped onto their ASCII class.
_PUNCTUATION_CLASSES = [".。．", ",、，", ":：", ";；", "!！", "?？", "(（", ")）", "\"'「」『』“”‘’«»„",
                        "%％", "-–—", "/／"]


def _punctuation_table() -> np.ndarray:
    table = np.zeros(1 << 16, dtype=np.int8)
    for index, characters in enumerate(_PUNCTUATION_CLASSES, start=1):
        table[[ord(c) for c in characters]] = index
    return table


_PUNCTUATION = _punctuation_table()
_CJK = np.zeros(1 << 16, dtype=bool)
for _low, _high in [(0x3040, 0x30FF), (0x3400, 0x4DBF), (0x4E00, 0x9FFF), (0xF900, 0xFAFF), (0xFF66, 0xFF9F)]:
    _CJK[_low : _high + 1] = True


# -- pair features -----------------------------------------------------------------------------
def pair_features(src: list[str], tgt: list[str], s: TextStats, t: TextStats) -> np.ndarray:
    """The PAIR_FEATURES of each pair, (n, 9) float32; ``s``, ``t``: the sides' text statistics."""
    columns = [np.log1p(s.lengths), np.log1p(t.lengths), np.log1p(t.lengths) - np.log1p(s.lengths),
               np.log1p(t.words) - np.log1p(s.words)]
    columns += [item_agreement(matched_items(src, s, kind), matched_items(tgt, t, kind), len(src)) for kind in AGREEMENT]
    columns.append(punctuation_agreement(s, t))
    return np.stack(columns, axis=1).astype(np.float32)


def matched_items(sentences: list[str], stats: TextStats, kind: str) -> tuple[np.ndarray, np.ndarray]:
    """(sentence index, 32-bit hash) of every number / placeholder / URL / capitalised token."""
    codes, sentence_of = stats.codes, stats.sentence_of
    if kind == "numbers":
        digits = _DIGIT_VALUE[np.minimum(codes, 0xFFFF)]  # full-width and other decimal digits as ASCII
        return _runs(np.where(digits >= 0, digits + 48, -1), sentence_of)
    if kind == "capitals":
        in_token = ~_is_separator(codes)
        starts, ends = _run_edges(in_token)
        first = np.concatenate([[True], sentence_of[starts[1:]] != sentence_of[starts[:-1]]])
        upper = (codes[starts] >= ord("A")) & (codes[starts] <= ord("Z")) & ~first
        return sentence_of[starts[upper]], _hash_spans(codes, starts[upper], ends[upper])
    # regular expressions only on the sentences that hold a trigger character (most hold none)
    candidates = np.flatnonzero(np.bincount(sentence_of[_TRIGGERS[kind][np.minimum(codes, 0xFFFF)]],
                                            minlength=stats.lengths.size))
    positions, hashes = [], []
    for index in candidates.tolist():
        for match in PATTERNS[kind].finditer(sentences[index]):
            positions.append(index)
            hashes.append(zlib.crc32(match.group().encode("utf-8", "surrogatepass")))
    return np.array(positions, dtype=np.int64), np.array(hashes, dtype=np.int64)


def _run_edges(inside: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Starts and ends (exclusive) of the maximal runs of True."""
    edges = np.diff(np.concatenate([[0], inside.view(np.int8), [0]]))
    return np.flatnonzero(edges == 1), np.flatnonzero(edges == -1)


def _hash_spans(codes: np.ndarray, starts: np.ndarray, ends: np.ndarray) -> np.ndarray:
    """A 32-bit hash (int64) of each span codes[start:end]."""
    return _span_hashes(codes.astype(np.uint64), starts, ends)


@numba.njit(cache=True, nogil=True)
def _span_hashes(codes, starts, ends):  # pragma: no cover - compiled
    out = np.empty(len(starts), dtype=np.int64)
    for k in range(len(starts)):
        h = np.uint64(0xCBF29CE484222325)
        for i in range(starts[k], ends[k]):
            h = (h ^ codes[i]) * np.uint64(0x100000001B3)
        h ^= h >> np.uint64(29)
        h *= np.uint64(0xBF58476D1CE4E5B9)
        out[k] = np.int64(h >> np.uint64(32))
    return out


def _runs(normalised: np.ndarray, sentence_of: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Maximal runs of normalised code points >= 0: (sentence, hash of the run)."""
    starts, ends = _run_edges(normalised >= 0)
    return sentence_of[starts], _hash_spans(np.maximum(normalised, 0).astype(np.uint32), starts, ends)


def item_agreement(src: tuple[np.ndarray, np.ndarray], tgt: tuple[np.ndarray, np.ndarray], n: int) -> np.ndarray:
    """|S & T| / |S | T| of each pair's sets of items; 1 when neither side has any."""
    keys_s, keys_t = (_distinct(sentence << 32 | hashes) for sentence, hashes in (src, tgt))
    common = np.intersect1d(keys_s, keys_t, assume_unique=True)
    count = lambda keys: np.bincount(keys >> 32, minlength=n).astype(np.float64)  # noqa: E731
    inter, union = count(common), count(keys_s) + count(keys_t) - count(common)
    return np.where(union > 0, inter / np.maximum(union, 1), 1.0)


def _distinct(keys: np.ndarray) -> np.ndarray:
    keys = np.sort(keys)
    return keys[np.concatenate([[True], keys[1:] != keys[:-1]])] if keys.size else keys


def punctuation_agreement(src: TextStats, tgt: TextStats) -> np.ndarray:
    """sum_c min(s_c, t_c) / sum_c max(s_c, t_c) over punctuation classes; 1 when neither has any."""
    counts = []
    for stats in (src, tgt):
        n = stats.lengths.size
        cls = _PUNCTUATION[np.minimum(stats.codes, 0xFFFF)]
        marked = cls > 0
        flat = stats.sentence_of[marked] * len(_PUNCTUATION_CLASSES) + (cls[marked] - 1)
        counts.append(np.bincount(flat, minlength=n * len(_PUNCTUATION_CLASSES)).reshape(n, -1))
    low, high = np.minimum(*counts).sum(axis=1), np.maximum(*counts).sum(axis=1)
    return np.where(high > 0, low / np.maximum(high, 1), 1.0)


# -- tokens and character trigrams -------------------------------------------------------------
def lowered(sentences: list[str]) -> tuple[np.ndarray, np.ndarray, int]:
    """Code points of the lower-cased sentences, each followed by an end mark (newline), the
    sentence of each code point, and the number of sentences: the input of token_ids/trigram_ids."""
    codes, sentence_of, _ = code_points([s.lower() for s in sentences] + [""], "\n")
    return codes, sentence_of, len(sentences)


def token_ids(text: tuple, buckets: int, limit: int) -> tuple[np.ndarray, np.ndarray]:
    """Each sentence's distinct hashed token ids (int32 in [0, buckets)) as CSR rows (ids, indptr).

    ``text`` is ``lowered(sentences)``. At most ``limit`` ids per sentence, the smallest: a
    pseudo-random subset of its words, which keeps the lexical model's cost per pair bounded
    (|s| x |t| look-ups) on long descriptions.
    """
    codes, sentence_of, n = text
    in_token = ~_is_separator(codes)
    cjk = _CJK[np.minimum(codes, 0xFFFF)]
    previous_in, previous_cjk = np.concatenate([[False], in_token[:-1]]), np.concatenate([[False], cjk[:-1]])
    start = in_token & (~previous_in | cjk | previous_cjk)
    end = in_token & ~np.concatenate([in_token[1:] & ~start[1:], [False]])
    starts, ends = np.flatnonzero(start), np.flatnonzero(end) + 1
    ids = _hash_spans(codes, starts, ends) % buckets
    keys = _distinct(sentence_of[starts] * buckets + ids)
    sentence, ids = keys // buckets, (keys % buckets).astype(np.int32)
    indptr = np.concatenate([[0], np.cumsum(np.bincount(sentence, minlength=n))])
    rank = np.arange(keys.size) - indptr[sentence]
    kept = rank < limit
    indptr = np.concatenate([[0], np.cumsum(np.minimum(np.diff(indptr), limit))])
    return ids[kept], indptr


def trigram_ids(text: tuple, buckets: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Hashed ids of every character trigram and of its first two characters, and its sentence.

    ``text`` is ``lowered(sentences)``: each sentence is followed by an end mark, so a trigram
    may end a sentence but not span two. The hash is splitmix64 of the three code points packed
    into 63 bits (code points are < 2^21).
    """
    codes, sentence_of, _ = text
    return _trigrams(codes.astype(np.uint64), sentence_of, np.uint64(buckets))


@numba.njit(cache=True, nogil=True)
def _mix(x):  # pragma: no cover - compiled; splitmix64's finaliser, as encoders.mix64
    x = (x ^ (x >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
    x = (x ^ (x >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
    return x ^ (x >> np.uint64(31))


@numba.njit(cache=True, nogil=True)
def _trigrams(codes, sentence_of, buckets):  # pragma: no cover - compiled
    size = max(len(codes) - 2, 0)
    trigram, context, sentence = np.empty(size, np.int64), np.empty(size, np.int64), np.empty(size, np.int64)
    k = 0
    for i in range(size):
        if codes[i] == 10 or sentence_of[i] != sentence_of[i + 2]:
            continue
        pair = codes[i] | (codes[i + 1] << np.uint64(21))
        trigram[k] = np.int64(_mix(pair | (codes[i + 2] << np.uint64(42))) % buckets)
        context[k] = np.int64(_mix(pair) % buckets)
        sentence[k] = sentence_of[i]
        k += 1
    return trigram[:k], context[:k], sentence[:k]


# -- corpus statistics -------------------------------------------------------------------------
@dataclass
class CorpusCounts:
    """Integer statistics of the corpus, mergeable in any order (exact sums).

    ``lexical[s, t]``: co-occurrences of hashed source token s and target token t within a pair;
    ``trigrams[side]`` / ``contexts[side]``: hashed character-trigram and trigram-prefix counts.
    """

    lexical: np.ndarray
    trigrams: np.ndarray  # (2, fluency_buckets)
    contexts: np.ndarray  # (2, fluency_buckets)

    @classmethod
    def count(cls, src: list[str], tgt: list[str], lexical_buckets: int, fluency_buckets: int) -> "CorpusCounts":
        lexical = np.zeros((lexical_buckets, lexical_buckets), dtype=np.int32)  # int64 once merged
        src, tgt = lowered(src), lowered(tgt)
        s_ids, s_ptr = token_ids(src, lexical_buckets, TOKEN_LIMIT)
        t_ids, t_ptr = token_ids(tgt, lexical_buckets, TOKEN_LIMIT)
        _count_cooccurrences(s_ptr, s_ids, t_ptr, t_ids, lexical)
        trigrams, contexts = [], []
        for side in (src, tgt):
            trigram, context, _ = trigram_ids(side, fluency_buckets)
            trigrams.append(np.bincount(trigram, minlength=fluency_buckets).astype(np.int32))
            contexts.append(np.bincount(context, minlength=fluency_buckets).astype(np.int32))
        return cls(lexical, np.stack(trigrams), np.stack(contexts))

    def merge(self, other: "CorpusCounts") -> "CorpusCounts":
        add = lambda a, b: np.add(a, b, dtype=np.int64)  # noqa: E731
        return CorpusCounts(add(self.lexical, other.lexical), add(self.trigrams, other.trigrams),
                            add(self.contexts, other.contexts))

    def arrays(self) -> dict[str, np.ndarray]:
        return {"lexical": self.lexical, "trigrams": self.trigrams, "contexts": self.contexts}


class CorpusModel:
    """Translation tables and trigram log-probabilities from :class:`CorpusCounts`.

    p(t | s) = (c(s, t) + a) / (c(s) + a B), p(s | t) likewise (IBM model 1 tables estimated from
    co-occurrences, Brown et al. 1993, Eq. 4); p(c | ab) = (c(abc) + a) / (c(ab) + a K), K = 256.
    """

    smoothing = 0.5
    alphabet = 256

    def __init__(self, counts: CorpusCounts):
        a, lexical = self.smoothing, counts.lexical.astype(np.float64)
        buckets = lexical.shape[0]
        self.lexical_buckets, self.fluency_buckets = buckets, counts.trigrams.shape[1]
        self.tgt_given_src = ((lexical + a) / (lexical.sum(axis=1, keepdims=True) + a * buckets)).astype(np.float32)
        self.src_given_tgt = ((lexical + a) / (lexical.sum(axis=0, keepdims=True) + a * buckets)).T.astype(np.float32)
        self.log_trigram = np.log(counts.trigrams + a)
        self.log_context = np.log(counts.contexts + a * self.alphabet)

    def features(self, src: list[str], tgt: list[str]) -> np.ndarray:
        """The CORPUS_FEATURES of each pair, (n, 6) float32."""
        src, tgt = lowered(src), lowered(tgt)
        s_ids, s_ptr = token_ids(src, self.lexical_buckets, TOKEN_LIMIT)
        t_ids, t_ptr = token_ids(tgt, self.lexical_buckets, TOKEN_LIMIT)
        floor = np.log(1.0 / self.lexical_buckets)
        tgt_scores = _lexical_scores(s_ptr, s_ids, t_ptr, t_ids, self.tgt_given_src, floor)
        src_scores = _lexical_scores(t_ptr, t_ids, s_ptr, s_ids, self.src_given_tgt, floor)
        fluency = [self.fluency(side, i) for i, side in enumerate((src, tgt))]
        return np.column_stack([tgt_scores, src_scores, *fluency]).astype(np.float32)

    def fluency(self, text: tuple, side: int) -> np.ndarray:
        """Mean log p(c | ab) over each sentence's character trigrams (log 1/K without any)."""
        trigram, context, sentence = trigram_ids(text, self.fluency_buckets)
        log_p = self.log_trigram[side, trigram] - self.log_context[side, context]
        n = text[2]
        total, count = np.bincount(sentence, log_p, minlength=n), np.bincount(sentence, minlength=n)
        return np.where(count > 0, total / np.maximum(count, 1), np.log(1.0 / self.alphabet))


@numba.njit(cache=True, nogil=True)
def _count_cooccurrences(s_ptr, s_ids, t_ptr, t_ids, counts):  # pragma: no cover - compiled
    for r in range(len(s_ptr) - 1):
        for a in range(s_ptr[r], s_ptr[r + 1]):
            row = counts[s_ids[a]]
            for b in range(t_ptr[r], t_ptr[r + 1]):
                row[t_ids[b]] += 1


@numba.njit(cache=True, nogil=True)
def _lexical_scores(s_ptr, s_ids, t_ptr, t_ids, table, floor):  # pragma: no cover - compiled
    """Mean over target tokens t of log max_s p(t|s) and of log mean_s p(t|s) (IBM-1)."""
    n = len(s_ptr) - 1
    out = np.empty((n, 2))
    for r in range(n):
        if t_ptr[r + 1] == t_ptr[r] or s_ptr[r + 1] == s_ptr[r]:
            out[r, 0] = floor
            out[r, 1] = floor
            continue
        best_total, mean_total = 0.0, 0.0
        for b in range(t_ptr[r], t_ptr[r + 1]):
            t = t_ids[b]
            best, total = 0.0, 0.0
            for a in range(s_ptr[r], s_ptr[r + 1]):
                p = table[s_ids[a], t]
                total += p
                if p > best:
                    best = p
            best_total += np.log(best)
            mean_total += np.log(total / (s_ptr[r + 1] - s_ptr[r]))
        count = t_ptr[r + 1] - t_ptr[r]
        out[r, 0] = best_total / count
        out[r, 1] = mean_total / count
    return out
