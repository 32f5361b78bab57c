"""Corpus features of the learned filter score: how typical each side is of the corpus's own sides.

The screen pass counts the corpus (:class:`CorpusCounts`: hashed character trigrams, words, word
bigrams and accented spellings per side, the n-grams of ngrams.py; integer counts merged in task order, so
every engine gets the same); :class:`CorpusModel` scores each side under those counts: a character-trigram fluency
(Zipporah, Xu & Koehn 2017, uses the same fluency idea), a word-bigram fluency, and the spelling and
word-order typicality of word_typicality.py. Every lookup leaves out the sentence's own occurrences
(sentences.py); a synthetic training example is looked up as if it stood in the corpus in the place of
the pair it was made from.
"""

from __future__ import annotations

from dataclasses import dataclass

import numba
import numpy as np

from ..encoders import lower_bound
from ..errors import InputError
from ..text import lowered
from .ngrams import (
    bigram_ids,
    sentence_bigram_ids,
    sentence_bigram_rows,
    spelling_grams,
    spelling_pairs,
    trigram_ids,
    word_bigrams,
    word_shapes,
)
from .sentences import Multiset, SentenceCounts, sentence_keys, without_own
from .tokens import token_marks
from .word_typicality import (
    SHAPE_BUCKETS,
    WORD_TYPICALITY_FEATURES,
    Bigrams,
    spelling,
    sub_word_share,
    swaps,
    unspaced,
)

SCANNED = 32  # bigrams of a sentence that _times_in scans instead of searching them sorted
CORPUS_FEATURES = ("fluency_src", "fluency_tgt", "words_src", "words_tgt", *WORD_TYPICALITY_FEATURES)


# -- corpus statistics -------------------------------------------------------------------------
COUNT_LIMIT = 1 << 40  # the largest count a saved model's table may hold: the sum of a table stays far inside int64


