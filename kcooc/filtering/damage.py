"""Surface damage of each side of a pair, vectorised over a block of pairs.

What the hard rules of the usual filters test for, as graded features of the learned score, so that
a damaged pair moves some feature whatever damage the synthetic training noise showed (bicleaner's
hard rules, Sánchez-Cartagena et al. 2018: glued words, repeated words, Unicode noise, escaped
Unicode, bad encoding, space noise, titles; OpusFilter's filters, Aulamo et al. 2020: long words,
alphabet ratio, repetition, longest common substring):

* ``glyphs_src`` / ``glyphs_tgt``: a side's noise glyphs beyond the other side's, over its non-space
  characters: control and format characters, U+FFFD, private use; an escape (``\\u00e9``,
  ``&eacute;``, ``&#233;``); two spaces in a row, or a space before a comma or full stop. What both sides
  have is the corpus's own style (``Unpacking %s ...`` / ``Entpacken von %s ...``, a ``\\n`` kept in
  both), not damage to one of them;
* ``encoding_src`` / ``encoding_tgt``: log(1 + n) for the n UTF-8 lead bytes read as Latin-1 or cp1252
  and followed by as many continuation bytes so read as they lead (``Ã©``, ``â€™``, ``Ð¿Ñ€``): UTF-8
  decoded with the wrong code page (one such letter in a long line is a small share, and a certain
  defect). The lead of three bytes needs both: á, é, í are such leads, and Czech writes ``píše``,
  ``blíž`` (š and ž are cp1252 continuation bytes);
* ``repeats_src`` / ``repeats_tgt``: the larger of the share of a side's token bigrams that repeat one
  earlier in the same side and the share 2k / n of its n tokens in its longest run of k tokens followed
  at once by the same k (k up to ``REPEAT_SHIFTS``): a stutter (``набір засобів набір засобів``), a
  segment doubled (``Домен Домен``: one word twice has no repeated bigram), what OpusFilter's
  RepetitionFilter looks for; a placeholder's name or a number (tokens.argument_tokens) equals no other
  token, so ``%s: %s`` repeats nothing;
* ``stutter_src`` / ``stutter_tgt``: a side's share 2k / n of its n tokens, read with their case and
  placeholders and numbers as written, in its longest run of k tokens (at least ``STUTTER_LEAST`` code
  points) followed at once by the same k with the same separators around them (the text between the copies
  is what ends the second copy's last word followed by what starts the first copy's first word: ``P c S P c
  S``), less the other side's share (at least 0): text repeated in place on one side only (``Print Preview
  Print Preview``, ``Open it. Open it.``, ``Цей пакунок Цей пакунок містить``). ``-i, --interactive
  interactive`` (an option and its description) and ``Alarm - Alarm notifier`` repeat no separators,
  ``КЛЮЧ Ключ`` (a metavariable and its gloss) differs in case, ``C C`` and the ``イン イン`` of
  ``ラインインターフェース`` are too short: none is a stutter. A fixed prior of the learned score (priors.py)
  acts on it;
* ``glued_src`` / ``glued_tgt``: log(1 + n) for the n places where a lower-case letter is followed at once by
  a capital, beyond the other side's (``UngültigerDateiname``: words glued together by lost spaces; a name
  written so on both sides, ``LibreOffice``, is none). A fixed prior of the learned score acts on it;
* ``long_words_src`` / ``long_words_tgt``: log(1 + letters in the side's longest run of letters)
  (words glued together by lost spaces);
* ``spaced_src`` / ``spaced_tgt``: log(1 + n) for the longest run of n + 1 letters each written as a
  word of its own (``F i l e``, ``フ ァ イ ル``: text letter-spaced by a layout or an extraction tool;
  0 without two such letters in a row);
* ``initial_case``: 0 when the first letter of one side is upper-case and the other's lower-case, else
  1 (a side that starts inside a sentence, or whose first words were moved);
* ``caps_gap``: difference between the sides' shares of upper-case letters among cased letters
  (0 unless both sides have cased letters: a side shouted in capitals, or title-cased);
* ``symbols_gap``: difference between the sides' shares of non-space characters that are not
  letters (digits, punctuation, symbols: one side that is mostly markup, numbers or debris);
* ``copy``: share of the target's distinct character trigrams (lower-cased) that the source has
  too (an untranslated or partly copied target).

Tokens are tokens.py's (``token_sequences``: runs of letters and digits, lower-cased, each kana and
Han character a token).
"""

