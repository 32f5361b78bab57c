"""The ``filter-parallel`` config (``configs/filter-*.yaml``); every key is documented in configs/README.md."""

from __future__ import annotations

import dataclasses
from typing import Literal, Union

from ..config import ConfigValueError, Range, option, section
from ..errors import InputError
from ..phsic.config import KernelConfig, PhsicConfig
from ..text import LANGUAGE_SCRIPTS

Language = Union[Literal[tuple(sorted(LANGUAGE_SCRIPTS))], None]
# ISO 639-1 codes -> the script rule's language names (languages of other Latin scripts -> latin)
SCRIPT_LANGUAGE = {"en": "english", "ja": "japanese", "zh": "chinese", "ko": "korean", "el": "greek", "he": "hebrew",
                   "ar": "arabic", "fa": "arabic", "ur": "arabic", "hi": "hindi", "mr": "hindi", "ne": "hindi",
                   "th": "thai",
                   **{code: "cyrillic" for code in ("ru", "uk", "bg", "sr", "mk", "be", "kk", "ky", "mn", "tg")},
                   **{code: "latin" for code in ("af", "az", "br", "bs", "ca", "cs", "cy", "da", "de", "eo", "es", "et",
                                                 "eu", "fi", "fr", "ga", "gl", "hr", "hu", "id", "is", "it", "lb", "lt",
                                                 "lv", "ms", "mt", "nb", "nl", "nn", "no", "oc", "pl", "pt", "ro", "sk",
                                                 "sl", "sq", "sv", "sw", "tl", "tr", "vi", "wa", "xh", "zu")}}
WIDE_SCRIPTS = {"japanese", "chinese", "korean"}  # a character carries a word or a syllable


def language_defaults(src_lang: str | None, tgt_lang: str | None, selected: bool) -> dict:
    """The keys a run without a config file takes from its languages: hashed words (character uni- and
    bigrams for Chinese and Japanese) per side, and the best 80% of the pairs that pass the rules unless
    a selection was given (``selected``)."""
    def encoder(code):
        if SCRIPT_LANGUAGE.get(code) in ("japanese", "chinese"):
            return {"name": "hashing", "n_features": 1024, "word_ngrams": 0, "char_ngrams": [1, 2]}
        return {"name": "hashing", "n_features": 1024, "word_ngrams": 2}

    x, y = encoder(src_lang), encoder(tgt_lang)
    return {"encoder": x, "y_encoder": None if x == y else y, "select.top_ratio": None if selected else 0.8}


@dataclasses.dataclass
class FilterKernelConfig(KernelConfig):
    sample: Union[int, None] = option(
        20000, "incomplete Cholesky: pivots and bandwidth from this many pairs, drawn by a seeded hash of the "
        "line number (the same sample on any engine); null = every pair, held in memory", Range(1, 1 << 40))


@dataclasses.dataclass
class RulesConfig:
    empty_side: bool = option(True, "drop pairs with an empty (or all-whitespace) side")
    identical_sides: bool = option(True, "drop pairs whose sides are equal ignoring case and surrounding spaces "
                                   "(untranslated copies)")
    max_chars: Union[int, None] = option(1000, "drop pairs with a side longer than this many characters (null = off)",
                                         Range(1, 1 << 40))
    max_length_ratio: Union[float, Literal["auto"], None] = option(
        "auto", "drop pairs whose longer side has more than this many times the characters of the shorter, each side "
        "counted with 10 characters more, so that one-word strings (Last Name / 姓) pass (null = off); "
        "auto = 8 when one side is Chinese, Japanese or Korean and the other is not, else 3", Range(1, 1e6))
    control_chars: bool = option(True, "drop pairs with control characters, U+FFFD (bad encoding upstream) or stray "
                                 "byte-order marks")
    src_language: Language = option(None, "declared source language; drop pairs whose source side has letters but too "
                                    "few in its script (null = off)")
    tgt_language: Language = option(None, "declared target language, as src_language")
    min_script_ratio: float = option(0.1, "script rule: least share of a side's letters that must be in its "
                                     "language's script (placeholders' and URLs' letters not counted)", Range(0, 1))
    dedup: bool = option(True, "keep only the first copy of exactly duplicated pairs (the copies still count in the "
                         "statistics)")

    def length_ratio(self) -> float | None:
        """max_length_ratio, with auto resolved by the declared languages' scripts."""
        if self.max_length_ratio != "auto":
            return self.max_length_ratio
        wide = [language in WIDE_SCRIPTS for language in (self.src_language, self.tgt_language)]
        return 8.0 if wide[0] != wide[1] else 3.0