@dataclass
class CorpusCounts:
    """Integer statistics of the corpus, mergeable in any order (exact sums), per side:
    ``trigrams[side]`` / ``contexts[side]``, hashed character-trigram and trigram-prefix counts;
    ``words[side]`` / ``bigrams[side]``, hashed word and word-bigram counts (``words[side, 0]``:
    the sentences, the context of each first word; id 0 stands for the sentence's start before its first
    word and for its end after its last, so ``bigrams`` counts both); ``accented[side]``, the words with a diacritic
    per hashed spelling key; ``spelling_pairs[side]`` / ``accented_pairs[side]``, every word per hashed pair of
    its spelling key and the key of the word before it (0 before the first), and those of them with a diacritic
    (word_typicality.spelling); ``plain_grams[side]`` / ``accented_grams[side]``, the folded character n-grams
    of the words (ngrams.spelling_grams) written without / with a diacritic in them (the
    sub-word share of word_typicality.spelling); ``shapes[side]`` / ``shape_bigrams[side]``, the same counts of
    the words' shapes (word_typicality.py); ``stems[side]`` / ``stem_bigrams[side]``, the same counts of the words'
    stems (tokens.STEM, as the alignment's: the order test of word_typicality.swaps).
    """

    trigrams: np.ndarray  # (2, fluency_buckets)
    contexts: np.ndarray  # (2, fluency_buckets)
    words: np.ndarray  # (2, word_buckets)
    bigrams: np.ndarray  # (2, word_buckets)
    accented: np.ndarray  # (2, word_buckets)
    spelling_pairs: np.ndarray  # (2, word_buckets)
    accented_pairs: np.ndarray  # (2, word_buckets)
    plain_grams: np.ndarray  # (2, word_buckets)
    accented_grams: np.ndarray  # (2, word_buckets)
    shapes: np.ndarray  # (2, SHAPE_BUCKETS)
    shape_bigrams: np.ndarray  # (2, SHAPE_BUCKETS)
    stems: np.ndarray  # (2, word_buckets)
    stem_bigrams: np.ndarray  # (2, word_buckets)

    @classmethod
    def count(cls, src: list[str], tgt: list[str], fluency_buckets: int, word_buckets: int) -> "CorpusCounts":
        return cls.of_lowered((src, tgt), (lowered(src), lowered(tgt)), fluency_buckets, word_buckets)

    @classmethod
    def of_lowered(cls, sides: tuple[list[str], list[str]], texts: tuple[tuple, tuple], fluency_buckets: int,
                   word_buckets: int) -> "CorpusCounts":
        """The counts of both sides' sentences ``sides``, whose ``lowered`` code points are ``texts`` (trigrams,
        words and spelling keys of one lowering)."""
        tables: dict[str, list] = {name: [] for name in cls.__dataclass_fields__}
        for sentences, text in zip(sides, texts):
            trigram, context, _ = trigram_ids(text, fluency_buckets)
            tables["trigrams"].append(np.bincount(trigram, minlength=fluency_buckets))
            tables["contexts"].append(np.bincount(context, minlength=fluency_buckets))
            previous, word, sentence, stem_previous, stem = word_bigrams(text, word_buckets)
            words = np.bincount(word, minlength=word_buckets)
            words[0] = np.count_nonzero(previous == 0)  # the sentences with a word: the first words' context
            tables["words"].append(words)
            tables["bigrams"].append(np.bincount(sentence_bigram_ids(previous, word, word_buckets),
                                                 minlength=word_buckets))
            keys, had_accent, pairs = spelling_pairs(sentences, text, previous, sentence, word_buckets)
            tables["accented"].append(np.bincount(keys[had_accent], minlength=word_buckets))
            tables["spelling_pairs"].append(np.bincount(pairs, minlength=word_buckets))
            tables["accented_pairs"].append(np.bincount(pairs[had_accent], minlength=word_buckets))
            grams, folded, _ = spelling_grams(text, word_buckets, had_accent)
            tables["plain_grams"].append(np.bincount(grams[~folded], minlength=word_buckets))
            tables["accented_grams"].append(np.bincount(grams[folded], minlength=word_buckets))
            shape_previous, shape = word_shapes(sentences, previous, sentence)
            shapes = np.bincount(shape, minlength=SHAPE_BUCKETS)
            shapes[0] = words[0]
            tables["shapes"].append(shapes)
            tables["shape_bigrams"].append(np.bincount(sentence_bigram_ids(shape_previous, shape, SHAPE_BUCKETS),
                                                       minlength=SHAPE_BUCKETS))
            stems = np.bincount(stem, minlength=word_buckets)
            stems[0] = words[0]
            tables["stems"].append(stems)
            tables["stem_bigrams"].append(np.bincount(sentence_bigram_ids(stem_previous, stem, word_buckets),
                                                      minlength=word_buckets))
        return cls(**{name: np.stack(rows).astype(np.int32) for name, rows in tables.items()})

    def merge(self, other: "CorpusCounts") -> "CorpusCounts":
        return CorpusCounts(*(np.add(a, b, dtype=np.int64)
                              for a, b in zip(self.arrays().values(), other.arrays().values())))

    def add(self, other: "CorpusCounts") -> "CorpusCounts":
        """``merge`` for a running total the caller owns: int64 sums by the first merge, then in place."""
        if self.trigrams.dtype != np.int64:
            return self.merge(other)
        for mine, theirs in zip(self.arrays().values(), other.arrays().values()):
            np.add(mine, theirs, out=mine)
        return self

    def arrays(self) -> dict[str, np.ndarray]:
        return dict(vars(self))  # the fields, in their order

    @classmethod
    def from_arrays(cls, arrays: dict[str, np.ndarray]) -> "CorpusCounts":
        """The counts ``arrays`` wrote (TypeError if one is missing or unknown), refused (InputError) unless each
        table has the shape its look-ups index (the field comments) and holds integers from 0 to ``COUNT_LIMIT``."""
        counts = cls(**arrays)
        width = {name: table.shape[-1] if table.ndim else 0 for name, table in arrays.items()}
        shape = (2, SHAPE_BUCKETS)
        expected = {**dict.fromkeys(width, (2, width["words"])), "trigrams": (2, width["trigrams"]),
                    "contexts": (2, width["trigrams"]), "shapes": shape, "shape_bigrams": shape}
        if width["words"] < 2 or any(table.shape != expected[name] for name, table in arrays.items()):
            raise InputError("corpus counts have bad shapes")
        if not all(t.dtype.kind in "iu" and t.size and 0 <= t.min() <= t.max() <= COUNT_LIMIT for t in arrays.values()):
            raise InputError(f"corpus counts are not counts (integers from 0 to 2^{COUNT_LIMIT.bit_length() - 1})")
        return counts


