"""How typical each side's words are of the corpus's own: their spelling and their order.

Spelling (``spelling_src``, ``spelling_tgt``): words written without the diacritics the corpus
writes them with. A target whose Latin letters lost their diacritics (``Größe`` -> ``Grosse``, ``fenêtre`` ->
``fenetre``, ``źródło`` -> ``zrodlo``: text that went through an ASCII-only tool) keeps its length,
its words' order, its numbers and mostly its character trigrams, so no other feature moves much. The
corpus itself says which spelling is the usual one: each word's *key* is the word lower-cased,
its Latin letters without diacritics (``FOLD``: the base letter of the canonical decomposition, and
ß, ł, ø, đ, æ, œ, ı by hand) and doubled letters written once (``Straße`` and ``Strasse`` share the
key ``strase``). The corpus counts, per key, the words that had a diacritic (``accented``); a word
without one is then as typical as its share of its key's words,

    share(w) = (c(w) + s(w) / 2) / (c(w) + accented(key(w)) + 1/2),

where s(w), the sub-word share, is 1 for a word the corpus has elsewhere (c(w) > 0) and otherwise what the
corpus's other words say of the word's letters: with r(g) = (u(g) + 1) / (u(g) + a(g) + 1) for each of the
word's folded character 4-grams g (the word's start and end two of their characters: ``geinformeerd`` has
``^gei``, ``gein``, ``einf``, ...), u(g) / a(g) the corpus's words with g written without / with a diacritic
in it, s(w) is the lowest over the word's letters of the highest r(g) among the grams that span the letter:
a letter that lost its diacritic leaves every gram around it one the corpus writes with accents
(``geïnstalleerd``, ``qualità``, ``źródło`` for ``geinformeerd``, ``estremita``, ``zrodlowego``), while a name
or a foreign word that shares one gram with an accented word keeps the others. s(w) is 1 where no word of the
corpus writes the grams around any letter with a diacritic: most of a side's words, and every word of a
language without diacritics. A sentence whose UTF-8 was read as Latin-1 or cp1252 (damage.misdecoded_sentences)
counts no diacritic (ngrams.spelling_pairs): Korean so read shows an ``ì`` or ``í`` for each syllable, which,
counted, made every clean ``I/O`` of a corpus with such lines a word that lost its accent.

read in the context of the word before it, v: among the corpus's word pairs whose keys are those of v and
w, u(v, w) had w's key without a diacritic and a(v, w) with one, and

    spelling(w) = log (u(v, w) + beta share(w)) / (u(v, w) + a(v, w) + beta),    beta = 2,

the share in that context, the unigram share standing for ``beta`` pairs of evidence (all of it where the
corpus never has the two keys together). Where a language writes two words that differ by an accent only
(Italian ``e`` and, ``è`` is; French ``a`` has, ``à`` to), the unigram share of the plain one is low in
every sentence that has it, while the word before tells them apart: ``non e`` is a dropped accent (the
corpus writes ``non è``), ``bianco e nero`` is not. The pairs are hashed, and a bucket two pairs share
would give a word without any accented spelling a doubt it never had, so u(v, w) counts at most c(w)
and a(v, w) at most accented(key(w)). 0 for a word whose key the corpus never writes with a diacritic,
strongly negative for a word the corpus writes with one nearly always. A side's ``spelling`` feature is
its lowest word's (0 without words). Only Latin letters fold: a Cyrillic й or a kana with its voicing
mark is another letter, not an accent.

Order (``swaps_src``, ``swaps_tgt``): words in an order the corpus itself makes unlikely (misordered
words, one of the noise kinds of Khayrallah & Koehn 2018). Under the corpus's interpolated word-bigram
model (corpus.CorpusModel: p(w | v) = (c(vw) + b p(w)) / (c(v) + b), with the sentence's start and end as
words), each sentence is compared with the same sentence in another order, the test of word-order errors
by language-model ranking:

    swap(k) = log p(sentence) - log p(sentence with its words k and k + 1 exchanged)

for every two adjacent words of a side with spaces. A word here is what stands between spaces, which may be
several tokens (``l'icône`` is ``l`` and ``icône``, ``Qt-Unterstützung`` two, ``%s:`` one): misordered words
move whole words, and a test that exchanged single tokens never saw ``l'icône... Changer`` as the swap of
``Changer l'icône...``, while it tested exchanges inside a word that no text makes. With V = v1 .. vp and
W = w1 .. wq the tokens of the two words, u the token before and x the one after them, three bigrams change:
c(u v1) c(vp w1) c(wq x) against c(u w1) c(wq v1) c(vp x) (with words of one token each, c(u v) c(v w) c(w x)
against c(u w) c(w v) c(v x)); the contexts and unigrams cancel; each count is taken
with d = 1/2 added, Lidstone's smoothing, so that a bigram seen once elsewhere against an unseen one is a
factor of 3, not of 1 / (b p(w)), about a thousand: without it, a short clean phrase whose own bigrams
the corpus has only in it, such as the Korean ``클래스 목록`` (class list), looks more misordered than
most misordered targets whenever its words start and end other phrases a few times. The words' part is 0
where a token at either word's ends (v1, vp, w1, wq) is one the corpus has nowhere else: every bigram with
it is unseen in either order, so the test only weighs whether the other word goes better with u or with x,
not the two words' order; 0 too where one of them is a placeholder's name or a number
(tokens.argument_tokens: ``%s``, ``$HOME``, ``{0}``, ``42``): where a translation puts an argument follows the
message and its English source, not the language's word order, and ``%s unterstützt nicht`` or
``%s 님을 %s 님으로`` looked misordered. To the words' part is added the same swap under the same model of the
tokens' *shapes* (``shape_ids``: whether a token starts with a capital, and its last two letters), which a few
thousand short sentences count often enough to know where a language
puts a capitalised noun, a lower-case infinitive or a case ending even when they never had the words;
and for a side written without spaces (a kana or Han character: its tokens are characters, its misplaced
units phrases), of the words alone,

    rotation(k) = log p(X Y) - log p(Y X),   X, Y the sentence's tokens before and after k,

which compares the bigrams at the start, the cut and the end; to it is added the lowest of the same rotations
under the shapes' model over the square root of the side's tokens, where the shape of a Han character is one
shape, of a katakana another and of a hiragana the character itself (``SHAPE_CHARACTERS``): a few thousand
catalogue lines seldom hold a phrase's right order in its own characters, but they hold where the particles
and endings that place a phrase go (``多すぎますユーザが``, ``ヘッダーです初期化されていない``), and the
characters' rotation alone left most of their misordered targets at 0. On a side with spaces, each swap is
also judged by the same model of the words' *stems* (tokens.STEM: a token's first four code points, two for
Hangul syllables, as the alignment sees words), its swap(k) there added to the words' and the shapes': an
inflected word the corpus never has in that form, whose words' part is therefore 0, is still placed by its stem
(Korean ``열 파일로`` after the corpus's ``파일을 열``, Polish or Czech case endings), and a few thousand lines
see each stem far more often than each form. The stems' part is 0 where a token at either word's ends has a stem
the corpus has nowhere else or is an argument. A swap of two words that are the same tokens
(``ping: PING``, whose shapes alone differ) is 0. A side's feature is its lowest value and 0
(0 for fewer than two words or tokens): near 0 or above when the corpus shows no other order as likelier,
strongly negative when the other order is what the corpus writes. On a side with spaces it is divided by
the square root of the side's words, n:

    swaps = min(0, min_k swap(k)) / sqrt(n),   swap(k) = its words' + its shapes' + its stems',

because the lowest of n - 1 tests falls with n on clean sentences too (one rare word beside a common
bigram is enough), so that a long clean sentence is not held to a stricter test than a short one;
misordered words that the corpus's counts do see still give a lowest test far below the clean sentences'
of their length. A side without spaces keeps its lowest rotation of characters undivided: there the division
cost more misordered targets than it spared clean ones (its shapes' rotation is divided: undivided, it cost
en-ja's clean descriptions, dozens of characters long, more than it found). Every bigram is counted without the
occurrences the sentence itself added (corpus.CorpusModel).

Words, stems and bigrams are hashed as the word fluency's (ngrams.word_bigrams, ``CorpusCounts``).
"""

