"""Learning the pair-quality score on the corpus itself: :func:`train` fits a :class:`PairClassifier`
(classifier.py) on a seeded sample of the corpus's clean pairs against their synthetic noisy copies
(noise.py), holds a share out for the report (accuracy, ROC-AUC, log-loss, recall per kind of noise),
and optionally refits without the least credible pairs; :class:`LearnedScorer` is the fitted score
with the corpus models its features need (the fluency counts, the alignment tables).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from typing import Callable

import numpy as np

from ..errors import InputError
from .alignment import AlignmentModel
from .classifier import PRIORS, PairClassifier
from .corpus import CorpusCounts, CorpusModel
from .extractor import FeatureExtractor
from .noise import DEFAULT_NOISE_KINDS, NOISE_FAMILIES, NOISE_KINDS, synthesize
from .sentences import SentenceCounts


@dataclasses.dataclass(frozen=True)
class LearnedScorer:
    """The fitted learned score besides PHSIC: the feature names, the corpus counts (fluency), the
    alignment tables, and the classifier with its held-out report (None while the features of its
    training examples are computed)."""

    names: list[str]
    counts: CorpusCounts
    alignment: AlignmentModel
    classifier: PairClassifier | None = None
    validation: dict | None = None
    sentences: SentenceCounts = dataclasses.field(default_factory=SentenceCounts.none)

    def extractor(self, src_lang: str | None, tgt_lang: str | None, encoders, phsic) -> FeatureExtractor:
        """Every feature of a pair, with the pair ``encoders`` and a fitted ``phsic``."""
        return FeatureExtractor(self.names, src_lang, tgt_lang, encoders, phsic,
                                CorpusModel(self.counts, self.sentences), self.alignment)


def train(features: Callable[[list[str], list[str]], np.ndarray], names: list[str], src: list[str], tgt: list[str],
          validation: float, regularization: float, seed: int, language_prior: float = 0.9,
          fit: Callable[[list[str], list[str]], None] | None = None, doubtful_share: float = 0.0,
          detectors: bool = False, source_language_prior: float | None = None,
          noise_kinds: Sequence[str] | None = None, **options) -> tuple[PairClassifier, dict]:
    """Fit a :class:`PairClassifier` on the clean ``(src, tgt)`` against their synthetic noise.

    ``features(src, tgt)`` returns the feature rows; ``fit``, if given, is first called with the
    clean examples, the corpus's own pairs: models of the corpus fitted there (the alignment tables)
    see the noise the corpus has, and score a pair they were fitted on without its own counts, as they
    score the synthetic noise and any pair outside the sample (alignment.py). A seeded
    ``validation`` share of the clean pairs, with their noisy copies, is held out. With
    ``doubtful_share``, the classifier is fitted twice: the second time without that share of the
    clean training pairs that the first fit scored lowest (the sample is the corpus's own pairs,
    noise included), and its language gate is calibrated without the share that the first fit
    scored lowest *without the gate* (gate.py says why). With ``detectors``, one detector per family of
    noise (noise.NOISE_FAMILIES) against clean instead of one clean-vs-all fit. ``noise_kinds``
    (NOISE_KINDS names; None = DEFAULT_NOISE_KINDS) are the only synthetic kinds made; ``options``: the other
    parameters of :class:`PairClassifier`. Returns the classifier and its held-out report.
    """
    unique = list(dict.fromkeys(zip(src, tgt)))  # a pair repeated in the corpus is one example, held out or not
    if len(unique) < 10:
        raise InputError(f"too few distinct pairs pass the rules to learn a score from: {len(unique)} (need 10)")
    src, tgt = [s for s, _ in unique], [t for _, t in unique]
    noise_kinds = tuple(noise_kinds or DEFAULT_NOISE_KINDS)
    noisy_src, noisy_tgt, kinds = synthesize(src, tgt, seed, noise_kinds)
    if fit is not None:
        fit(src, tgt)
    # a synthetic example is scored as if it stood in the corpus in its original's place (CorpusModel.features);
    # a side it keeps as it was has no original to leave out besides itself
    present = np.array([[text in corpus for text in noisy] for noisy, corpus in ((noisy_src, set(src)),
                                                                              (noisy_tgt, set(tgt)))]).T
    replaced = [[o if o != t else "" for t, o in zip(noisy, clean)] for noisy, clean in ((noisy_src, src),
                                                                                         (noisy_tgt, tgt))]
    F = np.vstack([features(src, tgt), features(noisy_src, noisy_tgt, (*replaced, present))])
    clean = np.repeat([True, False], len(src))
    families = (list(dict.fromkeys(NOISE_FAMILIES[kind] for kind in noise_kinds)) if detectors
                else ["noise"])
    family = np.array([families.index(NOISE_FAMILIES[kind]) if NOISE_FAMILIES[kind] in families else 0
                       for kind in NOISE_KINDS]) + 1
    labels = np.concatenate([np.zeros(len(src), dtype=np.int64), family[kinds]])
    held = np.tile(np.random.default_rng(seed + 1).random(len(src)) < validation, 2)
    from ..metrics import roc_auc

    def classifier_on(rows, start=None, **changed):
        return PairClassifier(names, regularization, seed, language_prior, families,
                              source_language_prior=source_language_prior, **{**options, **changed}
                              ).fit(F[rows], labels[rows], start)

    # a first fit that ranks the sample's pairs for the refit leaves the fixed priors out: it would drop the pairs
    # whose order, spelling or numbers the corpus doubts, and the refit would learn from their absence what the
    # priors already say; it counts the language gate once, as the probability it is (ranked with the gate's weight,
    # the refit lost more clean pairs of close-language corpora: Czech .9613 -> .9599, Dutch programs .9505 -> .9493)
    first = {**dict.fromkeys(PRIORS.values(), 0.0), "language_weight": 1.0}
    classifier = classifier_on(~held, **first) if doubtful_share else classifier_on(~held)
    if doubtful_share:  # the corpus's own pairs are not all clean: refit without the least credible
        rows = np.flatnonzero(~held & clean)
        doubtful = int(doubtful_share * rows.size)
        p = classifier.predict_proba(F[rows])
        keep = ~held
        keep[rows[np.argsort(p, kind="stable")[:doubtful]]] = False
        # the gate is calibrated without the pairs the other features doubt: the share ranked with the gate's own
        # factors would hold the clean sides it doubts, and a gate fitted without them would doubt them all the more
        credible = np.delete(rows, np.argsort(p * np.exp(-classifier.gate.log_factors(F[rows]).sum(axis=1)),
                                              kind="stable")[:doubtful])
        classifier = classifier_on(keep, start=classifier)  # from the first fit: fewer Newton steps
        classifier.gate.fit(F[credible])
    p = classifier.predict_proba(F[held])
    truth, kinds_held = clean[held], kinds[held[len(src):]]
    noise_p = p[~truth]
    report = {
        "train_pairs": int((~held).sum()), "validation_pairs": int(held.sum()),
        "validation_accuracy": round(float(np.mean((p >= 0.5) == truth)), 4),
        "validation_roc_auc": round(roc_auc(truth, p), 4),
        "validation_log_loss": round(float(-np.mean(np.log(np.clip(np.where(truth, p, 1 - p), 1e-15, 1)))), 4),
        "validation_recall_by_noise": {kind: round(float(np.mean(noise_p[kinds_held == k] < 0.5)), 4)
                                       for k, kind in enumerate(NOISE_KINDS) if np.any(kinds_held == k)},
    }
    return classifier, report

