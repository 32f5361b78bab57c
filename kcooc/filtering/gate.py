"""The language gate of the learned score: a factor in (0, 1] per pair from the language identifier's
posterior of each side's declared language, trusted as much as the identifier proved right on the
corpus's clean sides of the same length.

For a gated side, P is the identifier's posterior of the side's declared language (among the languages whose
alphabet holds the side's Cyrillic letters: charsets.declared_posterior) and q the
probability that the side is nevertheless in it when the identifier says no, by Bayes with a prior
share ``prior`` of right-language sides and the share r of clean sides of that length whose log
posterior is as low (at most the first of ``LOG_POSTERIOR_EDGES`` at or above the side's; measured
on the clean training pairs, smoothed (count + 1) / (n + 2)): q = prior r / (prior r + 1 - prior).
The factor is P + (1 - P) q. Short strings, which the identifier often gets wrong, are then hardly
penalised; long ones strongly; and a side the identifier rejects far more firmly than any clean side
of its length (a text in a third language: its log posterior of the declared one is often below
-10) is penalised even when short.

The corpus's own pairs hold its noise, wrong-language sides among them, and those would count as
right-language sides the identifier rejects, making the gate lenient exactly where it should not be.
So ``fit`` measures twice: the second time without the sides the first measurement already finds more
likely in another language (factor below 1/2). Once, not until nothing changes: repeated, the
rates of the depths clean sides rarely reach would shrink toward nothing.

Which clean sides calibrate the gate is its caller's choice (``train`` in learning.py): the corpus's
own pairs that the other features find credible, not those the gated score finds credible. Ranked
with the gate's own factors, the pairs left out would hold the clean sides the identifier doubts,
the rates r would shrink, and the gate would doubt those sides all the more: calibrated that way,
it halves the score of 8% of the clean pairs of a corpus of Spanish program messages, whose short
sides the identifier often doubts (docs/results-gate.md).

A gated side whose letters include some its declared language does not write (charsets.py: the share
s of its letters outside the language's code page, or a Cyrillic language's alphabet, those of the other
side aside) has its factor multiplied by max(1 - s, .01)^``FOREIGN_POWER``: one such letter in five keeps
3% of the score, one in thirty 58%. Almost no clean side of the development corpora has any; the identifier
cannot tell a two-character Chinese string from Japanese, the code page can.

The score takes each factor to the power ``weight`` (1.5 by default): the factor is the probability that the
side is in its language, and the regression's log-odds, trained on self-made noise, spread its clean pairs so
far that a side in a close language (Dutch on a German corpus, Ukrainian on a Russian one) whose short text the
identifier doubts fell only to the middle of the clean ones; counted once and a half it falls below most.

The posteriors are a factor and no input of the regression: self-made noise can only put the *other
side's* language on a side, which other features already reveal, so a regression learns no use for
them and scores a side in a third language as clean.
"""

from __future__ import annotations

import numpy as np

from ..errors import InputError
from ..text import lowered
from .charsets import declared_posterior
from .priors import check_weight

GATED = ("tgt_lang",)  # the language-ID posteriors that always gate (the source's only with a source prior)
LENGTH_EDGES = np.array([10, 25, 50, 100])  # characters: the gate trusts the identifier per length
LOG_POSTERIOR_EDGES = np.array([-87.0, -30.0, -10.0, np.log(0.5)])  # ... and per depth of its "no"
FOREIGN = {"src_lang": "foreign_src", "tgt_lang": "foreign_tgt"}  # each posterior's side's foreign letters
FOREIGN_POWER = 16
LONG_SIDE = 50  # characters: a side long enough for the identifier (.85-.998 of such clean sides agree on real corpora)
LONG_SIDES_NEEDED = 20  # such sides before the declared language is checked at all