from __future__ import annotations

import unicodedata
from collections.abc import Callable
from typing import NamedTuple

import numpy as np

from ..hashing import mix64
from ..text import CJK, SCRIPT_RANGES, SEPARATORS, UPPER, code_points
from .tokens import folded_tokens, token_bounds

WORD_TYPICALITY_FEATURES = ("spelling_src", "spelling_tgt", "swaps_src", "swaps_tgt")
_BY_HAND = {"ß": "s", "ł": "l", "ø": "o", "đ": "d", "æ": "a", "œ": "o", "ı": "i", "ŀ": "l", "ħ": "h", "þ": "t"}
_LATIN_RANGES = ((0x00C0, 0x0250), (0x1E00, 0x1F00))
SHAPE_BUCKETS = 1 << 16  # hashed word shapes, and hashed shape bigrams, per side


def _fold_table() -> np.ndarray:
    """Each BMP code point's folded one: itself, unless a lower-case Latin letter with a diacritic."""
    table = np.arange(1 << 16, dtype=np.int32)
    for low, high in _LATIN_RANGES:
        for code in range(low, high):
            character = chr(code)
            base = _BY_HAND.get(character, unicodedata.normalize("NFD", character)[0])
            if character.islower() and base != character and base.isascii() and base.isalpha():
                table[code] = ord(base)
    return table