@numba.njit(cache=True, nogil=True)
def _sorted_rows(row_starts, ids):  # pragma: no cover - compiled
    """``ids`` with each row (CSR ``row_starts``) longer than ``_times_in`` scans sorted."""
    out = ids.copy()
    for r in range(row_starts.size - 1):
        if row_starts[r + 1] - row_starts[r] > SCANNED:
            out[row_starts[r] : row_starts[r + 1]].sort()
    return out


@numba.njit(cache=True, nogil=True)
def _times_in(row_starts, sorted_ids, rows, query):  # pragma: no cover - compiled
    """How many times each ``query`` id is among the ids of its row (``rows``; CSR ``row_starts``,
    ``sorted_ids``: _sorted_rows): a scan of a row of up to ``SCANNED`` ids, a binary search in a longer one."""
    out = np.zeros(query.size, np.int64)
    for q in range(query.size):
        start, end, value = row_starts[rows[q]], row_starts[rows[q] + 1], query[q]
        if end - start <= SCANNED:
            for i in range(start, end):
                out[q] += sorted_ids[i] == value
        else:  # the length of the run of ids equal to it, by two searches (a run can be the whole row)
            at = lower_bound(sorted_ids, start, end, value)
            out[q] = lower_bound(sorted_ids, at, end, value + 1) - at
    return out