class LanguageGate:
    """Per-row factors P + (1 - P) q of the gated sides (see the module docstring).

    Parameters
    ----------
    names : list of str
        The feature of every column of the rows it sees; it reads ``src_lang``/``tgt_lang`` (posteriors)
        and ``src_chars``/``tgt_chars`` (log1p of the side's length in characters).
    language_prior : float, default 0.9
        Prior share of gated sides (``gated``) in their declared language.
    source_language_prior : float or None, default None
        If set, the source side's posterior gates too, with this prior: near 1, so that only a source
        rejected far more firmly than the clean sources of its length (a text in a third language) is
        penalised, not a short English string.
    gated : sequence of str, default ("tgt_lang",)
        The posteriors gated with ``language_prior``.
    weight : float, default 1.5
        The power of the factors in the score (``log_factors``); ``factors`` are the probabilities themselves.
    """

    def __init__(self, names: list[str], language_prior: float = 0.9, source_language_prior: float | None = None,
                 gated: tuple[str, ...] | list[str] = GATED, weight: float = 1.5):
        self.names, self.language_prior, self.gated = list(names), language_prior, list(gated)
        self.weight = check_weight(weight, "the language gate's weight")
        self.source_language_prior = source_language_prior
        self.columns = [k for k, name in enumerate(self.names) if name in self.gated
                        or (name == "src_lang" and source_language_prior is not None)]
        self.priors = np.array([language_prior if self.names[k] in self.gated else source_language_prior
                                for k in self.columns], dtype=np.float64)
        self.length_columns = [self.names.index(self.names[k].replace("_lang", "_chars")) for k in self.columns]
        self.foreign_columns = [self.names.index(FOREIGN[self.names[k]]) for k in self.columns
                                if FOREIGN[self.names[k]] in self.names]

    @property
    def gated_names(self) -> list[str]:
        """The features of the gated sides, in the order of the factors' columns."""
        return [self.names[k] for k in self.columns]

    def fit(self, F: np.ndarray) -> "LanguageGate":
        """Measure, on the rows of clean pairs ``F``, the share of sides of each length whose log posterior
        is at most each of ``LOG_POSTERIOR_EDGES``; then measure again without the sides that this first
        measurement puts more likely in another language than in the declared one (factor below 1/2)."""
        F = np.asarray(F, np.float64)
        self.rejection_ = self._rates(F, np.ones((len(F), len(self.columns)), dtype=bool))
        self.rejection_ = self._rates(F, self.factors(F) >= 0.5)
        return self

    def _rates(self, F: np.ndarray, counted: np.ndarray) -> np.ndarray:
        """The shares r over the ``counted`` sides (rows, gates) of each length, smoothed (count + 1) / (n + 2)."""
        buckets = self._length_buckets(F)
        at_most = self._log_posteriors(F)[:, :, None] <= LOG_POSTERIOR_EDGES  # (rows, gates, edges)
        return np.array([[(at_most[(b == k) & counted[:, g], g].sum(axis=0) + 1)
                          / (np.sum((b == k) & counted[:, g]) + 2)
                          for k in range(LENGTH_EDGES.size + 1)]
                         for g, b in enumerate(buckets.T)]).reshape(self._shape())

    def _shape(self) -> tuple[int, int, int]:
        return len(self.columns), LENGTH_EDGES.size + 1, LOG_POSTERIOR_EDGES.size

    def _log_posteriors(self, F: np.ndarray) -> np.ndarray:
        with np.errstate(divide="ignore"):
            return np.log(np.asarray(F, np.float64)[:, self.columns])

    def _length_buckets(self, F: np.ndarray) -> np.ndarray:
        return np.searchsorted(LENGTH_EDGES, np.expm1(F[:, self.length_columns]) + 0.5)

    def factors(self, F: np.ndarray) -> np.ndarray:
        """(rows, gated sides) factors P + (1 - P) q, times (1 - s)^FOREIGN_POWER with a side's foreign letters."""
        F = np.asarray(F, np.float64)
        depth = np.minimum(np.searchsorted(LOG_POSTERIOR_EDGES, self._log_posteriors(F)), LOG_POSTERIOR_EDGES.size - 1)
        r = self.rejection_[np.arange(len(self.columns)), self._length_buckets(F), depth]
        q = self.priors * r / (self.priors * r + 1 - self.priors)
        P = F[:, self.columns]
        factors = P + (1 - P) * q
        if self.foreign_columns:
            factors *= np.maximum(1 - F[:, self.foreign_columns], 0.01) ** FOREIGN_POWER  # > 0: ``p / factors`` exists
        return factors

    def log_factors(self, F: np.ndarray) -> np.ndarray:
        """(rows, gated sides) ``weight`` log ``factors``: what the gates add to the score's log."""
        return self.weight * np.log(self.factors(F))

    # -- persistence ------------------------------------------------------------------------------
    def state(self) -> tuple[dict, dict[str, np.ndarray]]:
        return ({"language_prior": self.language_prior, "gated": self.gated,
                 "source_language_prior": self.source_language_prior, "language_weight": self.weight},
                {"rejection": self.rejection_})

    @classmethod
    def from_state(cls, names: list[str], params: dict, arrays: dict[str, np.ndarray]) -> "LanguageGate":
        """The gate ``state`` wrote, over the columns ``names`` (a state saved before the source gate
        existed has no ``source_language_prior``, one saved before the weight had none, which was 1)."""
        gate = cls(names, params["language_prior"], params.get("source_language_prior"), params["gated"],
                   params.get("language_weight", 1.0))
        rejection = arrays.get("rejection", np.zeros(0))
        if rejection.shape != gate._shape() or not np.all((rejection > 0) & (rejection <= 1)):
            raise InputError("classifier array 'rejection' is missing, has the wrong shape or holds a rate outside "
                             "(0, 1]")
        gate.rejection_ = arrays["rejection"]
        return gate


def declared_language_share(texts: list[str], language: str) -> tuple[float, int, str] | None:
    """Of the ``texts`` of ``LONG_SIDE`` characters or more, the share the identifier gives ``language`` a posterior
    of at least 1/2, how many they are and the language it names most often among the others (None with fewer than
    ``LONG_SIDES_NEEDED``): a share far below the .85-.998 of real corpora means swapped columns or a wrong code,
    which the gate, calibrated on the corpus itself, would otherwise take as the corpus's normal."""
    from ..langid import LanguageIdentifier

    long = [text for text in texts if len(text) >= LONG_SIDE]
    if len(long) < LONG_SIDES_NEEDED:
        return None
    identifier = LanguageIdentifier()
    posteriors = identifier.log_probabilities(long)
    agree = declared_posterior(posteriors, identifier.languages, language, lowered(long)) >= 0.5
    others = np.asarray(identifier.languages)[posteriors[~agree].argmax(axis=1)]  # what predict() names
    codes, counts = np.unique(others, return_counts=True)
    return float(agree.mean()), len(long), str(codes[counts.argmax()]) if counts.size else language