FOLD = _fold_table()
def _shape_characters() -> np.ndarray:
    """Each BMP code point as a word's shape keeps it (its last two characters): lower-cased where that is one
    code point, every Han character one code point and every katakana another (the shape of a kana or Han token
    is its script), a hiragana itself (the particles and endings that place a phrase)."""
    table = np.array([ord(lower) if len(lower := chr(code).lower()) == 1 else code for code in range(1 << 16)],
                     dtype=np.int64)
    for low, high in SCRIPT_RANGES["han"]:
        table[low : high + 1] = ord("一")
    for low, high in ((0x30A0, 0x30FF), (0xFF66, 0xFF9F)):  # the katakana block, and the half-width katakana
        table[low : high + 1] = ord("ア")
    return table


SHAPE_CHARACTERS = _shape_characters()


def spelling_keys(text: tuple, buckets: int) -> tuple[np.ndarray, np.ndarray]:
    """Each word's key, hashed into [0, buckets) (in the order and with the boundaries of
    ``tokens.token_ids``), and whether the word had a letter that folds; ``text``: the sentences'
    ``lowered`` code points."""
    keys, accented = folded_tokens(text, buckets, FOLD)
    return keys.astype(np.int64), accented


SPELLING_CONTEXT_PRIOR = 2.0  # beta: the pairs of evidence the unigram share stands for in spelling(w)
GRAM = 4  # characters of the folded n-grams of the sub-word share, the word's start and end among them


def sub_word_share(plain: np.ndarray, accented: np.ndarray, token: np.ndarray, n: int) -> np.ndarray:
    """Each of ``n`` words' sub-word share s(w) (module docstring), from the corpus's counts of its folded
    n-grams (tokens.folded_grams, in order; ``token``: the word of each) written without (``plain``; without
    the sentence's own occurrences) and with a diacritic (``accented``); 1 for a word without n-grams."""
    share = np.ones(n)
    if not token.size:
        return share
    ratio = (plain + 1.0) / (plain + accented + 1.0)
    first = np.r_[True, token[1:] != token[:-1]]
    word = np.cumsum(first) - 1  # each gram's word among the words with grams
    at = np.arange(token.size) - np.flatnonzero(first)[word]  # and its place in the word
    letters = np.bincount(word) + GRAM - 3  # the word's letters: its grams span them, its start and end
    offset = np.r_[0, np.cumsum(letters)[:-1]]
    letter = at[:, None] + np.arange(GRAM) - 1  # the letters (0-based) each gram spans, its start and end aside
    inside = (letter >= 0) & (letter < letters[word][:, None])
    spanned = np.broadcast_to(ratio[:, None], letter.shape)[inside]
    cover = np.zeros(int(letters.sum()))  # each letter's highest ratio among the grams that span it
    np.maximum.at(cover, (offset[word][:, None] + letter)[inside], spanned)
    np.minimum.at(share, np.repeat(token[first], letters), cover)
    return share


