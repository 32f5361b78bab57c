"""The ``filter`` artifact: what ``filter-parallel --save-model`` writes and ``--model`` reads.

One ``.npz`` holds the parts of the learned pair-quality score: PHSIC (arrays ``phsic_*``), the corpus
counts (``counts_*``) with the sentences the corpus has more than once (``sentences_*``), the alignment
tables (``alignment_*``) and the classifier (``classifier_*``),
with the config, the encoders' specs, the feature names, the languages and the validation report in the header.
"""

from __future__ import annotations

import numpy as np

from .. import artifact
from ..config import SEED, from_dict
from ..errors import InputError
from ..phsic.model import PHSIC
from ..phsic.persistence import check_encoder_specs
from .alignment import AlignmentModel
from .classifier import PairClassifier
from .config import FilterConfig, LearnConfig
from .corpus import CorpusCounts
from .learning import LearnedScorer
from .sentences import SentenceCounts

KIND = "filter"
# Raised whenever a feature's definition changes under the same name (2: numbers spelled out on the other
# side, the mismatches as indicators, GCC placeholders), so a model is never scored with features it was
# not trained on; 3: surface damage, word fluency and link order, and the monotone classifier; 4: misdecoded
# UTF-8 apart from the glyphs, letter-spaced words, initial case, spelling and swapped words; 7: a typicality
# share per input; 8: a sentence the corpus has more than once is looked up without all its occurrences; 9: the
# swaps test the local order under word and word-shape bigram models with the sentence's start and end; 10: a
# spaced side's swaps are divided by the square root of its words; 11: a swap with a word the corpus has
# nowhere else leaves the words' part out; 12: the alignment sees each word's stem, its first 4 code points or 2
# Hangul syllables; 13: the swaps' bigram counts are smoothed by adding 1/2; 14: a misdecoded letter of
# three UTF-8 bytes needs both continuation bytes; 15: a swap with a placeholder's name or a number leaves the
# words' part out; 16: repeats see a run of tokens repeated at once; 17: a word's spelling is read in the
# context of the word before it; 18: a Cyrillic side's foreign letters are those outside its alphabet; 19: the
# spelling's pair counts are at most the word's and its key's own; 20: a word the corpus has nowhere else has
# the sub-word share of its letters' folded character 4-grams; 21: the alignment likelihoods are each word's less
# its typical one; 22: the order test swaps words written between spaces, not tokens; 23: the stutters; 24: the
# order prior reads the swaps in units of their spread on the sample; 25: the alignment sees a run of katakana as one
# word; 26: the glyphs are a side's beyond the other side's, words in angle brackets without an attribute are
# no tag, months and bases of counting are spelled numbers, an address is ASCII and ends before punctuation, %%
# and a %NAME before a lower-case letter are no named placeholder; the glued words; 27: the language posteriors
# are among the languages whose alphabet holds the side's Cyrillic letters; 28: a second-level kanji on a Japanese
# side without kana is a foreign letter; 29: the sides' sentence breaks agree; 30: a side without spaces is
# also rotated under its tokens' shapes, a kana or Han token's shape its script; 31: a side with spaces adds the
# lowest swap of its words' stems; 32: a sentence with misdecoded UTF-8 counts no diacritics; 33: the spelling prior
# is read in units of its spread too, a prior the saved arrays hold a spread for).
FEATURE_VERSION = 33