from __future__ import annotations

import numba
import numpy as np

from ..text import CONTROL, LETTER, LOWER, SPACE, UPPER, TextStats, code_points
from .tokens import CJK, SEPARATORS, argument_tokens, token_bounds

REPEAT_SHIFTS = 256  # the longest immediately repeated run repeats_* looks for, in tokens
HASH_BASE = 1000003  # of the tokens of a repeated run and of the separators around it
STUTTER_LEAST = 3  # code points of a run stutter_* counts: a letter or kana twice (C C, イン イン) is none
DAMAGE_FEATURES = ("glyphs_src", "glyphs_tgt", "encoding_src", "encoding_tgt", "repeats_src", "repeats_tgt",
                   "stutter_src", "stutter_tgt", "glued_src", "glued_tgt", "long_words_src", "long_words_tgt",
                   "spaced_src", "spaced_tgt", "initial_case", "caps_gap", "symbols_gap", "copy")

_PRIVATE_USE = np.zeros(1 << 16, dtype=bool)
_PRIVATE_USE[0xE000:0xF900] = True
# UTF-8 read as Latin-1 or cp1252: a lead byte shown as its Latin-1 letter, then the continuation bytes
# (0x80-0xBF) it leads, each shown as its Latin-1 or cp1252 character: one after 0xC2-0xDF, two after 0xE0-0xEF
_LEAD = np.zeros(1 << 16, dtype=np.int8)
_LEAD[0xC2:0xE0] = 1
_LEAD[0xE0:0xF0] = 2
_CONTINUATION = np.zeros(1 << 16, dtype=bool)
_CONTINUATION[0x80:0xC0] = True
_CONTINUATION[[ord(bytes([b]).decode("cp1252")) for b in range(0x80, 0xA0)
               if b not in (0x81, 0x8D, 0x8F, 0x90, 0x9D)]] = True
_ESCAPE_LETTERS = np.zeros(128, dtype=bool)
_ESCAPE_LETTERS[[ord(c) for c in "uUxn"]] = True
_VISIBLE = ~SPACE
_SYMBOL = ~SPACE & ~LETTER


def glyph_counts(stats: TextStats) -> np.ndarray:
    """Noise glyphs of each sentence (see the module docstring)."""
    return _glyphs(stats.codes, stats.sentence_of, stats.lengths.size, CONTROL, _PRIVATE_USE, _ESCAPE_LETTERS, LETTER)