@dataclasses.dataclass
class SelectConfig:
    threshold: Union[float, None] = option(None, "keep pairs scoring at least this (combines with the others)")
    top_k: Union[int, None] = option(None, "keep the k best-scoring pairs", Range(0, 1 << 62))
    top_ratio: Union[float, None] = option(None, "keep this share of the pairs that pass the rules, best first",
                                           Range(0, 1, low_open=True))
    word_budget: Union[int, None] = option(None, "keep the best pairs until this many words (Zipporah-style)",
                                           Range(0, 1 << 62))
    budget_side: Literal["src", "tgt", "both"] = option("src",
                                                        "word_budget counts whitespace-separated words of this side")

    def validate(self) -> None:
        chosen = [k for k in ("top_k", "top_ratio", "word_budget") if getattr(self, k) is not None]
        if len(chosen) > 1:
            raise InputError("choose one of select.top_k, select.top_ratio, select.word_budget "
                             f"(got {', '.join(chosen)})")


@dataclasses.dataclass
class LearnConfig:
    sample: int = option(20000, "clean examples: a seeded sample of this many pairs that pass the rules (the same "
                         "on any engine), each with one synthetic noisy copy (see kcooc/filtering/noise.py)",
                         Range(10, 1 << 40))
    validation: float = option(0.2, "share of the examples held out to report the classifier's accuracy and ROC-AUC",
                               Range(0.01, 0.99))
    regularization: float = option(0.1, "inverse L2 strength C of the monotone logistic model (its weights are on "
                                   "curves of each feature between its quantiles, so one C fits every feature's scale)",
                                   Range(0, 1e6, low_open=True))
    feature_noise: float = option(1.0, "feature-space noisy examples per clean example: a clean example with one "
                                  "disagreement feature moved into the worst learn.feature_noise_tail of the sample, "
                                  "so the model weighs every such feature whatever the synthetic text noise moved",
                                  Range(0, 10))
    feature_noise_tail: float = option(0.02, "the worst share of the sample that a feature-space noisy example takes "
                                       "its moved feature's value from (at most the values worse than the sample's "
                                       "median)",
                                       Range(0, 0.5, low_open=True))
    typicality_share: float = option(0.003, "typicality factor: a pair among the worst share a of the sample on "
                                     "some feature has its score multiplied by (S / a)^w, S its share there; small, "
                                     "because a clean pair is among the worst a on one of the ~30 features with "
                                     "probability ~30a (docs/filtering.md)",
                                     Range(0, 1, low_open=True))
    typicality_length_share: float = option(0.02, "typicality factor: the share a of the length ratios (the target's "
                                            "length over the source's in characters, words and tokens, above and "
                                            "below the sample's median): larger than learn.typicality_share, because "
                                            "a length ratio far from the corpus's own is the disagreement every "
                                            "filter's rules test, and its spread on the sample is well estimated",
                                            Range(0, 1, low_open=True))
    typicality_word_share: float = option(0.02, "typicality factor: the share a of the target's spelling and swaps "
                                          "(words the corpus writes with diacritics, an order its bigram models find "
                                          "likelier): larger than learn.typicality_share, because dropped diacritics "
                                          "and misordered words move no other feature much; the source's keep "
                                          "learn.typicality_share", Range(0, 1, low_open=True))
    typicality_weight: float = option(0.5, "typicality factor: the exponent w (0: no typicality factor)",
                                      Range(0, 10))
    order_weight: float = option(1.25, "the score is multiplied by exp(beta min(0, s + 1/2)), s the target's swaps "
                                 "(how much likelier the corpus's word, word-shape and word-stem bigram models find "
                                 "its words in another local order, a log-likelihood ratio <= 0) in units of their "
                                 "spread on the sample (minus its 5% quantile, at least 1): a fixed prior on word "
                                 "order, so that misordered words lower the score even when no training noise had them "
                                 "(0: off)",
                                 Range(0, 10))
    spelling_weight: float = option(0.75, "the score is multiplied by exp(beta (s + min(0, s / tau + 1/2))), s <= 0 "
                                    "the target's spelling (the log share of its least usual word among the corpus's "
                                    "spellings of it after the word before it, Grosse against Größe, non e against non "
                                    "è), tau its spread on the sample (minus the clean rows' 1% quantile, at least "
                                    ".05): a fixed prior on spelling, so that dropped diacritics lower the score even "
                                    "when no training noise had them, also in a language that writes few (0: off)",
                                    Range(0, 10))
    mismatch_weight: float = option(2.0, "the score is multiplied by exp(-beta) when the sides' numbers differ (as "
                                    "multisets; numbers spelled out on the other side count): a fixed prior, so that "
                                    "a changed number lowers the score even when no training noise had one (0: off)",
                                    Range(0, 10))
    placeholders_weight: float = option(4.0, "the score is multiplied by exp(-beta) when the sides' placeholders "
                                        "differ (as multisets: %s, {0}, $HOME, markup tags): a fixed prior, stronger "
                                        "than the numbers', because a translation keeps its placeholders (0: off)",
                                        Range(0, 10))
    ending_weight: float = option(0.5, "the score is multiplied by exp(-beta) when the sides end in different "
                                  "punctuation classes (a full stop against none, a colon against a full stop): a "
                                  "fixed prior, so that text cut short or joined to the next segment lowers the score "
                                  "even when no training noise had it (0: off)", Range(0, 10))
    sentences_weight: float = option(1.5, "the score is multiplied by exp(-beta (1 - a)) for the agreement a = (1 + "
                                     "min(b_s, b_t)) / (1 + max(b_s, b_t)) of the sides' sentence breaks (a . ! ? "
                                     "before white space and a next character that is no lower-case letter, or an "
                                     "ideographic full stop before more text): a fixed prior, so that a segment cut "
                                     "after a sentence or joined to the next lowers the score even when no training "
                                     "noise had it (0: off)", Range(0, 10))
    encoding_weight: float = option(3.0, "the score is multiplied by (1 + n)^-beta for the n letters of each side "
                                    "that are UTF-8 read with the wrong code page (Ã© for é): a fixed prior, so "
                                    "that mojibake lowers the score even when no training noise had it (0: off)",
                                    Range(0, 10))
    length_weight: float = option(0.5, "the score is multiplied by exp(-beta d) for the distance d of the pair's "
                                  "character ratio from the corpus's typical one at its length, in units of the "
                                  "ratio's spread there, beyond 2.5 of them: a fixed prior, so that cut or joined "
                                  "text lowers the score even when no training noise had it (0: off)", Range(0, 10))
    alignment_weight: float = option(0.3, "the score is multiplied by exp(-beta d) for the distance d of each side's "
                                     "alignment log-likelihood below the typical one of the sample's pairs of its "
                                     "length, in units of its spread there, beyond 2 of them: a fixed prior, so "
                                     "that a well-formed target of another segment lowers the score even when no "
                                     "training noise was like it (0: off)", Range(0, 10))
    repeat_weight: float = option(8.0, "the score is multiplied by exp(-beta r) for the share r of each side's "
                                  "tokens in a run repeated in place (Print Preview Print Preview) that the other "
                                  "side does not repeat: a fixed prior, so that stuttered or doubled text lowers the "
                                  "score even when no training noise had it (0: off)", Range(0, 10))
    glued_weight: float = option(2.0, "the score is multiplied by (1 + n)^-beta for the n places of each side where a "
                                 "lower-case letter is followed at once by a capital that the other side does not "
                                 "have (UngültigerDateiname): a fixed prior, so that words glued by lost spaces lower "
                                 "the score even when no training noise had them (0: off)", Range(0, 10))
    languages: bool = option(True, "language ID (when src_lang/tgt_lang are set): the target side's posterior of its "
                             "expected language gates the score, trusted as much as the identifier proved right on "
                             "clean sampled sides of the same length (those that the other features, without the "
                             "gate, find credible: all but learn.doubtful_share); the source side's is an input of "
                             "the classifier and a gentler gate (learn.source_language_prior); a gated side with "
                             "letters its language's legacy code page cannot write keeps max(1 - s, .01)^16 of its "
                             "score (s: their share)")
    doubtful_share: float = option(0.3, "share of the sampled pairs (the clean examples, which are the corpus's own "
                                   "and so hold its noise) that a first fit scores lowest and the final fit leaves out",
                                   Range(0, 1, high_open=True))
    detectors: bool = option(False, "one logistic detector per family of training noise (clean only when none fires; "
                             "--annotated then names the family) instead of one clean-vs-noise fit: twice the "
                             "training time, and no better on the development sample (docs/results-filtering.md)")
    language_prior: float = option(0.9, "language gate: prior share of target sides in their expected language",
                                   Range(0, 1, low_open=True, high_open=True))
    language_weight: float = option(1.5, "language gate: the power of each gated side's factor in the score (the "
                                    "probability that the side is in its language, counted this many times against "
                                    "the classifier's log-odds; 1: as a probability)", Range(0, 10))
    source_language_prior: float = option(0.99, "language gate of the source side: prior share of source sides in "
                                          "their expected language; near 1, so that only a source rejected far more "
                                          "firmly than the clean ones of its length (a third language) is penalised, "
                                          "not a short English string such as a package name",
                                          Range(0, 1, low_open=True, high_open=True))
    lexical_buckets: int = option(2048, "hashed word stems (a word's first 4 code points, 2 Hangul syllables) per "
                                  "side in the word-alignment (lexical translation) tables: (B + 1) x B per direction "
                                  "(8192: 2.6 GB)", Range(1, 1 << 13))
    fluency_buckets: int = option(1 << 18, "hashed character trigrams (and bigram contexts) per side in the fluency "
                                  "model", Range(1, 1 << 24))
    word_buckets: int = option(1 << 19, "hashed words, and hashed word bigrams, per side in the word fluency model",
                               Range(2, 1 << 24))
    noise_kinds: Union[list[str], None] = option(
        None, "the kinds of synthetic training noise made, in turn (names of NOISE_KINDS in kcooc/filtering/noise.py, "
        "whose docstring describes each; an evaluation leaves a family out to see how the score does on noise it "
        "never saw); null = noise.DEFAULT_NOISE_KINDS: every kind but partial_copy, whose lesson the copy feature "
        "and the target's language gate give")

    def validate(self) -> None:
        if self.noise_kinds is not None:
            from .noise import NOISE_KINDS

            unknown = [kind for kind in self.noise_kinds if kind not in NOISE_KINDS]
            if unknown or not self.noise_kinds:
                problem = f"unknown kind {unknown[0]!r}" if unknown else "no kind"
                raise InputError(f"learn.noise_kinds: {problem}; the kinds are {', '.join(NOISE_KINDS)} "
                                 "(null = every kind but partial_copy)")