def save_learned(path: str, config: dict, model: PHSIC, encoders: list[dict], learned: LearnedScorer,
                 data_hash: str) -> None:
    """Write PHSIC, the corpus counts, the alignment tables and the classifier of ``learned`` with the (resolved)
    ``config``."""
    phsic_params, phsic_arrays = model.state()
    classifier_params, classifier_arrays = learned.classifier.state()
    counts = {k: v.astype(np.int64) for k, v in learned.counts.arrays().items()}
    arrays = {**{f"phsic_{k}": v for k, v in phsic_arrays.items()}, **{f"counts_{k}": v for k, v in counts.items()},
              **{f"sentences_{k}": v for k, v in learned.sentences.arrays().items()},
              **{f"alignment_{k}": v for k, v in learned.alignment.arrays().items()},
              **{f"classifier_{k}": v for k, v in classifier_arrays.items()}}
    artifact.save(path, KIND, arrays, {
        "config": config, "encoders": encoders, "data_sha256": data_hash, "phsic": phsic_params,
        "classifier": classifier_params, "features": learned.names, "src_lang": config["src_lang"],
        "tgt_lang": config["tgt_lang"], "validation": learned.validation, "feature_version": FEATURE_VERSION})


def load_learned(path: str, src_lang: str | None, tgt_lang: str | None, names: list[str]
                 ) -> tuple[dict, PHSIC, LearnedScorer]:
    """Read a ``filter`` artifact: (header, PHSIC, learned scorer); its languages must be ``src_lang`` and
    ``tgt_lang``, its features ``names``."""
    header, arrays = artifact.load(path, KIND)
    for key, value in (("src_lang", src_lang), ("tgt_lang", tgt_lang)):
        if header.get(key) != value:
            raise InputError(f"{path} was trained with {key} {header.get(key)}; this run has {value}", key=key)
    saved = header.get("features")
    if header.get("feature_version", 1) != FEATURE_VERSION:
        raise InputError(f"{path}: its features are version {header.get('feature_version', 1)}, this kcooc computes "
                         f"version {FEATURE_VERSION}: train and save it again", key="model")
    if saved != names:  # first: a model of another version may hold parts this one does not know
        saved = saved if isinstance(saved, list) else []
        missing, extra = sorted(set(names) - set(saved)), sorted(set(saved) - set(names))
        raise InputError(f"{path}: its features are not this run's (missing: {', '.join(missing) or '-'}; not used: "
                         f"{', '.join(extra) or '-'}): a model saved by another kcooc version or with other "
                         "languages or learn.languages; train and save it again", key="model")
    try:
        check_header(header)
        model = PHSIC.from_artifact({"model": header["phsic"], "config": header["config"]},
                                    artifact.part(arrays, "phsic_"))
        counts = CorpusCounts.from_arrays(artifact.part(arrays, "counts_"))
        sentences = SentenceCounts.from_arrays(artifact.part(arrays, "sentences_"))
        alignment = AlignmentModel.from_arrays(artifact.part(arrays, "alignment_"))
        classifier = PairClassifier.from_state(header["classifier"], artifact.part(arrays, "classifier_"))
        encoders = header["encoders"]
    except (KeyError, TypeError) as exc:
        raise InputError(f"{path}: incomplete filter model ({exc})") from None
    except InputError as exc:
        raise InputError(f"{path}: {exc}") from None
    _require(classifier.names == names and isinstance(encoders, list), f"{path}: its classifier's features are not "
             "the model's")
    return header, model, LearnedScorer(names, counts, alignment, classifier, header.get("validation"), sentences)


def check_header(header: dict) -> None:
    """The header's config and encoders, checked as a config file's are, and the classifier's seed and
    parameters as the config's learn section (InputError, KeyError or TypeError if not sound)."""
    classifier = header["classifier"]
    if not isinstance(classifier, dict):
        raise InputError("the classifier's parameters are not a mapping")
    from_dict(FilterConfig, header["config"], prefix="config.")
    check_encoder_specs(header["encoders"])
    from_dict(LearnConfig, {key: classifier[key]
                            for key in ("regularization", "language_prior", "source_language_prior")
                            if classifier.get(key) is not None}, prefix="classifier.")
    if not isinstance(classifier["seed"], int) or classifier["seed"] not in SEED:
        raise InputError(f"classifier seed must be an integer {SEED}, got {classifier['seed']!r}")


def _require(condition: bool, message: str) -> None:
    if not condition:
        raise InputError(message)
