"""The learned pair-quality score: every feature of a pair -> probability that the pair is clean
(:class:`PairClassifier`; learning.py trains it on the corpus and holds it with the corpus models).

Four factors, each of which can only fall when a pair disagrees more (docs/filtering.md says how to
read them):

* a logistic model monotone in every feature that measures disagreement between the sides or damage
  to one side (monotone.py; each feature's direction is ``ORIENTATION``: the distance of each length
  ratio from the corpus's typical one, mismatches, agreement, PHSIC, fluency, alignment likelihood,
  coverage and link order, surface damage), trained on a seeded sample of the corpus's own pairs
  (clean) against their synthetic noisy copies (noise.py) and against feature-space noise
  (typicality.feature_noise: a clean example with one feature moved into the sample's worst tail),
  with a held-out share to report accuracy and ROC-AUC. Optionally (``learning.train(detectors=True)``, config
  ``learn.detectors``) one such model per family of synthetic noise (noise.NOISE_FAMILIES), their
  log-odds combined as the clean class of a softmax: a pair is clean only when no detector fires;
* the typicality factor (typicality.Typicality): how far into the tails of the corpus's own pairs a
  pair lies on each feature, learned from the sample alone, so that a pair extreme on any feature ranks
  low whatever the synthetic noise taught (the word fluency of each side is in this factor only: in the
  model it outweighed every other feature against the training noise, which breaks word order on
  purpose, and cost clean pairs of rare words their rank);
* the fixed priors (priors.py) on the target's word order and spelling, mismatched numbers and
  placeholders, mojibake, the character ratio's and the alignment likelihoods' distances from their
  typical values at the pair's length, with fixed weights, because the model weighed each far below what it
  alone knew: the synthetic noise has misordered words as one kind of ten and neither dropped diacritics
  nor mojibake, and a model trained without changed numbers, cut text or misaligned pairs gave the
  mismatch, the ratio or the alignment little weight;
* with a declared target language, the language gate (gate.py), which trusts the identifier as much as
  it proved reliable on clean pairs of that length; the source side's posterior is one of the model's
  inputs and, with ``source_language_prior``, a gentler gate.

The strongest reason a pair scored low is a gated language, or the input whose value, set to the average
clean pair's, raises most the log-odds of the detector that fired most plus the input's log typicality
factor and fixed prior.
"""

from __future__ import annotations

import numpy as np

from ..artifact import part
from ..errors import InputError, check_fitted
from ..linalg import nan_columns
from .gate import FOREIGN, GATED, LanguageGate
from .monotone import MonotoneLogistic
from .priors import PRIORS, FixedPriors, check_weights
from .ratios import RATIOS, RatioDistances
from .typicality import Typicality, feature_noise

# The direction of every feature: +1 when a larger value means a cleaner pair, -1 a worse one, 0 context.
ORIENTATION = {
    "src_chars": 0, "tgt_chars": 0, "numbers": 1, "placeholders": 1, "urls": 1, "capitals": 1, "punctuation": 1,
    "ending": 1, "sentences": 1, "numbers_mismatch": -1, "placeholders_mismatch": -1, "glyphs_src": -1,
    "glyphs_tgt": -1, "encoding_src": -1, "encoding_tgt": -1, "repeats_src": -1, "repeats_tgt": -1, "stutter_src": -1,
    "stutter_tgt": -1, "glued_src": -1, "glued_tgt": -1, "long_words_src": -1,
    "long_words_tgt": -1, "spaced_src": -1, "spaced_tgt": -1, "initial_case": 1, "caps_gap": -1, "symbols_gap": -1,
    "copy": -1, "src_lang": 1, "tgt_lang": 1, "phsic": 1, "fluency_src": 1, "fluency_tgt": 1, "words_src": 1,
    "words_tgt": 1, "align_tgt": 1, "align_src": 1, "cover_src": 1, "cover_tgt": 1, "order": -1, "spelling_src": 1,
    "spelling_tgt": 1, "swaps_src": 1, "swaps_tgt": 1}
# In the typicality factor only, no input of the model: as inputs the word fluencies cost clean pairs of rare words
# more than they found noise, and the source's swaps, 0 where the corpus has no evidence either way (a source in a
# third language), raised such sources above clean ones whose order the corpus doubts a little; the stutters and the
# glued words, which no synthetic noise makes, act through their fixed priors; so does the sentences' agreement,
# which as an input cost the programs' sets more (mojibake, spacing) than it found cut and joined text.
TYPICALITY_ONLY = ("words_src", "words_tgt", "swaps_src", "stutter_src", "stutter_tgt", "glued_src", "glued_tgt",
                   "sentences")