def beyond_other(s_values: np.ndarray, t_values: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Each side's value less the other side's, at least 0: damage one side has and the other has not."""
    return np.maximum(s_values - t_values, 0), np.maximum(t_values - s_values, 0)


def glyph_shares(s: TextStats, t: TextStats, s_visible: np.ndarray, t_visible: np.ndarray) -> tuple:
    """The ``glyphs_src`` and ``glyphs_tgt`` features of each pair: a side's noise glyphs beyond the other
    side's, over its non-space characters (``visible_characters``)."""
    s_beyond, t_beyond = beyond_other(glyph_counts(s), glyph_counts(t))
    return s_beyond / np.maximum(s_visible, 1), t_beyond / np.maximum(t_visible, 1)


def glued_counts(stats: TextStats) -> np.ndarray:
    """Per sentence, the places where a lower-case letter is followed at once by a capital (``glued_*``)."""
    codes = np.minimum(stats.codes, 0xFFFF)
    glued = LOWER[codes[:-1]] & UPPER[codes[1:]] & (stats.sentence_of[:-1] == stats.sentence_of[1:])
    return np.bincount(stats.sentence_of[:-1][glued], minlength=stats.lengths.size)


def visible_characters(stats: TextStats) -> np.ndarray:
    """Non-space characters of each sentence (the denominator of the glyph and symbol shares)."""
    return stats.count(_VISIBLE)


@numba.njit(cache=True, nogil=True)
def _glyphs(codes, sentence_of, n, control, private_use, escape_letters, letter):  # pragma: no cover - compiled
    """Per sentence, its code points that are noise glyphs: a control, format or private-use character or U+FFFD
    (not a tab, not the separator after the sentence), a backslash before u, U, x or n, an ampersand before a name
    or number closed by a semicolon within its next 2-9 code points of the same sentence, a space before a space
    (not at the sentence's start), a comma or a full stop."""
    out = np.zeros(n, np.int64)
    size = codes.size
    for i in range(size):
        c, r = np.int64(codes[i]), sentence_of[i]
        following = np.int64(codes[i + 1]) if i + 1 < size else 10
        preceding = np.int64(codes[i - 1]) if i > 0 else 10
        last = i + 1 == size or sentence_of[i + 1] != r
        index = min(c, 0xFFFF)
        glyph = (control[index] or private_use[index] or c == 0xFFFD) and not last and c != 9
        glyph = glyph or (c == 92 and following < 128 and escape_letters[min(following, 127)])
        if not glyph and c == 38 and (following == 35 or letter[min(following, 0xFFFF)]):
            for k in range(2, 10):
                at = min(i + k, size - 1)
                if sentence_of[at] == r and codes[at] == 59:
                    glyph = True
                    break
        glyph = glyph or (c == 32 and ((following == 32 and preceding != 10) or following == 44 or following == 46))
        out[r] += glyph
    return out


def misdecoded(stats: TextStats) -> np.ndarray:
    """UTF-8 lead bytes read as Latin-1 or cp1252 before the continuation bytes they lead so read, per sentence."""
    return _misdecoded(stats.codes, stats.sentence_of, stats.lengths.size)


def misdecoded_sentences(sentences: list[str]) -> np.ndarray:
    """Whether each of ``sentences`` has a UTF-8 lead byte read as Latin-1 or cp1252 (``misdecoded``)."""
    codes, sentence_of, lengths = code_points(sentences)
    return _misdecoded(codes, sentence_of, lengths.size) > 0


def _misdecoded(codes: np.ndarray, sentence_of: np.ndarray, n: int) -> np.ndarray:
    codes = np.minimum(codes, 0xFFFF)
    lead, follows = _LEAD[codes], np.zeros((3, codes.size), dtype=bool)  # follows[k]: a continuation k places on
    follows[1, :-1], follows[2, :-2] = _CONTINUATION[codes[1:]], _CONTINUATION[codes[2:]]
    found = ((lead == 1) & follows[1]) | ((lead == 2) & follows[1] & follows[2])
    return np.bincount(sentence_of[found], minlength=n)


def repeat_share(ids: np.ndarray, indptr: np.ndarray, arguments: np.ndarray) -> np.ndarray:
    """The ``repeats`` feature of each sentence from its token ids (CSR rows) and which of them are
    arguments (tokens.argument_tokens)."""
    ids = ids.astype(np.int64)
    bigrams = _repeated_bigrams(ids, indptr) / np.maximum(np.diff(indptr) - 1, 1)
    nothing = np.zeros((3, ids.size + indptr.size), dtype=np.int64)  # no separators: every run counts
    return np.maximum(bigrams, run_share(ids, indptr, arguments, np.arange(ids.size + 1), 0, nothing, nothing))


def run_share(ids: np.ndarray, indptr: np.ndarray, arguments: np.ndarray, sizes: np.ndarray, least: int,
              separators: np.ndarray, separator_sizes: np.ndarray) -> np.ndarray:
    """2k / n of each sentence: the share of its n tokens (ids as CSR rows) in its longest run of k tokens followed at
    once by the same k, of at least ``least`` code points (``sizes``: the tokens' cumulative code points), the copies
    with their separators (``_separators``); an argument (tokens.argument_tokens) equals no other token."""
    distinct = np.where(arguments, -1 - np.arange(ids.size), ids.astype(np.int64))
    longest = _longest_repeat(distinct, indptr, REPEAT_SHIFTS, sizes, least, separators, separator_sizes)
    return 2 * longest / np.maximum(np.diff(indptr), 1)


def stutters(s: TextStats, t: TextStats) -> tuple[np.ndarray, np.ndarray]:
    """The ``stutter`` features of each pair: each side's ``run_share`` over its tokens with their case (the
    sides' own code points, ``TextStats.codes``; an argument is a token like any other), in runs of at least
    ``STUTTER_LEAST`` code points repeated with their separators, less the other side's, at least 0."""
    shares = []
    for stats in (s, t):
        codes, sentence_of, n = stats.codes, stats.sentence_of, stats.lengths.size
        starts, ends, counts = token_bounds(codes, sentence_of, n, SEPARATORS, CJK)
        tokens, separators, separator_sizes = _separators(codes, sentence_of, n, starts, ends, SPACE)
        shares.append(run_share(tokens, np.r_[0, np.cumsum(counts)], np.zeros(tokens.size, dtype=bool),
                                np.r_[0, np.cumsum(ends - starts)], STUTTER_LEAST, separators, separator_sizes))
    return beyond_other(shares[0], shares[1])


@numba.njit(cache=True, nogil=True)
def _separators(codes, sentence_of, n, starts, ends, space):  # pragma: no cover - compiled
    """Polynomial hashes (``HASH_BASE``, modulo 2^64) of each token's code points; and hashes and sizes of the code
    points other than white space between each token and the token before it in its sentence (or the sentence's
    start), then between each sentence's last token and its end (entry ``len(starts) + i`` for sentence i); rows:
    all of them, those before the first white space (what ends the word before), those after the last (what starts
    the word after; without white space both are all of them)."""
    tokens = starts.size
    keys = np.zeros(tokens, np.int64)
    hashes, sizes = np.zeros((3, tokens + n), np.int64), np.zeros((3, tokens + n), np.int64)
    spaced = np.zeros(tokens + n, np.bool_)
    for t in range(tokens + 1):
        if t < tokens:
            for i in range(starts[t], ends[t]):
                keys[t] = keys[t] * HASH_BASE + codes[i]
        sentence = sentence_of[starts[t]] if t < tokens else n
        for i in range(ends[t - 1] if t > 0 else 0, starts[t] if t < tokens else codes.size):
            at = t if sentence_of[i] == sentence else tokens + sentence_of[i]  # else the tail of an earlier one
            if space[min(codes[i], 0xFFFF)]:
                spaced[at] = True
                hashes[2, at], sizes[2, at] = 0, 0
                continue
            for row in range(3):
                if row != 1 or not spaced[at]:
                    hashes[row, at] = hashes[row, at] * HASH_BASE + codes[i]
                    sizes[row, at] += 1
    return keys, hashes, sizes


@numba.njit(cache=True, nogil=True)
def _repeated_bigrams(ids, indptr):  # pragma: no cover - compiled
    """Per sentence, its token bigrams that repeat one earlier in it: all of them less the distinct ones."""
    n = indptr.size - 1
    out = np.zeros(n, dtype=np.int64)
    keys = np.empty(max(ids.size, 1), dtype=np.int64)
    for i in range(n):
        size = indptr[i + 1] - indptr[i] - 1
        if size < 2:
            continue
        for k in range(size):
            keys[k] = ids[indptr[i] + k] << 32 | ids[indptr[i] + k + 1]
        keys[:size].sort()
        for k in range(1, size):
            out[i] += keys[k] == keys[k - 1]
    return out


@numba.njit(cache=True, nogil=True)
def _longest_repeat(ids, indptr, shifts, sizes, least, separators, separator_sizes):  # pragma: no cover - compiled
    """Per sentence, the largest k <= ``shifts`` such that k of its tokens, of at least ``least`` code points
    together (``sizes``: the cumulative code points of the tokens, one more entry than tokens), are followed at
    once by the same k, and with their separators (``_separators``): those between the copies are the ones that
    end the second copy's last word followed by the ones that start the first copy's first word (the text
    ``P c S P c S``: ``Open it. Open it.``, ``[one] [one]``, ``PDF, HTML from HTML from``; not ``--interactive
    interactive``)."""
    n, tokens = indptr.size - 1, ids.size
    out = np.zeros(n, dtype=np.int64)
    for i in range(n):
        start, end = indptr[i], indptr[i + 1]
        for k in range(1, min((end - start) // 2, shifts) + 1):
            run = 0
            for j in range(start, end - k):
                run = run + 1 if ids[j] == ids[j + k] else 0
                if run < k or sizes[j + 1] - sizes[j + 1 - k] < least:
                    continue
                first, after = j + 1 - k, j + k + 1 if j + k + 1 < end else tokens + i
                expected = separators[1, after]
                for _ in range(separator_sizes[2, first]):
                    expected *= HASH_BASE
                if (separators[0, j + 1] == expected + separators[2, first]
                        and separator_sizes[0, j + 1] == separator_sizes[1, after] + separator_sizes[2, first]):
                    out[i] = k
                    break
    return out


def longest_letter_run(stats: TextStats) -> np.ndarray:
    """Letters in each sentence's longest run of letters."""
    return _longest_run(stats.codes, stats.sentence_of, stats.lengths.size, LETTER)


@numba.njit(cache=True, nogil=True)
def _longest_run(codes, sentence_of, n, letter):  # pragma: no cover - compiled
    """Per sentence, its longest run of code points ``letter`` marks (runs end at the separators)."""
    longest, run = np.zeros(n, np.int64), 0
    for i in range(codes.size):
        run = run + 1 if letter[min(codes[i], 0xFFFF)] else 0
        longest[sentence_of[i]] = max(longest[sentence_of[i]], run)
    return longest


def spaced_letters(stats: TextStats) -> np.ndarray:
    """n + 1 letters in each sentence's longest run of letters that are each a word of their own
    (separated by one space): n, 0 without two in a row."""
    return _spaced_letters(stats.codes, stats.sentence_of, stats.lengths.size, LETTER, SPACE)


@numba.njit(cache=True, nogil=True)
def _spaced_letters(codes, sentence_of, n, letter, space):  # pragma: no cover - compiled
    longest = np.zeros(n, np.int64)
    size, run, previous = codes.size, 0, -3
    for i in range(size):
        alone = (letter[min(codes[i], 0xFFFF)] and (i == 0 or space[min(codes[i - 1], 0xFFFF)])
                 and (i + 1 == size or space[min(codes[i + 1], 0xFFFF)]))  # the separators are white space too
        if not alone:
            continue
        run = run + 1 if previous == i - 2 and sentence_of[previous] == sentence_of[i] else 1
        longest[sentence_of[i]] = max(longest[sentence_of[i]], run - 1)
        previous = i
    return longest


def initial_case(stats: TextStats) -> np.ndarray:
    """Case of each sentence's first letter: 1 upper, -1 lower, 0 uncased or no letter."""
    return _initial_case(stats.codes, stats.sentence_of, stats.lengths.size, LETTER, UPPER, LOWER)


@numba.njit(cache=True, nogil=True)
def _initial_case(codes, sentence_of, n, letter, upper, lower):  # pragma: no cover - compiled
    case, seen = np.zeros(n, np.int64), np.zeros(n, np.bool_)
    for i in range(codes.size):
        c, r = min(codes[i], 0xFFFF), sentence_of[i]
        if letter[c] and not seen[r]:
            seen[r] = True
            case[r] = np.int64(upper[c]) - np.int64(lower[c])
    return case


def case_share(stats: TextStats) -> tuple[np.ndarray, np.ndarray]:
    """(share of upper-case letters among cased letters, whether the sentence has any cased letter)."""
    upper = stats.count(UPPER)
    cased = upper + stats.count(LOWER)
    return upper / np.maximum(cased, 1), cased > 0


def symbol_share(stats: TextStats, visible: np.ndarray) -> np.ndarray:
    """Share of each sentence's non-space characters (``visible``) that are not letters."""
    return stats.count(_SYMBOL) / np.maximum(visible, 1)


def copied_share(src: tuple, tgt: tuple) -> np.ndarray:
    """Share of each target's distinct lower-cased character trigrams that its source has too (0 for
    a target without trigrams; the trigrams of ``ngrams.trigram_ids``, compared exactly); ``src``, ``tgt``:
    the sides' ``lowered`` code points."""
    (s_codes, s_of, n), (t_codes, t_of, _) = src, tgt
    return _copied_share(s_codes.astype(np.int64), _starts(s_of, n), t_codes.astype(np.int64), _starts(t_of, n))


def _starts(sentence_of: np.ndarray, n: int) -> np.ndarray:
    """Where each of the ``n`` sentences' code points start (and the end of the last)."""
    return np.searchsorted(sentence_of, np.arange(n + 1))


@numba.njit(cache=True, nogil=True)
def _sentence_trigrams(codes, start, end, out):  # pragma: no cover - compiled
    """The sorted trigrams of codes[start:end] (one sentence and its end mark) packed in 63 bits, into
    ``out``; returns how many."""
    k = 0
    for i in range(start, end - 2):
        if codes[i] != 10:
            out[k] = codes[i] | codes[i + 1] << 21 | codes[i + 2] << 42
            k += 1
    out[:k].sort()
    return k


@numba.njit(cache=True, nogil=True)
def _copied_share(s_codes, s_starts, t_codes, t_starts):  # pragma: no cover - compiled
    n = s_starts.size - 1
    out = np.zeros(n)
    source = np.empty(max(s_codes.size, 1), dtype=np.int64)
    target = np.empty(max(t_codes.size, 1), dtype=np.int64)
    for i in range(n):
        m = _sentence_trigrams(t_codes, t_starts[i], t_starts[i + 1], target)
        if m == 0:
            continue
        k = _sentence_trigrams(s_codes, s_starts[i], s_starts[i + 1], source)
        distinct = shared = 0
        a = 0
        for b in range(m):
            if b > 0 and target[b] == target[b - 1]:
                continue
            distinct += 1
            while a < k and source[a] < target[b]:
                a += 1
            shared += a < k and source[a] == target[b]
        out[i] = shared / distinct
    return out


def damage_features(s: TextStats, t: TextStats, s_tokens: tuple, t_tokens: tuple, texts: tuple) -> np.ndarray:
    """The DAMAGE_FEATURES of each pair, (n, 18) float32; ``s``, ``t``: the sides' text statistics;
    ``s_tokens``, ``t_tokens``: their token ids (tokens.token_sequences), ``texts``: their ``lowered`` code
    points."""
    (s_caps, s_cased), (t_caps, t_cased) = case_share(s), case_share(t)
    s_visible, t_visible = visible_characters(s), visible_characters(t)
    columns = [*glyph_shares(s, t, s_visible, t_visible), np.log1p(misdecoded(s)), np.log1p(misdecoded(t)),
               repeat_share(*s_tokens, argument_tokens(texts[0])), repeat_share(*t_tokens, argument_tokens(texts[1])),
               *stutters(s, t), *(np.log1p(beyond) for beyond in beyond_other(glued_counts(s), glued_counts(t))),
               np.log1p(longest_letter_run(s)), np.log1p(longest_letter_run(t)),
               np.log1p(spaced_letters(s)), np.log1p(spaced_letters(t)), (initial_case(s) * initial_case(t) >= 0),
               np.where(s_cased & t_cased, np.abs(s_caps - t_caps), 0.0),
               np.abs(symbol_share(s, s_visible) - symbol_share(t, t_visible)),
               copied_share(*texts)]
    return np.column_stack(columns).astype(np.float32)
