"""Word-alignment features of the learned filter score: how well each side explains the other.

Translation tables t(f | e) of IBM model 1 (Brown et al. 1993, Eq. 4) are estimated by EM on
the classifier's sample of the corpus itself, in both directions, with fast_align's diagonal
prior on the position of the aligned word (Dyer et al. 2013, Eq. 2-3):

    p(a_j = i | j, m, n) = p0                                            for the empty word (i = 0)
                         = (1 - p0) exp(-lambda |i/m - j/n|) / Z_j       otherwise,

each side's words hashed into ``buckets`` ids (a hashed vocabulary keeps the tables a fixed
size on any corpus). The tightness lambda of each direction is the value of ``DIAGONALS`` that
gives the sample the highest likelihood (0 = IBM model 1's uniform positions, which suits
language pairs with different word orders). Features per pair (``ALIGNMENT_FEATURES``):

* ``align_tgt`` / ``align_src``: mean over the words of one side of log p(word | other side), the
  alignment model's per-word log-likelihood (what eflomal's sentence scores measure), less each word's
  typical value: the mean of its log p over the sampled pairs' words (``typical``; a word of a sampled pair
  leaves its own term out, and a word the sample has nowhere else counts 0). Some words are always poorly
  explained (function words the other language does not write, words the tables saw a few times), others
  nearly always well; the near miss's one wrong word is a word that is usually well explained and here is
  not, which the raw mean dilutes among the others;
* ``cover_src`` / ``cover_tgt``: share of each side's words on a link of the intersection of
  the two directions' most probable (Viterbi) alignments (Och & Ney 2003, §4.1): a word whose
  best partner prefers another word, or the empty word, counts as uncovered. A near miss (the
  translation of a neighbouring segment) shares common words with the source but leaves the
  words that make it different uncovered;
* ``order``: share of the pairs of those intersection links that cross (the first of them in the
  target links a later source word: Kendall's distance between the links' source and target orders,
  Kendall 1938), NaN (no evidence either way) with fewer than two links: misordered words cross links that a translation
  keeps in the order the language pair's grammar gives (which the corpus's own pairs show);
* ``token_ratio``: log(1 + target tokens) - log(1 + source tokens), the length ratio in these
  tokens (for Japanese a katakana word or a kanji or kana each, for Chinese a character each, which whitespace
  words miss).

A pair the tables were fitted on (the sampled pairs, found by a hash of their token ids) is scored
without its own expected link counts (leave-one-out: t(f | e) = max(c(e, f) - c_r(e, f), s) / (c(e) - c_r(e)),
with c_r its expected counts under the fitted tables and s the smoothing): its rare words would
otherwise explain each other because they were fitted on each other, which a pair outside the sample,
noisy or clean, never gets.

Long pairs are cut to ``TOKEN_LIMIT`` words on their longer side and the same share of the
shorter one (their prefixes), which bounds the cost per pair. Tokens: tokens.py's (maximal runs of
letters/digits, lower-cased, each hiragana and Han character a token of its own, a run of katakana one word:
``KATAKANA_WORDS``: technical Japanese writes most of its terms in katakana, ``ファイル`` for file, which
as one token has one partner in the tables instead of four kana each partly explained by it), each known
by its stem (``STEM``): its first four code points, or two for a word of Hangul syllables (a syllable writes two or
three letters). A word's inflections and a Korean word's particles (``파일을``, ``파일이``: the file as
object, as subject) then share one row of the tables, the stemming by truncation that alignment of
inflected languages uses where no stemmer is at hand; a few thousand pairs see a stem many times more
often than each of its forms.
"""

from __future__ import annotations

import numba
import numpy as np

from ..errors import InputError
from ..hashing import splitmix64
from ..text import lowered
from .tokens import KATAKANA_WORDS, STEM, token_ids, token_sequences

ALIGNMENT_FEATURES = ("align_tgt", "align_src", "cover_src", "cover_tgt", "order", "token_ratio")
TOKEN_LIMIT = 48  # words of the longer side of a pair that the alignment sees
DIAGONALS = (0.0, 1.0, 2.0, 4.0, 8.0)  # candidate lambdas of the diagonal prior


