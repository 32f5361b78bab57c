"""The learned pair-quality score: every feature of a pair -> probability that the pair is clean.

A logistic regression on the standardised features z (plus the distance of each length ratio
from its clean median, so that too long and too short both count against a pair), their squares
and pairwise products (a quadratic decision function: interactions such as "a low alignment score
matters less on a short pair"), trained on a seeded sample of the corpus's own pairs (clean)
against their synthetic noisy copies (noise.py), with a held-out share to report accuracy and
ROC-AUC. Optionally (``train(detectors=True)``, config ``learn.detectors``) one such regression per
family of synthetic noise (noise.NOISE_FAMILIES: misalignment, length, untranslated text,
numbers), each against its family alone, their log-odds combined as the clean class of a softmax:
a pair is clean only when no detector fires. With a declared target language the
probability is multiplied by a language gate (gate.py) that trusts the identifier as much as it
proved reliable on clean pairs of that length; the source side's posterior is one of the
regression's inputs and, with ``source_language_prior``, a gentler gate. The strongest
reason a pair scored low is a gated language, or (in the detector that fired most) the feature
whose value, set to the average clean pair's, lowers that detector's log-odds most.
"""

from __future__ import annotations

import dataclasses
from typing import Callable

import numpy as np

from ..errors import InputError, check_fitted
from ..linalg import fit_logistic
from .alignment import AlignmentModel
from .extractor import FeatureExtractor
from .features import LANGUAGE_FEATURES, CorpusCounts, CorpusModel
from .gate import GATED, LanguageGate
from .noise import NOISE_FAMILIES, NOISE_KINDS, synthesize

DEVIATIONS = ("char_ratio", "word_ratio", "token_ratio")