@dataclasses.dataclass
class FilterConfig(PhsicConfig):
    """The PHSIC keys (input, encoder, y_encoder, kernel, seed) plus the filtering ones."""

    kernel: FilterKernelConfig = section(FilterKernelConfig, "PHSIC kernel (the paper filters with fastText + RBF)")
    rules: RulesConfig = section(RulesConfig, "hard rules applied before scoring; each drop is counted under its name")
    select: SelectConfig = section(SelectConfig,
                                   "which scored pairs to keep; none set = every pair that passes the rules")
    scorer: Literal["learned", "phsic"] = option(
        "learned", "learned: probability that a pair is clean from a classifier trained on the corpus against "
        "synthetic noise (PHSIC, word-alignment, fluency, length, agreement and language-ID features); phsic: the "
        "paper's PHSIC ranking")
    src_lang: Union[str, None] = option(None, "expected source language (ISO 639-1, e.g. en): language-ID feature, and "
                                        "rules.src_language when that is null and the script is known")
    tgt_lang: Union[str, None] = option(None, "expected target language (ISO 639-1), as src_lang")
    learn: LearnConfig = section(LearnConfig, "the learned scorer (scorer: learned)")
    task_lines: int = option(16384, "lines per task (the unit sent to a worker and reduced in order; results do not "
                             "depend on the engine or the number of jobs, but do on this)", Range(1, 1 << 24))

    def validate(self) -> None:
        super().validate()
        for key in ("src_lang", "tgt_lang"):
            code = getattr(self, key)
            # an unknown code is an error with any scorer; the language identifier must know the learned scorer's
            if code is not None and (code not in SCRIPT_LANGUAGE
                                     or (self.scorer == "learned" and self.learn.languages)):
                from ..langid import check_language_code

                try:
                    check_language_code(code)
                except InputError as exc:
                    raise ConfigValueError(key, str(exc)) from None
        # declared languages fill the script rule (and so the automatic length ratio)
        if self.rules.src_language is None:
            self.rules.src_language = SCRIPT_LANGUAGE.get(self.src_lang)
        if self.rules.tgt_language is None:
            self.rules.tgt_language = SCRIPT_LANGUAGE.get(self.tgt_lang)