def spelling(had_accent: np.ndarray, count: np.ndarray, accented: np.ndarray, pairs: np.ndarray,
             accented_pairs: np.ndarray, sub_word: np.ndarray, sentence: np.ndarray, n: int) -> np.ndarray:
    """Each of the ``n`` sentences' lowest spelling(w) (module docstring), from its words' (in ``sentence``)
    ``had_accent`` (spelling_keys), c(w) (``count``), accented(key(w)) (``accented``), the corpus's pairs
    with the keys of the word before and the word (``pairs``; without the sentence's own occurrences) and those
    of them with an accent (``accented_pairs``), and the sub-word share s(w) (``sub_word``: sub_word_share)."""
    share = (count + 0.5 * sub_word) / (count + accented + 0.5)
    # hashed pairs may share a bucket: no pair count above its word's or its key's own
    plain = np.minimum(np.maximum(pairs - accented_pairs, 0), count)
    with_accent = np.minimum(accented_pairs, accented)
    in_context = (plain + SPELLING_CONTEXT_PRIOR * share) / (plain + with_accent + SPELLING_CONTEXT_PRIOR)
    return lowest(np.where(had_accent, 0.0, np.log(in_context)), sentence, n)


def last_words(previous: np.ndarray) -> np.ndarray:
    """Whether each word of ngrams.word_bigrams (``previous``: the word before each, 0 before a first) is its
    sentence's last."""
    return np.r_[previous[1:] == 0, True] if previous.size else np.zeros(0, dtype=bool)


def unspaced(text: tuple) -> np.ndarray:
    """Whether each sentence (``text``: lowered code points) has a kana or Han character (its tokens are
    characters, not words)."""
    codes, sentence_of, n = text
    return np.bincount(sentence_of[CJK[np.minimum(codes, 0xFFFF)]], minlength=n) > 0


class Bigrams(NamedTuple):
    """One side's tokens under a bigram model counted on the corpus (corpus.CorpusModel): ``previous``,
    ``token``, ``sentence`` as ngrams.word_bigrams gives them (``previous`` 0 before a sentence's first
    token); ``count(v, w, rows)``: c(v w) for the sentences ``rows`` (w = 0: v ends the sentence), without
    the occurrences the sentence itself added; ``unigram``: p(w) of each token; ``end``: p of the end."""

    previous: np.ndarray
    token: np.ndarray
    sentence: np.ndarray
    count: Callable[[np.ndarray, np.ndarray, np.ndarray], np.ndarray]
    unigram: np.ndarray
    end: float