LENGTH = "tgt_chars"  # the input that modulates the model's slopes
TARGET_WORDS = ("spelling_tgt", "swaps_tgt")  # the inputs of typicality_word_share


class PairClassifier:
    """The learned pair-quality score (PHSIC, Yokoi 2018, §6.3, is one of its features).

    ``fit(F, labels)`` on feature rows (columns named by ``names``, see
    :func:`~kcooc.filtering.extractor.feature_names`) and whether each pair is clean; ``predict_proba(F)``
    the probability that a pair is clean; :func:`train` fits on a corpus's own pairs against their
    synthetic noise.

    Parameters
    ----------
    names : list of str
        The feature of every column.
    regularization : float, default 0.1
        Inverse L2 strength C of the monotone logistic model.
    seed : int, default 0
        Seed of the feature-space noise.
    language_prior, source_language_prior, gated, language_weight
        The language gate's (:class:`~kcooc.filtering.gate.LanguageGate`; ``language_weight`` its ``weight``, the
        power of its factors in the score); the ``gated`` posteriors are no input of the model, the source's is one
        even when it gates too.
    detectors : sequence of str, default ("noise",)
        The noise classes (families of synthetic noise, noise.NOISE_FAMILIES) next to "clean".
    feature_noise, feature_noise_tail : float, default 1.0, 0.02
        Feature-space noisy examples per clean example, and the worst share of the sample their moved
        feature takes its value from (typicality.feature_noise).
    typicality_share, typicality_length_share, typicality_word_share, typicality_weight : float, default 0.003, \
0.02, 0.02, 0.5
        The typicality factor's a_j, of the length ratios' distances above and below their typical value
        (``typicality_length_share``), of the target's spelling and swaps (``typicality_word_share``) and of
        every other input (``typicality_share``), and its w (typicality.Typicality).
    order_weight, spelling_weight, mismatch_weight, placeholders_weight, ending_weight, sentences_weight, \
encoding_weight, length_weight, alignment_weight, repeat_weight, glued_weight : float, default 1.0, 0.75, 2.0, 4.0, \
0.5, 1.5, 3.0, 0.5, 0.3, 8.0, 2.0
        The fixed priors' weights (priors.py says on what each acts).

    Attributes
    ----------
    models_ : list of MonotoneLogistic
        One per fitted detector.
    typicality_ : Typicality
        The typicality factor, fitted on the clean rows.
    gate : LanguageGate
        The language gate, fitted on the clean rows.
    priors_ : FixedPriors
        The fixed priors, with the alignment likelihoods' typical values at each length fitted on the clean rows.
    ratios_ : RatioDistances
        Each length ratio's typical value and spread at each length, fitted on the clean rows (ratios.py).
    reference_ : array
        The clean rows' median of each input (the reference of ``weakest``).

    References
    ----------
    Yokoi et al., "Pointwise HSIC: A Linear-Time Kernelized Co-occurrence Norm for Sparse Linguistic
    Expressions", EMNLP 2018, §6.3. Ramsay, "Monotone Regression Splines in Action", Statistical
    Science 1988.

    Notes
    -----
    ``predict_proba`` = 1 / (1 + sum_k exp(-m_k)) x typicality x priors x prod over gated sides (P + (1 - P) q)^w,
    where m_k is detector k's monotone log-odds of clean against its noise: the first factor is the clean
    class's probability in a softmax over clean and the detectors (Bishop 2006, Eq. 4.104). With one detector
    (``train``'s default) it is the logistic sigmoid(m). The module docstring says why the priors are fixed.

    Examples
    --------
    >>> import numpy as np
    >>> from kcooc import PairClassifier
    >>> rng = np.random.default_rng(0)
    >>> names = ["tgt_chars", "char_ratio", "align_tgt"]
    >>> clean = np.column_stack([rng.normal(4, 1, 300), rng.normal(0, .2, 300), rng.normal(-3, .5, 300)])
    >>> noisy = np.column_stack([rng.normal(4, 1, 300), rng.normal(.8, .4, 300), rng.normal(-5, .5, 300)])
    >>> model = PairClassifier(names).fit(np.vstack([clean, noisy]), np.repeat([True, False], 300))
    >>> bool(model.predict_proba(clean[:50]).mean() > model.predict_proba(noisy[:50]).mean())
    True
    """

    def __init__(self, names: list[str], regularization: float = 0.1, seed: int = 0, language_prior: float = 0.9,
                 detectors: tuple[str, ...] | list[str] = ("noise",), gated: tuple[str, ...] | list[str] = GATED,
                 source_language_prior: float | None = None, feature_noise: float = 1.0,
                 feature_noise_tail: float = 0.02, typicality_share: float = 0.003,
                 typicality_length_share: float = 0.02, typicality_weight: float = 0.5,
                 typicality_word_share: float = 0.02, order_weight: float = 1.25, spelling_weight: float = 0.75,
                 mismatch_weight: float = 2.0, encoding_weight: float = 3.0, length_weight: float = 0.5,
                 alignment_weight: float = 0.3, repeat_weight: float = 8.0, language_weight: float = 1.5,
                 placeholders_weight: float = 4.0, ending_weight: float = 0.5, sentences_weight: float = 1.5,
                 glued_weight: float = 2.0):
        unknown = sorted(set(names) - set(ORIENTATION) - set(RATIOS) - set(FOREIGN.values()))
        if unknown:
            raise InputError(f"the learned score knows no feature {', '.join(unknown)}")
        self.names, self.regularization, self.seed, self.detectors = list(names), regularization, seed, list(detectors)
        self.feature_noise, self.feature_noise_tail = feature_noise, feature_noise_tail
        self.typicality_share, self.typicality_weight = typicality_share, typicality_weight
        self.typicality_length_share, self.typicality_word_share = typicality_length_share, typicality_word_share
        self.weights = check_weights({"order_weight": order_weight, "spelling_weight": spelling_weight,
                                      "mismatch_weight": mismatch_weight, "placeholders_weight": placeholders_weight,
                                      "ending_weight": ending_weight, "sentences_weight": sentences_weight,
                                      "encoding_weight": encoding_weight,
                                      "length_weight": length_weight, "alignment_weight": alignment_weight,
                                      "repeat_weight": repeat_weight, "glued_weight": glued_weight})
        self.gate = LanguageGate(self.names, language_prior, source_language_prior, gated, language_weight)
        self.columns = [k for k, name in enumerate(self.names)  # a side's foreign letters: the gate's alone
                        if name not in self.gate.gated and name not in FOREIGN.values()]
        inputs = self.input_names
        self.orientation = np.array([-1 if name.endswith(("_above", "_below")) else ORIENTATION[name]
                                     for name in inputs])
        self.model_inputs = np.array([name not in TYPICALITY_ONLY for name in inputs])
        self.length = int(np.count_nonzero(self.model_inputs[: inputs.index(LENGTH)])) if LENGTH in inputs else None
        self.reasons = np.flatnonzero(self.orientation != 0)  # what ``weakest`` can name besides a gated language

    @property
    def input_names(self) -> list[str]:
        """The inputs: each ungated feature, a length ratio as its distances above and below its typical value
        (ratios.py)."""
        return [part for k in self.columns for part in (
            (f"{self.names[k]}_above", f"{self.names[k]}_below") if self.names[k] in RATIOS else (self.names[k],))]

    @property
    def typicality_shares(self) -> np.ndarray:
        """a_j of each oriented input: ``typicality_length_share`` for a length ratio's distance above or
        below its typical value, ``typicality_word_share`` for the target's spelling and swaps, ``typicality_share``
        for the others."""
        def share(name: str) -> float:
            if name.endswith(("_above", "_below")):
                return self.typicality_length_share
            return self.typicality_word_share if name in TARGET_WORDS else self.typicality_share
        return np.array([share(self.input_names[j]) for j in np.flatnonzero(self.orientation != 0)])

    @property
    def expanded_names(self) -> list[str]:
        """What ``weakest`` returns an index into: per detector (``detector:input`` when there are
        several), each oriented input, then the gated languages."""
        check_fitted(self, "models_")
        names = [self.input_names[j] for j in self.reasons]
        prefixes = [f"{d}:" for d in self.detectors_] if len(self.detectors_) > 1 else [""]
        return [p + name for p in prefixes for name in names] + self.gate.gated_names

    def log_factors(self, X: np.ndarray) -> np.ndarray:
        """(rows, oriented inputs): each input's log typicality factor plus its log fixed prior."""
        return self.typicality_.log_factors(X) + self.priors_.log_factors(X)[:, self.reasons]

    def inputs(self, F: np.ndarray) -> np.ndarray:
        """The input rows of the feature rows ``F``."""
        check_fitted(self, "ratios_")
        F = np.asarray(F, dtype=np.float64)
        distances = iter(self.ratios_.transform(F))
        return np.column_stack([part for k in self.columns for part in (
            (next(distances), next(distances)) if self.names[k] in RATIOS else (F[:, k],))])

    def fit(self, F: np.ndarray, labels: np.ndarray, start: "PairClassifier | None" = None) -> "PairClassifier":
        """Fit on feature rows ``F`` and their labels (True / 0 = clean, else the detector's noise class).

        Parameters
        ----------
        F : array of shape (n, len(names))
            The feature rows.
        labels : array of shape (n,)
            Booleans (True: clean) or integers (0: clean, k: the k-th detector's noise).
        start : PairClassifier, optional
            A classifier fitted on similar rows whose weights start the Newton iterations (the same
            optimum, fewer steps).

        Returns
        -------
        PairClassifier
            self
        """
        labels = np.asarray(labels)
        labels = (~labels).astype(np.int64) if labels.dtype == bool else labels.astype(np.int64)
        clean = labels == 0
        present = np.unique(labels[~clean])
        detectors = [self.detectors[k - 1] for k in present]  # the noise classes seen in training
        # weakest is uint8: refused before fitting
        if len(detectors) * self.reasons.size + len(self.gate.columns) > 255:
            raise InputError(f"{len(detectors)} detectors x {self.reasons.size} inputs are too many reasons")
        F = np.asarray(F, dtype=np.float64)
        self.ratios_ = RatioDistances(self.names).fit(F[clean])
        X = self.inputs(F)
        self.reference_ = np.nan_to_num(nan_columns(np.nanmedian, X[clean]))
        self.typicality_ = Typicality(self.orientation, self.typicality_shares, self.typicality_weight).fit(X[clean])
        self.priors_ = FixedPriors(self.input_names, self.orientation, self.weights).fit(X[clean])
        model_X, orientation = X[:, self.model_inputs], self.orientation[self.model_inputs]
        noise = feature_noise(model_X[clean], orientation, self.feature_noise, self.feature_noise_tail,
                              np.random.default_rng([self.seed, 2]))
        warm = start is not None and getattr(start, "detectors_", None) == detectors
        models = []
        for k, label in enumerate(present):  # detector k: clean against its noise alone, and the feature-space noise
            rows = clean | (labels == label)
            models.append(MonotoneLogistic(orientation, self.length, self.regularization).fit(
                np.vstack([model_X[rows], noise]), np.r_[clean[rows], np.zeros(len(noise), dtype=bool)],
                start.models_[k] if warm else None))
        self.detectors_, self.models_ = detectors, models
        self.gate.fit(F[clean])
        return self

    def margins(self, F: np.ndarray, X: np.ndarray | None = None) -> np.ndarray:
        """(rows, detectors) log-odds m_k of clean against each detector's noise (``X``: the inputs of ``F``
        if the caller has them)."""
        check_fitted(self, "models_")
        X = self.inputs(F) if X is None else X
        return np.column_stack([model.decision_function(X[:, self.model_inputs]) for model in self.models_])

    @staticmethod
    def _log_probability(m: np.ndarray, typical: np.ndarray, gates: np.ndarray) -> np.ndarray:
        """log p(clean) from the detectors' log-odds ``m``, the log typicality and prior factors ``typical`` and
        the gates' log factors ``gates`` (LanguageGate.log_factors)."""
        low = np.minimum(m.min(axis=1), 0.0)  # -log(1 + sum exp(-m)) without overflow
        clean = low - np.log(np.exp(low) + np.exp(low[:, None] - m).sum(axis=1))
        return clean + typical.sum(axis=1) + gates.sum(axis=1)

    def predict_proba(self, F: np.ndarray) -> np.ndarray:
        """p(clean | features) of each row.

        Parameters
        ----------
        F : array of shape (n, len(names))
            The feature rows.

        Returns
        -------
        array of shape (n,)
            The clean class's softmax probability times the typicality factor, the fixed priors and the gates
            (float64).
        """
        X = self.inputs(F)
        return np.exp(self._log_probability(self.margins(F, X), self.log_factors(X),
                                            self.gate.log_factors(F)))

    def weakest(self, F: np.ndarray) -> np.ndarray:
        """Index (into ``expanded_names``) of what lowers each row's score most.

        A language whose gate factor is below 1/2; else, in the detector with the lowest log-odds, the
        input whose value, replaced by the average clean pair's, raises most that detector's log-odds
        plus the input's log typicality factor and fixed prior.

        Parameters
        ----------
        F : array of shape (n, len(names))
            The feature rows.

        Returns
        -------
        array of shape (n,)
            Indices into ``expanded_names``.
        """
        return self.predict_with_reasons(F)[1]

    def predict_with_reasons(self, F: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """(``predict_proba(F)``, ``weakest(F)``) of the feature rows ``F``, computing their inputs once."""
        X = self.inputs(F)
        m, typical, gate = self.margins(F, X), self.log_factors(X), self.gate.factors(F)
        fired = np.argmin(m, axis=1)
        model_reasons = np.flatnonzero(self.model_inputs[self.reasons])
        index = np.empty(len(X), dtype=np.int64)
        for k in np.unique(fired):
            rows = fired == k
            loss = -typical[rows]
            loss[:, model_reasons] += self.models_[k].losses(X[rows][:, self.model_inputs],
                                                              self.reference_[self.model_inputs])
            index[rows] = k * self.reasons.size + np.argmax(loss, axis=1)
        if self.gate.columns:
            low = gate.min(axis=1) < 0.5
            index[low] = len(self.detectors_) * self.reasons.size + np.argmin(gate[low], axis=1)
        return np.exp(self._log_probability(m, typical, self.gate.weight * np.log(gate))), index

    # -- persistence ------------------------------------------------------------------------------
    def state(self) -> tuple[dict, dict[str, np.ndarray]]:
        """(parameters, arrays) to save; :meth:`from_state` reads them back."""
        check_fitted(self, "models_")
        gate_params, gate_arrays = self.gate.state()
        typical_params, typical_arrays = self.typicality_.state()
        models = [model.state() for model in self.models_]
        params = {"names": self.names, "regularization": self.regularization, "seed": self.seed,
                  "detectors": self.detectors, "fitted_detectors": self.detectors_,
                  "feature_noise": self.feature_noise,
                  "feature_noise_tail": self.feature_noise_tail, "typicality_share": self.typicality_share,
                  "typicality_length_share": self.typicality_length_share,
                  "typicality_word_share": self.typicality_word_share, **self.weights,
                  "typicality": typical_params, **gate_params,
                  "models": [model_params for model_params, _ in models]}
        arrays = {"reference": self.reference_, **{f"ratio_{k}": v for k, v in self.ratios_.arrays().items()},
                  **{f"prior_{k}": v for k, v in self.priors_.arrays().items()},
                  **gate_arrays,
                  **{f"typicality_{k}": v for k, v in typical_arrays.items()},
                  **{f"model{k}_{name}": v for k, (_, model_arrays) in enumerate(models)
                     for name, v in model_arrays.items()}}
        return params, arrays

    @classmethod
    def from_state(cls, params: dict, arrays: dict[str, np.ndarray]) -> "PairClassifier":
        """The classifier ``state`` wrote (InputError if its parts do not fit together)."""
        typical = params["typicality"]
        if not set(PRIORS.values()) <= set(params) or not {"ratio_centres", "prior_centres"} <= set(arrays):
            raise InputError("the classifier was saved by an older kcooc (without a fixed prior or the length ratios "
                             "read at each length): train and save it again")
        model = cls(params["names"], params["regularization"], params["seed"], params["language_prior"],
                    params["detectors"], params["gated"], params.get("source_language_prior"), params["feature_noise"],
                    params["feature_noise_tail"], params["typicality_share"], params["typicality_length_share"],
                    typical["weight"], params["typicality_word_share"], **{w: params[w] for w in set(PRIORS.values())},
                    language_weight=params.get("language_weight", 1.0))
        detectors = list(params["fitted_detectors"])
        if not set(detectors) <= set(model.detectors) or not detectors or len(params["models"]) != len(detectors):
            raise InputError("classifier detectors are not among its noise classes")
        if arrays.get("reference", np.zeros(0)).shape != (len(model.input_names),):
            raise InputError("classifier array 'reference' is missing or has the wrong shape")
        model.reference_ = arrays["reference"]
        model.ratios_ = RatioDistances.from_arrays(model.names, part(arrays, "ratio_"))
        model.priors_ = FixedPriors.from_arrays(model.input_names, model.orientation, model.weights,
                                                part(arrays, "prior_"))
        model.typicality_ = Typicality.from_state(model.orientation, typical,
                                                  {name: arrays.get(f"typicality_{name}", np.zeros(0))
                                                   for name in ("quantiles", "shares")})
        models = []
        for k, model_params in enumerate(params["models"]):
            prefix = f"model{k}_"
            try:
                fitted = MonotoneLogistic.from_state(model_params, part(arrays, prefix))
            except KeyError as exc:
                raise InputError(f"classifier array '{prefix}{exc.args[0]}' is missing") from None
            if not np.array_equal(fitted.orientation, model.orientation[model.model_inputs]):
                raise InputError("the classifier's model inputs are not its features'")
            models.append(fitted)
        model.detectors_, model.models_ = detectors, models
        model.gate = LanguageGate.from_state(model.names, params, arrays)
        return model