class PairClassifier:
    """The learned pair-quality score (PHSIC, Yokoi 2018, §6.3, is one of its features).

    ``fit(F, clean)`` on feature rows (columns named by ``names``, see :func:`feature_names`) and
    whether each pair is clean; ``predict_proba(F)`` the probability that a pair is clean; :func:`train`
    fits on a corpus's own pairs against their synthetic noise.

    Parameters
    ----------
    names : list of str
        The feature of every column.
    regularization : float, default 1.0
        Inverse L2 strength C of the logistic regression.
    seed : int, default 0
    language_prior, source_language_prior, gated
        The language gate's (:class:`~kcooc.filtering.gate.LanguageGate`); the ``gated`` posteriors
        are no input of the regression, the source's is one even when it gates too.
    detectors : sequence of str, default ("noise",)
        The noise classes (families of synthetic noise, noise.NOISE_FAMILIES) next to "clean".

    Notes
    -----
    Standardise, expand to degree 2, one binary logistic regression per detector k (clean against
    that noise class alone), times the language gate's factor per gated side (``gate``):
    ``predict_proba`` = 1 / (1 + sum_k exp(m_k)) x prod over gated sides (P + (1 - P) q),
    where m_k = w_k.z + z^T S_k z + b_k is detector k's log-odds of its noise against clean; the
    first factor is the clean class's probability in a softmax over clean and the detectors
    (Bishop 2006, Eq. 4.104, with the detectors' log-odds as the classes' decision values). A pair is
    clean only when no detector fires. With one detector (``train``'s default: on the development
    sample of docs/results-filtering.md the detectors ranked no better and trained twice as long)
    this is the binary logistic regression sigmoid(-m).

    The posteriors gate the score rather than feed the regression (gate.py says why). The source's
    posterior is an input too (swapped sides put the target's language there); its gate is gentle
    (prior .99 in ``train``'s callers), because short source strings (package names, option help)
    are often misidentified and the clean pairs the gate doubts would rank below real noise.
    """

    def __init__(self, names: list[str], regularization: float = 1.0, seed: int = 0, language_prior: float = 0.9,
                 detectors: tuple[str, ...] | list[str] = ("noise",), gated: tuple[str, ...] | list[str] = GATED,
                 source_language_prior: float | None = None):
        self.names, self.regularization, self.seed = list(names), regularization, seed
        self.detectors = list(detectors)
        self.gate = LanguageGate(self.names, language_prior, source_language_prior, gated)
        self.model_columns = [k for k, name in enumerate(self.names) if name not in self.gate.gated]
        self.deviation_columns = [self.names.index(name) for name in DEVIATIONS if name in self.names]
        width = len(self.model_columns) + len(self.deviation_columns)
        self.pairs = np.triu_indices(width)

    @property
    def input_names(self) -> list[str]:
        """The regression's inputs: the features, then the length ratios' distances from their clean medians."""
        return [self.names[k] for k in self.model_columns] + [f"{self.names[j]}_deviation" for j in self.deviation_columns]

    @property
    def expanded_names(self) -> list[str]:
        """What ``weakest`` returns an index into: per detector (``detector:input`` when there are
        several), each input, then the gated languages."""
        inputs = self.input_names
        prefixes = [f"{d}:" for d in self.detectors_] if len(self.detectors_) > 1 else [""]
        return [p + name for p in prefixes for name in inputs] + self.gate.gated_names

    def _expand(self, F: np.ndarray) -> np.ndarray:
        F = np.asarray(F, dtype=np.float64)
        return np.hstack([F[:, self.model_columns], np.abs(F[:, self.deviation_columns] - self.medians_)])

    def fit(self, F: np.ndarray, labels: np.ndarray, start: "PairClassifier | None" = None) -> "PairClassifier":
        """Fit on feature rows ``F`` and their labels (True / 0 = clean, else the detector's noise
        class); ``start``: a classifier fitted on similar rows whose coefficients start the Newton
        iterations (the same optimum, fewer steps)."""
        labels = np.asarray(labels)
        labels = (~labels).astype(np.int64) if labels.dtype == bool else labels.astype(np.int64)
        clean = labels == 0
        present = np.unique(labels[~clean])
        self.detectors_ = [self.detectors[k - 1] for k in present]  # the noise classes seen in training
        if len(self.expanded_names) > 255:  # weakest is stored as uint8: refused before any fitting
            raise InputError(f"{len(self.detectors_)} detectors x {len(self.input_names)} inputs are too many reasons")
        self.medians_ = np.median(np.asarray(F, dtype=np.float64)[clean][:, self.deviation_columns], axis=0)
        Z = self._expand(F)
        self.mean_, self.scale_ = Z.mean(axis=0), Z.std(axis=0)
        self.scale_[self.scale_ == 0] = 1.0
        Z = (Z - self.mean_) / self.scale_
        terms = self._terms(Z)
        self.coef_, self.intercept_ = np.empty((present.size, terms.shape[1])), np.empty(present.size)
        warm = start is not None and start.detectors_ == self.detectors_ and start.coef_.shape == self.coef_.shape
        for k, label in enumerate(present):  # detector k: clean against its noise alone; margin = minus the clean decision
            rows = clean | (labels == label)
            first = (-start.coef_[k], -start.intercept_[k]) if warm else None
            # one detector: every row, without a copy of the expanded terms
            w, b = fit_logistic(terms if rows.all() else terms[rows], clean[rows], self.regularization, start=first)
            self.coef_[k], self.intercept_[k] = -w, -b
        self.reference_ = Z[clean].mean(axis=0)  # the average clean pair, standardised
        self.gate.fit(np.asarray(F, np.float64)[clean])
        return self

    def standardised(self, F: np.ndarray) -> np.ndarray:
        check_fitted(self, "coef_")
        return (self._expand(F) - self.mean_) / self.scale_

    @staticmethod
    def _terms(Z: np.ndarray) -> np.ndarray:
        """[z, z_i z_j for i <= j] (scikit-learn's PolynomialFeatures(2) order, ``pairs``), filled
        one i at a time (no gathered copies of the columns)."""
        n, width = Z.shape
        terms = np.empty((n, width + width * (width + 1) // 2))
        terms[:, :width] = Z
        start = width
        for i in range(width):
            np.multiply(Z[:, i : i + 1], Z[:, i:], out=terms[:, start : start + width - i])
            start += width - i
        return terms

    def _quadratic(self, k: int) -> tuple[np.ndarray, np.ndarray]:
        """Detector k's margin as w.z + z^T S z + b: (w, symmetric S)."""
        width = len(self.mean_)
        Q = np.zeros((width, width))
        Q[self.pairs] = self.coef_[k, width:]
        return self.coef_[k, :width], (Q + Q.T) / 2

    def margins(self, F: np.ndarray, Z: np.ndarray | None = None) -> np.ndarray:
        """(rows, detectors) log-odds m_k of each detector's noise against clean (``Z``: the
        standardised ``F`` if the caller has it)."""
        return self._terms(self.standardised(F) if Z is None else Z) @ self.coef_.T + self.intercept_

    def predict_proba(self, F: np.ndarray) -> np.ndarray:
        """p(clean | features) of each row (float64): the clean class's softmax probability times the gates."""
        return self._probability(self.margins(F), self.gate.factors(F))

    @staticmethod
    def _probability(m: np.ndarray, gate: np.ndarray) -> np.ndarray:
        top = np.maximum(m.max(axis=1), 0.0)  # exp(-log(1 + sum exp m)) without overflow
        clean = np.exp(-top - np.log(np.exp(-top) + np.exp(m - top[:, None]).sum(axis=1)))
        return clean * gate.prod(axis=1)

    def weakest(self, F: np.ndarray) -> np.ndarray:
        """Index (into ``expanded_names``) of what lowers each row's score most: a language whose
        gate factor is below 1/2; else, in the detector with the largest margin, the input whose
        value, replaced by the average clean pair's, lowers that margin most (moving z_j by d
        changes it by w_j d + 2 d (S z)_j + S_jj d^2)."""
        Z = self.standardised(F)
        return self._weakest(Z, self.margins(F, Z), self.gate.factors(F))

    def predict_with_reasons(self, F: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """(``predict_proba(F)``, ``weakest(F)``), standardising and expanding ``F`` once."""
        Z = self.standardised(F)
        m, gate = self.margins(F, Z), self.gate.factors(F)
        return self._probability(m, gate), self._weakest(Z, m, gate)

    def _weakest(self, Z: np.ndarray, m: np.ndarray, gate: np.ndarray) -> np.ndarray:
        fired = np.argmax(m, axis=1)
        index = np.empty(len(Z), dtype=np.int64)
        for k in np.unique(fired):
            rows = fired == k
            w, S = self._quadratic(k)
            d = self.reference_ - Z[rows]
            index[rows] = k * Z.shape[1] + np.argmin(w * d + 2 * d * (Z[rows] @ S) + np.diag(S) * d**2, axis=1)
        if self.gate.columns:
            low = gate.min(axis=1) < 0.5
            index[low] = len(self.detectors_) * Z.shape[1] + np.argmin(gate[low], axis=1)
        return index

    # -- persistence ------------------------------------------------------------------------------
    def state(self) -> tuple[dict, dict[str, np.ndarray]]:
        check_fitted(self, "coef_")
        gate_params, gate_arrays = self.gate.state()
        return ({"names": self.names, "regularization": self.regularization, "seed": self.seed,
                 "detectors": self.detectors, "fitted_detectors": self.detectors_, **gate_params},
                {"medians": self.medians_, "mean": self.mean_, "scale": self.scale_, "coef": self.coef_,
                 "intercept": self.intercept_, "reference": self.reference_, **gate_arrays})

    @classmethod
    def from_state(cls, params: dict, arrays: dict[str, np.ndarray]) -> "PairClassifier":
        """The classifier ``state`` wrote; also a binary one of an older artifact (its clean decision
        ``coef``, ``intercept`` in the header), read as one detector with the opposite sign."""
        arrays = dict(arrays)
        if "detectors" not in params and "intercept" in params and np.ndim(arrays.get("coef")) == 1:
            params = {**params, "detectors": ["noise"], "fitted_detectors": ["noise"], "gated": LANGUAGE_FEATURES}
            arrays["coef"], arrays["intercept"] = -arrays["coef"][None], -np.array([float(params["intercept"])])
        model = cls(params["names"], params["regularization"], params["seed"], params["language_prior"],
                    params["detectors"], params["gated"], params.get("source_language_prior"))
        model.detectors_ = list(params["fitted_detectors"])
        if not set(model.detectors_) <= set(model.detectors) or not model.detectors_:
            raise InputError("classifier detectors are not among its noise classes")
        width, count = len(model.model_columns) + len(model.deviation_columns), len(model.detectors_)
        for key, shape in (("medians", (len(model.deviation_columns),)), ("mean", (width,)), ("scale", (width,)),
                           ("coef", (count, width + model.pairs[0].size)), ("intercept", (count,)),
                           ("reference", (width,))):
            if key not in arrays or arrays[key].shape != shape:
                raise InputError(f"classifier array {key!r} is missing or has the wrong shape")
        model.gate = LanguageGate.from_state(model.names, params, arrays)
        model.medians_, model.mean_, model.scale_ = arrays["medians"], arrays["mean"], arrays["scale"]
        model.coef_, model.intercept_, model.reference_ = arrays["coef"], arrays["intercept"], arrays["reference"]
        return model


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

    def extractor(self, src_lang: str | None, tgt_lang: str | None, encoders, phsic) -> FeatureExtractor:
        """Every feature of a pair, with the pair ``encoders`` and a fitted ``phsic``."""
        return FeatureExtractor(self.names, src_lang, tgt_lang, encoders, phsic, CorpusModel(self.counts), self.alignment)


def train(features: Callable[[list[str], list[str]], np.ndarray], names: list[str], src: list[str], tgt: list[str],
          validation: float, regularization: float, seed: int, language_prior: float = 0.9,
          fit: Callable[[list[str], list[str]], None] | None = None, doubtful_share: float = 0.0,
          detectors: bool = False, source_language_prior: float | None = None) -> tuple[PairClassifier, dict]:
    """Fit a :class:`PairClassifier` on the clean ``(src, tgt)`` against their synthetic noise.

    ``features(src, tgt)`` returns the feature rows; ``fit``, if given, is first called with every
    example, clean and noisy: models of the corpus fitted there (the alignment tables) see the
    training noise as they see the noise of a scored corpus, which they are fitted on too. A seeded
    ``validation`` share of the clean pairs, with their noisy copies, is held out. With
    ``doubtful_share``, the classifier is fitted twice: the second time without that share of the
    clean training pairs that the first fit scored lowest (the sample is the corpus's own pairs,
    noise included), and its language gate is calibrated without the share that the first fit
    scored lowest *without the gate* (gate.py says why). With ``detectors``, one detector per family of noise (noise.NOISE_FAMILIES)
    against clean instead of one clean-vs-all fit. Returns the classifier and its held-out report.
    """
    unique = list(dict.fromkeys(zip(src, tgt)))  # a pair repeated in the corpus is one example, held out or not
    if len(unique) < 10:
        raise InputError(f"too few distinct pairs pass the rules to learn a score from: {len(unique)} (need 10)")
    src, tgt = [s for s, _ in unique], [t for _, t in unique]
    noisy_src, noisy_tgt, kinds = synthesize(src, tgt, seed)
    if fit is not None:
        fit(src + noisy_src, tgt + noisy_tgt)
    F = features(src + noisy_src, tgt + noisy_tgt)
    clean = np.repeat([True, False], len(src))
    families = list(dict.fromkeys(NOISE_FAMILIES.values())) if detectors else ["noise"]
    family = np.array([families.index(NOISE_FAMILIES[kind]) if detectors else 0 for kind in NOISE_KINDS]) + 1
    labels = np.concatenate([np.zeros(len(src), dtype=np.int64), family[kinds]])
    held = np.tile(np.random.default_rng(seed + 1).random(len(src)) < validation, 2)
    from ..metrics import roc_auc

    def classifier_on(rows, start=None):
        return PairClassifier(names, regularization, seed, language_prior, families,
                              source_language_prior=source_language_prior).fit(F[rows], labels[rows], start)

    classifier = classifier_on(~held)
    if doubtful_share:  # the corpus's own pairs are not all clean: refit without the least credible
        rows = np.flatnonzero(~held & clean)
        doubtful = int(doubtful_share * rows.size)
        p = classifier.predict_proba(F[rows])
        keep = ~held
        keep[rows[np.argsort(p, kind="stable")[:doubtful]]] = False
        # the gate is calibrated without the pairs the other features doubt: the share ranked with the gate's own
        # factors would hold the clean sides it doubts, and a gate fitted without them would doubt them all the more
        credible = np.delete(rows, np.argsort(p / classifier.gate.factors(F[rows]).prod(axis=1), kind="stable")[:doubtful])
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