def order_margins(model: Bigrams, interpolation: float, smoothing: float, cuts: np.ndarray, rotate: np.ndarray,
                  firsts: np.ndarray, lasts: np.ndarray) -> np.ndarray:
    """log p(sentence) less log p of the sentence in another order, at each of the ``cuts`` (the index of the
    token after a cut, k): with the word of tokens ``firsts`` .. k - 1 and the word of tokens k .. ``lasts``
    exchanged (swap; a word of one token in the simplest case), or where ``rotate`` with its parts before and after
    k exchanged (rotation), under p(w | v) proportional to c(vw) + d + b p(w), b = ``interpolation``,
    d = ``smoothing`` (the contexts and unigrams cancel). A swap is summed as each changed bigram's term less the
    term of the bigram that replaces it: exactly 0 where the two words are the same."""
    previous, token, sentence, count, unigram, end = model
    b = interpolation

    def log_term(v, w, p_w, rows):  # log (c(v w) + d + b p(w)), the part of log p(w | v) that an order changes
        return np.log(count(v, w, rows) + smoothing + b * p_w)

    last = last_words(previous)
    final = np.flatnonzero(last)
    into = log_term(previous, token, unigram, sentence)  # the bigram that ends at each token
    out = np.r_[into[1:], 0.0]  # and the one that starts at it: the next token's, or the sentence's end
    out[final] = log_term(token[final], np.zeros(final.size, np.int64), end, sentence[final])
    margins = np.empty(cuts.size)
    k, a, e = cuts[~rotate], firsts[~rotate], lasts[~rotate]  # u V | W x against u W | V x
    rows = sentence[k]
    after = np.minimum(e + 1, token.size - 1)  # x, or the end where W ends the sentence
    following, p_following = np.where(last[e], 0, token[after]), np.where(last[e], end, unigram[after])
    margins[~rotate] = ((into[a] - log_term(previous[a], token[k], unigram[k], rows))  # u V[0] for u W[0]
                        + (into[k] - log_term(token[e], token[a], unigram[a], rows))  # V[-1] W[0] for W[-1] V[0]
                        + (out[e] - log_term(token[k - 1], following, p_following, rows)))  # W[-1] x for V[-1] x
    k = cuts[rotate]  # X | Y against Y | X
    rows, v, w = sentence[k], token[k - 1], token[k]
    starts = np.r_[0, np.cumsum(np.bincount(sentence))][rows]  # each sentence's first token
    ends = final[np.searchsorted(final, k)]  # and its last
    start = np.zeros(k.size, dtype=np.int64)
    # Y's last token before X's first: one bigram per sentence (``rows`` ascend with the cuts), looked up once
    sentences, per_cut = np.unique(rows, return_inverse=True)
    once = np.searchsorted(rows, sentences)
    wrap = log_term(token[ends[once]], token[starts[once]], unigram[starts[once]], sentences)[per_cut]
    margins[rotate] = (into[starts] + into[k] + out[ends] - log_term(start, w, unigram[k], rows) - wrap
                       - log_term(v, start, end, rows))
    return margins


def swaps(words: Bigrams, shapes: Bigrams, stems: Bigrams, testable: np.ndarray, stem_testable: np.ndarray,
          spaced: np.ndarray, unspaced: np.ndarray, interpolation: float, smoothing: float) -> np.ndarray:
    """Each sentence's lowest swap(k) of two adjacent words (0 where a token at either word's ends is not
    ``testable``) plus that of their shapes and of their stems (0 where not ``stem_testable``), and 0, divided by the
    square root of its words, or its lowest rotation(k) of its tokens and 0 plus
    that of their shapes and 0 over the square root of its tokens where ``unspaced`` (module docstring;
    ``interpolation`` b, ``smoothing`` d). ``words``, ``shapes``, ``stems``: the same tokens' ids, shapes and stems;
    ``testable`` / ``stem_testable``: whether each token is one / has a stem the corpus has besides the sentence's own
    occurrences, and no placeholder's name or number; ``spaced``: whether white space lies between each token and the
    one before it (tokens.token_marks): a word is the tokens from one such to the next."""
    first = words.previous == 0
    starts_word = first | spaced | unspaced[words.sentence]  # without spaces, each token (a character) apart
    word_of = np.cumsum(starts_word) - 1
    starts = np.flatnonzero(starts_word)
    ends = np.r_[starts[1:] - 1, words.token.size - 1]
    cuts = np.flatnonzero(starts_word & ~first)  # the first token of each word but a sentence's first
    firsts, lasts = starts[word_of[cuts - 1]], ends[word_of[cuts]]
    rows = words.sentence[cuts]
    rotate = unspaced[rows]
    values = order_margins(words, interpolation, smoothing, cuts, rotate, firsts, lasts)
    values[~rotate & ~at_word_ends(testable, firsts, cuts, lasts)] = 0.0  # a word nowhere else, an argument
    by_shape = np.zeros(cuts.size)
    for rotated in (False, True):  # the shapes' swaps on the sides with spaces, their rotations on the others
        at_cuts = np.flatnonzero(rotate == rotated)
        model, at = of_sentences(shapes, unspaced[shapes.sentence] == rotated)
        by_shape[at_cuts] = order_margins(model, interpolation, smoothing, at[cuts[at_cuts]],
                                          np.full(at_cuts.size, rotated), at[firsts[at_cuts]], at[lasts[at_cuts]])
    values[~rotate] += by_shape[~rotate]
    swapped = np.flatnonzero(~rotate)
    values[swapped[same_words(words.token, firsts[swapped], cuts[swapped], lasts[swapped])]] = 0.0
    k, a, e = cuts[swapped], firsts[swapped], lasts[swapped]
    model, at = of_sentences(stems, ~unspaced[stems.sentence])  # the stems' swaps, on the sides with spaces only
    by_stem = order_margins(model, interpolation, smoothing, at[k], np.zeros(k.size, dtype=bool), at[a], at[e])
    by_stem[~at_word_ends(stem_testable, a, k, e)] = 0.0
    values[swapped] += by_stem
    n = np.maximum(np.bincount(words.sentence[starts], minlength=unspaced.size), 1)  # words (not tokens) of each
    return (lowest(values, rows, unspaced.size) / np.sqrt(np.where(unspaced, 1, n))
            + lowest(np.where(rotate, by_shape, 0.0), rows, unspaced.size) / np.sqrt(n))


