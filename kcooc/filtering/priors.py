"""The fixed priors of the learned score (classifier.py): factors on the inputs whose evidence the model,
trained on synthetic noise, weighs far below what the input alone knows (docs/filtering.md, "Fixed
priors", says what each found).

Each prior multiplies the score by exp(beta min(0, v + t)), whatever the training taught: beta its
weight (``PRIORS``: the ``learn.*_weight`` that sets it), t its allowance (``ALLOWANCES``, else 0) and v
the input oriented so that lower is worse:

* ``swaps_tgt``: the target's log ratio (<= 0) of its word order under the corpus's own counts
  (word_typicality.py) in units of its spread on the clean rows (minus their 5% quantile, at least 1:
  ``SPREADS``), free up to half a spread: the lowest swap over the square root of the words of a side with
  spaces and the lowest rotation of a side without are on other scales, and a clean side of a corpus whose
  order its own counts know less well falls lower;
* ``spelling_tgt``: the target's log ratio (<= 0) of its spelling under the corpus's own counts, and the same
  in units of its spread on the clean rows (``spelling_tgt_spread``: minus their 1% quantile, at least .05), free
  up to half a spread: where the corpus writes diacritics, a clean target's spelling spreads over a unit or two
  (French), where it writes few (Dutch) a dropped `één` is a few hundredths, and the raw log ratio weighs it as
  nothing;
* ``numbers_mismatch``, ``placeholders_mismatch``: minus 1 when the sides' numbers or placeholders
  differ (mismatch.py), each with its own weight: a translation keeps its placeholders (and markup) far more
  strictly than its numbers, which it may spell out or round; ``encoding_src``, ``encoding_tgt``: minus
  log(1 + misdecoded letters) (damage.py);
* ``ending``: minus 1 when the sides end in different punctuation classes (features.ending_agreement: a
  segment cut short or joined to the next one; the peers' terminal-punctuation rule), allowance -1 on the
  agreement's 0 or 1;
* ``sentences``: minus how far the sides' numbers of sentences disagree, 1 - (1 + min(b_s, b_t)) / (1 + max(b_s,
  b_t)) for their sentence breaks b (features.sentence_agreement: a segment cut after a sentence or joined to
  the next), allowance -1 on the agreement in (0, 1];
* ``stutter_src``, ``stutter_tgt``: minus the share of a side's tokens in a run repeated in place that the
  other side does not repeat (damage.py);
* ``glued_src``, ``glued_tgt``: minus log(1 + n) for the n places of a side where a lower-case letter is
  followed at once by a capital, beyond the other side's (damage.py: words glued by lost spaces);
* ``char_ratio_above``, ``char_ratio_below``: minus the character ratio's distance from its typical
  value at the pair's length, in units of its spread there (ratios.py), free up to 2.5 spreads;
* ``align_tgt``, ``align_src`` (``READ_AT_LENGTH``): minus how far the alignment log-likelihood lies
  below the value typical of the sample's pairs of the pair's length, in units of its spread there
  (ratios.RatioDistances fitted here), free up to 2 spreads.

A missing value (NaN) is no evidence: factor 1.
"""

from __future__ import annotations

import numpy as np

from ..errors import InputError
from .ratios import RatioDistances

PRIORS = {"swaps_tgt": "order_weight", "spelling_tgt": "spelling_weight", "spelling_tgt_spread": "spelling_weight",
          "numbers_mismatch": "mismatch_weight", "placeholders_mismatch": "placeholders_weight",
          "ending": "ending_weight", "sentences": "sentences_weight",
          "encoding_src": "encoding_weight", "encoding_tgt": "encoding_weight",
          "char_ratio_above": "length_weight", "char_ratio_below": "length_weight",
          "align_tgt": "alignment_weight", "align_src": "alignment_weight",
          "stutter_src": "repeat_weight", "stutter_tgt": "repeat_weight",
          "glued_src": "glued_weight", "glued_tgt": "glued_weight"}
INPUTS = {"spelling_tgt_spread": "spelling_tgt"}  # a prior on another one's input: its name, its input
ALLOWANCES = {"char_ratio_above": 2.5, "char_ratio_below": 2.5, "align_tgt": 2.0, "align_src": 2.0, "swaps_tgt": 0.5,
              "spelling_tgt_spread": 0.5,
              "ending": -1.0, "sentences": -1.0}
SPREADS = {"swaps_tgt": 0.05, "spelling_tgt_spread": 0.01}  # priors read in units of their input's spread: minus
# this quantile of the clean rows' values, and never less than the floor (a factor of e, unless SPREAD_FLOORS says)
SPREAD_FLOOR = 1.0
SPREAD_FLOORS = {"spelling_tgt_spread": 0.05}
READ_AT_LENGTH = ("align_tgt", "align_src")