class CorpusModel:
    """Fluency of each side under models counted on the corpus's own sides (:class:`CorpusCounts`):

    * character trigrams: p(c | ab) = (c(abc) + a) / (c(ab) + a K), K = 256, a = 1/2;
    * words: p(w | v) = (c(vw) + b p(w)) / (c(v) + b), p(w) = (c(w) + 1/2) / (N + B / 2) (N words,
      B buckets, b = 4): a bigram model interpolated with the unigram one (Jelinek & Mercer 1980 with
      a count-dependent weight, as Witten-Bell smoothing has): misordered, garbled or glued words
      make bigrams and words the corpus does not have.

    Every count a sentence's own n-gram is looked up with is lowered by the occurrences the sentence itself
    added (leave-one-out, floored at 0; as many as the corpus has the sentence, ``sentences``): a word order
    or spelling that only the sentence itself has is no evidence for it (else a misordered bigram that the
    corpus has once, in that very sentence, would look as usual as its right order). For a corpus the counts
    were not made on (a saved model scoring another) this is absolute discounting by one (Ney, Essen &
    Kneser 1994); a saved model scores the corpus it was fitted on as that run did.
    """

    smoothing = 0.5
    alphabet = 256
    interpolation = 4.0
    word_prior = 4.0  # words of no association (log ratio 0) every sentence is assumed to have besides its own
    order_smoothing = 0.5  # d, added to every bigram count of the order test (word_typicality.swaps)

    def __init__(self, counts: CorpusCounts, sentences: SentenceCounts | None = None):
        a = self.smoothing
        self.counts, self.sentences = counts, sentences or SentenceCounts.none()
        self.fluency_buckets, self.word_buckets = counts.trigrams.shape[1], counts.words.shape[1]
        self.log_trigram = np.log(without_own(counts.trigrams, slice(None), 1) + a)  # a sentence had once
        self.log_context = np.log(without_own(counts.contexts, slice(None), 1) + a * self.alphabet)
        self.total = counts.words[:, 1:].sum(axis=1)
        self.shape_total = counts.shapes[:, 1:].sum(axis=1)
        self.stem_total = counts.stems[:, 1:].sum(axis=1)

    def features(self, src: list[str], tgt: list[str], originals: tuple | None = None, texts: tuple | None = None
                 ) -> np.ndarray:
        """The CORPUS_FEATURES of each pair, (n, 8) float32. ``originals`` = (sources, targets, present): for
        synthetic examples, the corpus pair each replaces, whose n-grams are left out of the counts instead
        of the example's own, and whether each example side is a sentence of the corpus ((n, 2) bool: then
        its occurrences are left out too): the example is scored as if it stood in the corpus in its
        original's place, as a noisy pair of a real corpus is. ``texts``: the sides' ``lowered`` code points, if
        the caller has them."""
        sides = []
        for side, sentences in enumerate((src, tgt)):
            text = texts[side] if texts else lowered(sentences)
            own = self.sentences.occurrences(sentence_keys(text, side))
            original = None
            if originals is not None:
                own = own * originals[2][:, side]
                original = self.original_ngrams(originals[side])
            sides.append(self.side_features(sentences, text, side, own, original))
        return np.column_stack([column for columns in zip(*sides) for column in columns]).astype(np.float32)

    def side_features(self, sentences: list[str], text: tuple, side: int, own: np.ndarray, original: dict | None
                      ) -> tuple:
        """fluency, words, spelling and swaps of one side's ``sentences`` (``text``: lowered), each looked up
        without its ``own`` occurrences and, for a synthetic example, its ``original``'s n-grams (original_ngrams)."""
        counts, n, buckets = self.counts, text[2], self.word_buckets
        previous, word, sentence, stem_previous, stem = word_bigrams(text, buckets)
        own_word = own[sentence]

        def lookup(table, ids, kind, at=slice(None)):  # ``at``: the word of each id, if not one id per word
            own_at = own_word[at]
            return without_own(table, ids, own_at + original[kind](sentence[at], ids) if original else own_at)

        bigrams = lookup(counts.bigrams[side], bigram_ids(previous, word, buckets), "bigrams")
        words = lookup(counts.words[side], word, "words")
        contexts = lookup(counts.words[side], previous, "words")
        word_model = self.bigram_model((previous, word, sentence), words, counts.words[side], counts.bigrams[side],
                                       self.total[side], own, original and original["bigrams"])
        shape_previous, shape = word_shapes(sentences, previous, sentence)
        shape_model = self.bigram_model((shape_previous, shape, sentence), lookup(counts.shapes[side], shape, "shapes"),
                                        counts.shapes[side], counts.shape_bigrams[side], self.shape_total[side], own,
                                        original and original["shape_bigrams"])
        stems = lookup(counts.stems[side], stem, "stems")
        stem_model = self.bigram_model((stem_previous, stem, sentence), stems, counts.stems[side],
                                       counts.stem_bigrams[side], self.stem_total[side], own,
                                       original and original["stem_bigrams"])
        arguments, spaced = token_marks(text)
        keys, had_accent, pairs = spelling_pairs(sentences, text, previous, sentence, buckets)
        grams, _, token = spelling_grams(text, buckets, had_accent, (words == 0) & ~had_accent)
        sub_word = sub_word_share(lookup(counts.plain_grams[side], grams, "plain_grams", token),
                                  counts.accented_grams[side, grams], token, words.size)
        return (self.fluency(text, side, own, original), self.word_fluency(bigrams, contexts, words, sentence, side, n),
                spelling(had_accent, words, counts.accented[side, keys], lookup(counts.spelling_pairs[side], pairs,
                                                                              "spelling_pairs"),
                         counts.accented_pairs[side, pairs], sub_word, sentence, n),
                swaps(word_model, shape_model, stem_model, (words >= 1) & ~arguments,
                      (stems >= 1) & ~arguments, spaced, unspaced(text),
                      self.interpolation, self.order_smoothing))

    @staticmethod
    def bigram_model(tokens: tuple, token_counts: np.ndarray, unigrams: np.ndarray, bigrams: np.ndarray, total: int,
                     own: np.ndarray, original: Multiset | None) -> Bigrams:
        """The ``tokens`` (previous, token, sentence: word_bigrams; ``token_counts``: c(w) of each, already looked
        up as below) under one side's counts of ``unigrams`` and ``bigrams`` (``total`` tokens), each bigram looked
        up without the occurrences the sentence itself added (``own`` times) and, for a synthetic example, its
        ``original``'s (the original's bigram Multiset)."""
        previous, token, sentence = tokens
        buckets = unigrams.size
        own_rows = np.r_[0, np.cumsum(np.bincount(sentence_bigram_rows(previous, sentence), minlength=own.size))]
        own_ids = _sorted_rows(own_rows, sentence_bigram_ids(previous, token, buckets))  # each sentence's bigrams

        def count(first: np.ndarray, second: np.ndarray, rows: np.ndarray) -> np.ndarray:
            ids = bigram_ids(first, second, buckets)
            left_out = own[rows] * _times_in(own_rows, own_ids, rows, ids)
            return without_own(bigrams, ids, left_out + original(rows, ids) if original else left_out)

        unigram = (token_counts + 0.5) / (total + 0.5 * buckets)
        return Bigrams(previous, token, sentence, count, unigram, (unigrams[0] + 0.5) / (total + 0.5 * buckets))

    def original_ngrams(self, sentences: list[str]) -> dict:
        """The n-grams of each original sentence, per table the synthetic examples are looked up in."""
        text = lowered(sentences)
        trigram, context, at = trigram_ids(text, self.fluency_buckets)
        previous, word, sentence, stem_previous, stem = word_bigrams(text, self.word_buckets)
        shape_previous, shape = word_shapes(sentences, previous, sentence)
        first = previous == 0
        _, had_accent, pairs = spelling_pairs(sentences, text, previous, sentence, self.word_buckets)
        grams, folded, token = spelling_grams(text, self.word_buckets, had_accent)
        return {"trigrams": Multiset(at, trigram, self.fluency_buckets),
                "contexts": Multiset(at, context, self.fluency_buckets),
                "words": Multiset(np.r_[sentence, sentence[first]], np.r_[word, previous[first]], self.word_buckets),
                "bigrams": Multiset(sentence_bigram_rows(previous, sentence),
                                    sentence_bigram_ids(previous, word, self.word_buckets), self.word_buckets),
                "spelling_pairs": Multiset(sentence, pairs, self.word_buckets),
                "plain_grams": Multiset(sentence[token[~folded]], grams[~folded], self.word_buckets),
                "shapes": Multiset(np.r_[sentence, sentence[first]], np.r_[shape, shape_previous[first]],
                                   SHAPE_BUCKETS),
                "shape_bigrams": Multiset(sentence_bigram_rows(previous, sentence),
                                          sentence_bigram_ids(shape_previous, shape, SHAPE_BUCKETS), SHAPE_BUCKETS),
                "stems": Multiset(np.r_[sentence, sentence[first]], np.r_[stem, stem_previous[first]],
                                  self.word_buckets),
                "stem_bigrams": Multiset(sentence_bigram_rows(previous, sentence),
                                         sentence_bigram_ids(stem_previous, stem, self.word_buckets),
                                         self.word_buckets)}

    def fluency(self, text: tuple, side: int, own: np.ndarray, original: dict | None = None) -> np.ndarray:
        """Mean log p(c | ab) over each sentence's character trigrams (log 1/K without any), each looked up
        without the sentence's ``own`` occurrences and its ``original``'s trigrams (original_ngrams)."""
        trigram, context, sentence = trigram_ids(text, self.fluency_buckets)
        log_p = self.log_trigram[side, trigram] - self.log_context[side, context]
        repeated = np.flatnonzero(own[sentence] != 1) if original is None else np.arange(trigram.size)
        if repeated.size:
            times, a, at = own[sentence[repeated]], self.smoothing, sentence[repeated]
            if original is not None:
                tri = times + original["trigrams"](at, trigram[repeated])
                ctx = times + original["contexts"](at, context[repeated])
            else:
                tri = ctx = times
            log_p[repeated] = (np.log(without_own(self.counts.trigrams[side], trigram[repeated], tri) + a)
                               - np.log(without_own(self.counts.contexts[side], context[repeated], ctx)
                                        + a * self.alphabet))
        n = text[2]
        total, count = np.bincount(sentence, log_p, minlength=n), np.bincount(sentence, minlength=n)
        return np.where(count > 0, total / np.maximum(count, 1), np.log(1.0 / self.alphabet))

    def word_fluency(self, bigrams: np.ndarray, contexts: np.ndarray, words: np.ndarray, sentence: np.ndarray,
                     side: int, n: int) -> np.ndarray:
        """Mean log p(w | v) / p(w) over each sentence's words and ``word_prior`` words of log ratio 0:
        how much more likely each word is after the word before it than alone, which misordered or
        garbled words are not; rare words, which clean technical text has plenty of, do not lower it as
        they lower log p(w | v), and a sentence of one or two words, which says little, stays near 0.
        ``bigrams``, ``contexts``, ``words``: c(vw), c(v), c(w) of each word of the side's ``n`` sentences
        (word_bigrams, in ``sentence``), without the sentence's own occurrences."""
        b = self.interpolation
        unigram = (words + 0.5) / (self.total[side] + 0.5 * self.word_buckets)
        p = (bigrams + b * unigram) / (contexts + b)
        total, count = np.bincount(sentence, np.log(p / unigram), minlength=n), np.bincount(sentence, minlength=n)
        return total / (count + self.word_prior)