def at_word_ends(flags: np.ndarray, firsts: np.ndarray, cuts: np.ndarray, lasts: np.ndarray) -> np.ndarray:
    """Whether ``flags`` holds at all four end tokens of the two words of each swap: tokens ``firsts`` .. ``cuts`` - 1
    and ``cuts`` .. ``lasts``."""
    return flags[firsts] & flags[cuts - 1] & flags[cuts] & flags[lasts]


def of_sentences(model: Bigrams, kept: np.ndarray) -> tuple[Bigrams, np.ndarray]:
    """``model`` with its tokens ``kept`` only (whole sentences), and each token's index among them."""
    return (model._replace(previous=model.previous[kept], token=model.token[kept], sentence=model.sentence[kept],
                           unigram=model.unigram[kept]), np.cumsum(kept) - 1)


def same_words(token: np.ndarray, firsts: np.ndarray, cuts: np.ndarray, lasts: np.ndarray) -> np.ndarray:
    """Whether the word of tokens ``firsts`` .. ``cuts`` - 1 and the word of tokens ``cuts`` .. ``lasts`` are the
    same tokens (``token``: the ids), as in ``ping: PING``, whose shapes alone would differ."""
    length = cuts - firsts
    same = length == lasts - cuts + 1
    at, offset = np.flatnonzero(same), 0
    while at.size:  # the pairs still alike after ``offset`` tokens, and longer
        same[at] = token[firsts[at] + offset] == token[cuts[at] + offset]
        offset += 1
        at = at[same[at] & (length[at] > offset)]
    return same


def shape_ids(sentences: list[str], words: np.ndarray) -> np.ndarray:
    """Each word's shape, hashed into [1, SHAPE_BUCKETS): whether its first character is a capital, and its
    last two characters lower-cased; in the order and with the boundaries of the words of
    ``lowered(sentences)`` (``words``: how many each sentence has there). The words of a sentence that
    lower-casing splits otherwise (``İ`` becomes two characters) all get shape 1."""
    codes, sentence_of, _ = code_points(list(sentences) + [""], "\n")
    starts, ends, counts = token_bounds(codes, sentence_of, len(sentences), SEPARATORS, CJK)
    def lower(at: np.ndarray) -> np.ndarray:
        c = codes[at].astype(np.int64)
        return np.where(c <= 0xFFFF, SHAPE_CHARACTERS[np.minimum(c, 0xFFFF)], c).astype(np.uint64)

    before = np.where(ends - starts >= 2, lower(np.maximum(ends - 2, 0)), np.uint64(0))
    keys = (UPPER[np.minimum(codes[starts], 0xFFFF)].astype(np.uint64) | lower(ends - 1) << np.uint64(1)
            | before << np.uint64(22))
    ids = np.ones(int(words.sum()), dtype=np.int64)
    same = counts == words
    hashed = (mix64(keys) % np.uint64(SHAPE_BUCKETS - 1)).astype(np.int64) + 1
    ids[np.repeat(same, words)] = hashed[np.repeat(same, counts)]
    return ids


def lowest(values: np.ndarray, sentence: np.ndarray, n: int) -> np.ndarray:
    """Per sentence, the lowest of its ``values`` and 0."""
    out = np.zeros(n)
    np.minimum.at(out, sentence, values)
    return out