def check_weight(weight, what: str) -> float:
    """``weight`` as a float, refused (InputError naming ``what``) unless it is a number in [0, 10]: a saved
    model's header holds the weights too."""
    if isinstance(weight, bool) or not isinstance(weight, (int, float)) or not 0 <= weight <= 10:
        raise InputError(f"{what} must be in [0, 10] (a number), not {weight!r}")
    return float(weight)


def check_weights(weights: dict) -> dict:
    """``weights`` (each ``PRIORS`` weight by name), refused unless each is a number in [0, 10]."""
    missing = sorted(set(PRIORS.values()) - set(weights))
    if missing:
        raise InputError(f"the fixed priors' weights {', '.join(missing)} are missing")
    for weight in weights.values():
        check_weight(weight, "the fixed priors' weights")
    return dict(weights)


class FixedPriors:
    """The fixed priors on input rows (columns named by ``names``, oriented by ``orientation``);
    ``fit`` on the clean rows (the typical alignment likelihood at each length, the spreads of ``SPREADS``),
    then ``log_factors``.

    Parameters
    ----------
    names : list of str
        The classifier's input names.
    orientation : array of {-1, 0, 1}
        Each input's direction (+1: larger is cleaner).
    weights : dict
        beta of each ``PRIORS`` weight name (check_weights).
    """

    def __init__(self, names: list[str], orientation: np.ndarray, weights: dict):
        self.names, self.weights = list(names), check_weights(weights)
        self.priors = [name for name in PRIORS if INPUTS.get(name, name) in self.names]
        self.columns = [(self.names.index(INPUTS.get(name, name)), self.weights[PRIORS[name]],
                         int(orientation[self.names.index(INPUTS.get(name, name))]), ALLOWANCES.get(name, 0.0))
                        for name in self.priors]
        self.typical = RatioDistances(self.names, READ_AT_LENGTH, READ_AT_LENGTH)
        self.spreads_ = np.ones(len(self.columns))

    def fit(self, X: np.ndarray) -> "FixedPriors":
        self.typical.fit(X)
        self.spreads_ = np.array([spread(X[:, j] * direction, SPREADS[name], SPREAD_FLOORS.get(name, SPREAD_FLOOR))
                                  if name in SPREADS else 1.0 for name, (j, _, direction, _) in zip(self.priors,
                                                                                                    self.columns)])
        return self

    def log_factors(self, X: np.ndarray) -> np.ndarray:
        """(rows, inputs): each input's log priors beta min(0, v + t) summed, 0 for an input without one."""
        X = np.asarray(X, dtype=np.float64)
        below = dict(zip((self.names[k] for k in self.typical.columns), self.typical.transform(X)[1::2]))
        factors = np.zeros(X.shape)
        for (j, weight, direction, allowance), scale in zip(self.columns, self.spreads_):
            value = -below[self.names[j]] if self.names[j] in below else direction * X[:, j] / scale
            # NaN (no evidence) as the largest value: free whatever the allowance; an infinite one stays finite
            log_prior = weight * np.minimum(np.nan_to_num(value, nan=np.finfo(float).max) + allowance, 0.0)
            factors[:, j] = np.maximum(factors[:, j] + log_prior, -np.finfo(float).max)  # not -inf: a weight above 1
            # times the lowest float
        return factors

    def arrays(self) -> dict[str, np.ndarray]:
        return {**self.typical.arrays(), "spreads": self.spreads_}

    @classmethod
    def from_arrays(cls, names: list[str], orientation: np.ndarray, weights: dict,
                    arrays: dict[str, np.ndarray]) -> "FixedPriors":
        priors = cls(names, orientation, weights)
        priors.typical = RatioDistances.from_arrays(names, arrays, READ_AT_LENGTH, READ_AT_LENGTH, prefix="prior")
        spreads = arrays.get("spreads", np.zeros(0))
        floors = np.array([SPREAD_FLOORS.get(name, SPREAD_FLOOR) for name in priors.priors])
        if spreads.shape != (len(priors.columns),) or not np.all(spreads >= floors):
            raise InputError("classifier array 'prior_spreads' is missing, has the wrong shape or a spread below "
                             "its floor")
        priors.spreads_ = spreads
        return priors


def spread(values: np.ndarray, quantile: float, floor: float = SPREAD_FLOOR) -> float:
    """Minus the ``quantile`` of the finite ``values`` (oriented: lower is worse), at least ``floor``."""
    finite = values[np.isfinite(values)]
    return max(-float(np.quantile(finite, quantile)), floor) if finite.size else floor