@numba.njit(cache=True, nogil=True)
def _prefix_lengths(m, n, limit):  # pragma: no cover - compiled
    """Words of each side the alignment sees: all, or the same share of both under ``limit``."""
    longest = max(m, n)
    if longest <= limit:
        return m, n
    return max(1, (m * limit) // longest), max(1, (n * limit) // longest)


@numba.njit(cache=True, nogil=True)
def _priors(m, n, j, diagonal, null_probability, out):  # pragma: no cover - compiled
    """p(a_j = i) for i < m (the empty word's is null_probability) into out[:m]."""
    total = 0.0
    for i in range(m):
        out[i] = np.exp(-diagonal * abs((i + 0.5) / m - (j + 0.5) / n))
        total += out[i]
    for i in range(m):
        out[i] *= (1.0 - null_probability) / total


@numba.njit(cache=True, nogil=True)
def _prior_table(diagonal, null_probability, limit):  # pragma: no cover - compiled
    """Every p(a_j = i) a pair of at most ``limit`` words a side can need, computed once per lambda:
    the priors of an (m, n) pair start at ``offsets[m, n]``, target position j's at + j m."""
    offsets = np.zeros((limit + 1, limit + 1), np.int64)
    size = 0
    for m in range(1, limit + 1):
        for n in range(1, limit + 1):
            offsets[m, n] = size
            size += m * n
    priors = np.empty(size)
    for m in range(1, limit + 1):
        for n in range(1, limit + 1):
            for j in range(n):
                start = offsets[m, n] + j * m
                _priors(m, n, j, diagonal, null_probability, priors[start : start + m])
    return offsets, priors


@numba.njit(cache=True, nogil=True)
def _expected_counts(s_ptr, s_ids, t_ptr, t_ids, table_t, offsets, priors, null_probability, limit, counts_t,
                     accumulate):  # pragma: no cover - compiled
    """E-step of IBM model 1 with a diagonal prior (``offsets``, ``priors``: its ``_prior_table``);
    returns the log-likelihood of the targets and, if ``accumulate``, adds the posterior link
    counts to ``counts_t``. Both tables are transposed, ``[target id, given id]`` (column
    ``buckets`` is the empty word), so that the look-ups of one target word stay in one row."""
    empty = table_t.shape[1] - 1
    weight = np.empty(limit)
    log_likelihood = 0.0
    for r in range(len(s_ptr) - 1):
        m, n = _prefix_lengths(s_ptr[r + 1] - s_ptr[r], t_ptr[r + 1] - t_ptr[r], limit)
        if m == 0 or n == 0:
            continue
        given = s_ids[s_ptr[r] : s_ptr[r] + m]
        for j in range(n):
            t = t_ids[t_ptr[r] + j]
            row, prior = table_t[t], priors[offsets[m, n] + j * m :]
            null = null_probability * row[empty]
            total = null
            for i in range(m):
                weight[i] = prior[i] * row[given[i]]
                total += weight[i]
            log_likelihood += np.log(total)
            if accumulate:
                row = counts_t[t]
                row[empty] += null / total
                for i in range(m):
                    row[given[i]] += weight[i] / total
    return log_likelihood


@numba.njit(cache=True, nogil=True)
def _pair_hashes(s_ptr, s_ids, t_ptr, t_ids):  # pragma: no cover - compiled
    """A 64-bit hash of each pair's two token id sequences (which pairs the tables were fitted on)."""
    out = np.empty(len(s_ptr) - 1, np.uint64)
    for r in range(len(s_ptr) - 1):
        h = np.uint64(0x9E3779B97F4A7C15)
        for side_ptr, side_ids in ((s_ptr, s_ids), (t_ptr, t_ids)):
            for k in range(side_ptr[r], side_ptr[r + 1]):
                h = splitmix64(h ^ np.uint64(side_ids[k] + 1))
            h = splitmix64(h)  # the end of a side: ("a b", "c") and ("a", "b c") differ
        out[r] = h
    return out


@numba.njit(cache=True, nogil=True)
def _first_positions(ids, out):  # pragma: no cover - compiled
    """out[k]: the first position of ids[k]'s value in ``ids``."""
    for k in range(len(ids)):
        out[k] = k
        for earlier in range(k):
            if ids[earlier] == ids[k]:
                out[k] = earlier
                break


@numba.njit(cache=True, nogil=True)
def _own_counts(given, words, table, start, priors, p0, first_i, first_j, own, own_row):  # pragma: no cover
    """A pair's own expected link counts under ``table`` (transposed: ``[word id, given id]``): own[i', j'] over
    the first positions of each given and word id, own_row[i'] their sums over the words; ``p0``: the empty
    word's prior."""
    a, b = len(given), len(words)
    _first_positions(given, first_i)
    _first_positions(words, first_j)
    own[:a, :b] = 0.0
    own_row[:a] = 0.0
    for j in range(b):
        prior = priors[start + j * a :]
        row = table[words[j]]
        total = p0 * row[table.shape[1] - 1]
        for i in range(a):
            total += prior[i] * row[given[i]]
        for i in range(a):
            posterior = prior[i] * row[given[i]] / total
            own[first_i[i], first_j[j]] += posterior
            own_row[first_i[i]] += posterior


@numba.njit(cache=True, nogil=True)
def _pair_scores(s_ptr, s_ids, t_ptr, t_ids, forward_t, reverse_t, totals, priors, null_probability, limit, fitted,
                 smoothing, t_terms, s_terms):  # pragma: no cover - compiled
    """``cover_src``, ``cover_tgt`` and ``order`` of each pair (see the module docstring), and into ``t_terms``,
    ``s_terms`` (aligned with ``t_ids``, ``s_ids``) each word's log p(word | other side) (the words the alignment
    sees); ``forward_t``, ``reverse_t``: the tables transposed (``[word id, given id]``: the look-ups of one word
    stay in one row); ``priors``: the ``_prior_table`` of each direction's lambda; ``totals``: each direction's
    expected counts per given id (the tables' denominators); ``fitted``: whether the tables were fitted on the
    pair (then it is scored without its own expected counts)."""
    n_pairs = len(s_ptr) - 1
    out = np.empty((n_pairs, 3))
    best_s, best_t, linked = np.empty(limit, np.int64), np.empty(limit, np.int64), np.empty(limit, np.int64)
    first_i, first_j = np.empty(limit, np.int64), np.empty(limit, np.int64)
    own, own_row = np.zeros((limit, limit)), np.zeros(limit)
    for r in range(n_pairs):
        m, n = _prefix_lengths(s_ptr[r + 1] - s_ptr[r], t_ptr[r + 1] - t_ptr[r], limit)
        if m == 0 or n == 0:
            out[r, 0] = out[r, 1] = 0.0
            out[r, 2] = np.nan
            continue
        s, t = s_ids[s_ptr[r] : s_ptr[r] + m], t_ids[t_ptr[r] : t_ptr[r] + n]
        for direction in range(2):
            table, total_of = (forward_t, totals[0]) if direction == 0 else (reverse_t, totals[1])
            given, words = (s, t) if direction == 0 else (t, s)
            best = best_t if direction == 0 else best_s
            terms, start = (t_terms, t_ptr[r]) if direction == 0 else (s_terms, s_ptr[r])
            a, b = len(given), len(words)
            offsets, table_priors = priors[direction]
            if fitted[r]:
                _own_counts(given, words, table, offsets[a, b], table_priors, null_probability, first_i, first_j, own,
                            own_row)
            for j in range(b):
                prior, row_j = table_priors[offsets[a, b] + j * a :], table[words[j]]
                top = null_probability * row_j[table.shape[1] - 1]
                total, best[j] = top, -1
                for i in range(a):
                    p = row_j[given[i]]
                    if fitted[r]:
                        row = total_of[given[i]]
                        p = max(p * row - own[first_i[i], first_j[j]], smoothing) / (row - own_row[first_i[i]])
                    w = prior[i] * p
                    total += w
                    if w > top:
                        top, best[j] = w, i
                terms[start + j] = np.log(total)
        covered_s = covered_t = 0
        for j in range(n):
            if best_t[j] >= 0 and best_s[best_t[j]] == j:
                linked[covered_t] = best_t[j]  # the links' source positions, in target order
                covered_t += 1
        crossed = 0
        for a in range(covered_t):
            for b in range(a + 1, covered_t):
                if linked[a] > linked[b]:
                    crossed += 1
        out[r, 2] = 2.0 * crossed / (covered_t * (covered_t - 1)) if covered_t > 1 else np.nan
        for i in range(m):
            if best_s[i] >= 0 and best_t[best_s[i]] == i:
                covered_s += 1
        out[r, 0], out[r, 1] = covered_s / m, covered_t / n
    return out


class AlignmentModel:
    """IBM model 1 tables with a diagonal prior in both directions (see the module docstring).

    ``forward[e, f]`` = t(f | e) for source id e and target id f, ``reverse[f, e]`` = t(e | f);
    the last row of each is the empty word. ``diagonals``: lambda of each direction; ``totals``: (2,
    buckets + 1), each direction's expected counts per given id (the tables' denominators);
    ``fitted``: the sorted ``_pair_hashes`` of the pairs the tables were fitted on; ``typical``: (2, 2, buckets),
    per direction (words of the target, of the source) the sum of each word id's per-word log-likelihoods over
    the fitted pairs and their number.
    """

    iterations = 5
    null_probability = 0.08
    smoothing = 0.01  # added to every expected count before normalising

    def __init__(self, forward: np.ndarray, reverse: np.ndarray, diagonals: np.ndarray, totals: np.ndarray,
                 fitted: np.ndarray, typical: np.ndarray):
        self.forward, self.reverse, self.typical = forward, reverse, np.asarray(typical, dtype=np.float64)
        self.diagonals = np.asarray(diagonals, dtype=np.float64)
        self.totals, self.fitted = np.asarray(totals, dtype=np.float64), np.asarray(fitted, dtype=np.uint64)
        self.buckets = forward.shape[1]
        self._priors = None  # each direction's _prior_table, made on first use (not pickled: 11 MB each)
        self._transposed = None  # the tables [word id, given id], made on first use (not pickled)

    def __getstate__(self) -> dict:
        return {**self.__dict__, "_priors": None, "_transposed": None}

    @classmethod
    def fit(cls, src: list[str], tgt: list[str], buckets: int, threads: int = 1) -> "AlignmentModel":
        """EM from uniform tables on the pairs (src, tgt), each direction on its own (in parallel
        with ``threads`` > 1: the same tables); lambda is chosen after the first iteration and kept."""
        s, t = (token_sequences(side, buckets, STEM, KATAKANA_WORDS) for side in (src, tgt))
        directions = ((s, t), (t, s))
        if threads > 1:
            from concurrent.futures import ThreadPoolExecutor  # the E-steps release the GIL

            with ThreadPoolExecutor(2) as pool:
                fitted = list(pool.map(lambda sides: cls._fit_direction(*sides, buckets), directions))
        else:
            fitted = [cls._fit_direction(*sides, buckets) for sides in directions]
        (forward, forward_lambda, forward_totals), (reverse, reverse_lambda, reverse_totals) = fitted
        model = cls(forward, reverse, np.array([forward_lambda, reverse_lambda]),
                    np.stack([forward_totals, reverse_totals]), np.unique(_pair_hashes(s[1], s[0], t[1], t[0])),
                    np.zeros((2, 2, buckets)))
        model.typical = model._typical_terms(s, t)
        return model

    def _typical_terms(self, s: tuple, t: tuple) -> np.ndarray:
        """``typical`` of the fitted pairs (``s``, ``t``: their token_sequences), each scored as fitted."""
        _, word_terms = self._scores(s[1], s[0], t[1], t[0], np.ones(len(s[1]) - 1, dtype=bool))
        sums = []
        for ids, terms in zip((t[0], s[0]), word_terms):
            seen = ~np.isnan(terms)
            sums.append((np.bincount(ids[seen], terms[seen], minlength=self.buckets),
                         np.bincount(ids[seen], minlength=self.buckets)))
        return np.array(sums, dtype=np.float64)

    @classmethod
    def _fit_direction(cls, given: tuple, words: tuple, buckets: int) -> tuple[np.ndarray, float, np.ndarray]:
        """The table t(word | given) (float32, ``(buckets + 1, buckets)``), lambda and the expected counts per
        given id of one direction. EM runs on the transposed table (``[word id, given id]``); each iteration
        transposes its counts once, for the sums per given id."""
        table_t, diagonal = np.full((buckets, buckets + 1), 1.0 / buckets), 0.0
        priors = cls.prior_table(diagonal)
        for iteration in range(cls.iterations):
            counts_t = np.zeros((buckets, buckets + 1))
            cls._expect(given, words, table_t, priors, counts_t)
            counts_t += cls.smoothing
            counts = np.ascontiguousarray(counts_t.T)  # summed in the order of the untransposed table
            totals = counts.sum(axis=1)
            table_t = np.divide(counts_t, totals, out=counts_t)
            if iteration == 0:
                diagonal = max(DIAGONALS, key=lambda d: cls._expect(given, words, table_t, cls.prior_table(d), None))
                priors = cls.prior_table(diagonal)
        return (counts / totals[:, None]).astype(np.float32), diagonal, totals

    @classmethod
    def prior_table(cls, diagonal: float) -> tuple[np.ndarray, np.ndarray]:
        """Every p(a_j = i) of the diagonal prior with lambda ``diagonal`` (``_prior_table``)."""
        return _prior_table(diagonal, cls.null_probability, TOKEN_LIMIT)

    @classmethod
    def _expect(cls, given: tuple, words: tuple, table_t: np.ndarray, priors: tuple, counts_t: np.ndarray | None
                ) -> float:
        """Adds the expected link counts to ``counts_t`` (unless None); returns the log-likelihood
        of ``words``. Both tables transposed: ``[word id, given id]``; ``priors``: ``prior_table`` of lambda."""
        accumulate = counts_t is not None
        return _expected_counts(given[1], given[0], words[1], words[0], table_t, *priors, cls.null_probability,
                                TOKEN_LIMIT, table_t if counts_t is None else counts_t, accumulate)

    def features(self, src: list[str], tgt: list[str], texts: tuple | None = None) -> np.ndarray:
        """The ALIGNMENT_FEATURES of each pair, (n, 6) float32; ``texts``: the sides' ``lowered`` code points, if the
        caller has them."""
        texts = texts or (lowered(src), lowered(tgt))
        (s_ids, s_ptr), (t_ids, t_ptr) = (token_ids(text, self.buckets, STEM, KATAKANA_WORDS) for text in texts)
        fitted = np.isin(_pair_hashes(s_ptr, s_ids, t_ptr, t_ids), self.fitted, kind="sort")
        links, (t_terms, s_terms) = self._scores(s_ptr, s_ids, t_ptr, t_ids, fitted)
        ratio = np.log1p(np.diff(t_ptr)) - np.log1p(np.diff(s_ptr))
        return np.column_stack([self._relative(0, t_ptr, t_ids, t_terms, fitted),
                                self._relative(1, s_ptr, s_ids, s_terms, fitted), links, ratio]).astype(np.float32)

    def _scores(self, s_ptr, s_ids, t_ptr, t_ids, fitted) -> tuple[np.ndarray, tuple[np.ndarray, np.ndarray]]:
        """``_pair_scores`` of the pairs: the link features, and each word's log p(word | other side) (the target's
        words, the source's; NaN for a word beyond the prefix the alignment sees)."""
        if self._priors is None:
            self._priors = tuple(self.prior_table(d) for d in self.diagonals)
            self._transposed = tuple(np.ascontiguousarray(table.T) for table in (self.forward, self.reverse))
        terms = np.full(t_ids.size, np.nan), np.full(s_ids.size, np.nan)
        links = _pair_scores(s_ptr, s_ids, t_ptr, t_ids, *self._transposed, self.totals, self._priors,
                             self.null_probability, TOKEN_LIMIT, fitted, self.smoothing, *terms)
        return links, terms

    def _relative(self, direction: int, ptr: np.ndarray, ids: np.ndarray, terms: np.ndarray, fitted: np.ndarray
                  ) -> np.ndarray:
        """Each pair's mean over its words of their ``terms`` less the word's typical term (``typical[direction]``,
        without the pair's own where it was ``fitted``; 0 for a word no other fitted pair has); 0 without words."""
        at = np.flatnonzero(~np.isnan(terms))
        pair = np.repeat(np.arange(len(ptr) - 1), np.diff(ptr))[at]
        word, term, own = ids[at], terms[at], fitted[pair]
        others = self.typical[direction, 1][word] - own
        typical = (self.typical[direction, 0][word] - np.where(own, term, 0.0)) / np.maximum(others, 1)
        relative = np.bincount(pair, np.where(others > 0, term - typical, 0.0), minlength=len(ptr) - 1)
        return relative / np.maximum(np.bincount(pair, minlength=len(ptr) - 1), 1)

    # -- persistence ------------------------------------------------------------------------------
    def arrays(self) -> dict[str, np.ndarray]:
        return {"forward": self.forward, "reverse": self.reverse, "diagonals": self.diagonals, "totals": self.totals,
                "fitted": self.fitted, "typical": self.typical}

    @classmethod
    def from_arrays(cls, arrays: dict[str, np.ndarray]) -> "AlignmentModel":
        forward, reverse, diagonals, totals, fitted, typical = (
            arrays.get(key) for key in ("forward", "reverse", "diagonals", "totals", "fitted", "typical"))
        if (any(array is None for array in (forward, reverse, diagonals, totals, fitted, typical)) or forward.ndim != 2
                or forward.shape != reverse.shape or forward.shape[0] != forward.shape[1] + 1
                or diagonals.shape != (2,) or totals.shape != (2, forward.shape[0]) or fitted.ndim != 1
                or typical.shape != (2, 2, forward.shape[1]) or not np.all(np.isfinite(typical))
                or not np.all(typical[:, 1] >= 0) or not np.all(totals > 0) or not np.all(fitted[1:] > fitted[:-1])):
            raise InputError("alignment tables are missing or have bad shapes")
        if not (np.all((forward > 0) & (forward <= 1)) and np.all((reverse > 0) & (reverse <= 1))
                and np.isin(diagonals, DIAGONALS).all()):
            raise InputError("alignment tables are not probabilities or a diagonal prior's lambda is none of "
                             f"{DIAGONALS}")
        return cls(forward.astype(np.float32), reverse.astype(np.float32), diagonals, totals, fitted, typical)

