"""The length ratios as inputs of the learned score (classifier.py): each pair's distances above and below
the ratio typical of the corpus's own pairs *of its length*.

A translation's character ratio (``char_ratio`` = log(1 + target characters) - log(1 + source
characters)) spreads less the longer the pair: over a description of 150 characters a target a third
shorter than usual is rare, over a label of 10 characters it is common. So the ratio's typical value
and spread are read at the pair's length L = (``src_chars`` + ``tgt_chars``) / 2 (mean log length):
the sample's clean pairs, ordered by L, are cut into ``LENGTH_BINS`` equal shares (fewer when a share
would have fewer than ``SHARE_ROWS`` pairs; shares of the same median length are one); each share b gives
its median length L_b, its median ratio m_b and its median absolute deviation s_b, and m(L), s(L)
interpolate them linearly between the L_b (constant beyond the first and last). The inputs are

    above = max(0, (r - m(L)) / s(L)),   below = max(0, (m(L) - r) / s(L)),

each of which can only lower the score. The word and token ratios keep the sample's median and their
own units (m constant, s = 1): counted in whole words, a short pair's ratio takes a few values, and
standardised they ranked truncated and joined targets worse, not better. A share's s_b is at least
``SCALE_FLOOR`` times the whole sample's (a share whose ratios nearly all agree is no reason for a huge
distance), and 1 where the sample's is 0.

The fixed priors (priors.py) read the alignment likelihoods the same way: how far below the value
typical of the corpus's pairs of its length a pair's lies, in units of the spread there.
"""

from __future__ import annotations

import numpy as np

from ..errors import InputError

RATIOS = ("char_ratio", "word_ratio", "token_ratio")
STANDARDISED = ("char_ratio",)  # read at the pair's length, in units of its spread there
LENGTHS = ("src_chars", "tgt_chars")  # L: their mean (those present; without them one share)
LENGTH_BINS = 10
SHARE_ROWS = 200  # the fewest pairs a share has: a smaller sample is cut into fewer shares
SCALE_FLOOR = 0.25


class RatioDistances:
    """The length ratios' distances above and below their typical value at the pair's length (see the
    module docstring); ``fit`` on the clean rows, ``transform`` any rows.

    Parameters
    ----------
    names : list of str
        The feature of every column; the ratios among them are the ones transformed.
    ratios, standardised : tuple of str, default RATIOS, STANDARDISED
        The columns transformed, and those of them read at the pair's length in units of their spread.
    """

    def __init__(self, names: list[str], ratios: tuple[str, ...] = RATIOS,
                 standardised: tuple[str, ...] = STANDARDISED):
        self.columns = [k for k, name in enumerate(names) if name in ratios]
        self.standardised = [names[k] in standardised for k in self.columns]
        self.lengths = [names.index(name) for name in LENGTHS if name in names]

    def _length(self, F: np.ndarray) -> np.ndarray:
        return F[:, self.lengths].mean(axis=1) if self.lengths else np.zeros(len(F))

    def fit(self, F: np.ndarray) -> "RatioDistances":
        """The shares' median lengths ``centres_``, and per ratio their ``medians_`` and ``scales_``, from the
        clean rows ``F``."""
        F = np.asarray(F, dtype=np.float64)
        length = self._length(F)
        finite = np.flatnonzero(np.isfinite(length))
        ordered = finite[np.argsort(length[finite], kind="stable")]
        centres, shares = [], []  # shares of equal median length merged: np.interp needs increasing lengths
        for rows in np.array_split(ordered, min(LENGTH_BINS, max(1, ordered.size // SHARE_ROWS))):
            centre = float(np.median(length[rows])) if rows.size else 0.0
            if centres and centre <= centres[-1]:
                shares[-1] = np.r_[shares[-1], rows]
            else:
                centres.append(centre)
                shares.append(rows)
        medians, scales = [], []
        for k, standardised in zip(self.columns, self.standardised):
            median = _median(F[:, k], 0.0)
            if not standardised:  # the sample's median, in the ratio's own units
                medians.append(np.full(len(shares), median))
                scales.append(np.ones(len(shares)))
                continue
            share_medians = np.array([_median(F[rows, k], median) for rows in shares])
            spread = _median(np.abs(F[:, k] - median), 0.0)
            spreads = np.array([_median(np.abs(F[rows, k] - m), spread) for rows, m in zip(shares, share_medians)])
            medians.append(share_medians)
            scales.append(np.maximum(spreads, SCALE_FLOOR * spread) if spread > 0 else np.ones(len(shares)))
        self.centres_ = np.array(centres)
        self.medians_ = np.array(medians).reshape(len(self.columns), len(shares))
        self.scales_ = np.array(scales).reshape(len(self.columns), len(shares))
        return self

    def transform(self, F: np.ndarray) -> list[np.ndarray]:
        """Per ratio, its distance above then below its typical value at the row's length, in its units there."""
        F = np.asarray(F, dtype=np.float64)
        length, parts = self._length(F), []
        for k, median, scale in zip(self.columns, self.medians_, self.scales_):
            distance = (F[:, k] - np.interp(length, self.centres_, median)) / np.interp(length, self.centres_, scale)
            parts += [np.maximum(distance, 0.0), np.maximum(-distance, 0.0)]
        return parts

    def arrays(self) -> dict[str, np.ndarray]:
        return {"centres": self.centres_, "medians": self.medians_, "scales": self.scales_}

    @classmethod
    def from_arrays(cls, names: list[str], arrays: dict[str, np.ndarray], ratios: tuple[str, ...] = RATIOS,
                    standardised: tuple[str, ...] = STANDARDISED, prefix: str = "ratio") -> "RatioDistances":
        """The model ``arrays`` holds (saved as ``{prefix}_centres``, ...: InputError naming them if unsound)."""
        model = cls(names, ratios, standardised)
        centres, medians, scales = (arrays.get(key, np.zeros(0)) for key in ("centres", "medians", "scales"))
        bins = centres.shape[0] if centres.ndim == 1 else -1
        if not (0 < bins <= LENGTH_BINS and medians.shape == scales.shape == (len(model.columns), bins)
                and all(np.isfinite(a).all() for a in (centres, medians, scales))
                and np.all(np.diff(centres) > 0) and np.all(scales > 0)):
            raise InputError(f"classifier arrays '{prefix}_*' are missing or are not increasing lengths, finite "
                             "medians and positive scales")
        model.centres_, model.medians_, model.scales_ = centres, medians, scales
        return model


def _median(values: np.ndarray, default: float) -> float:
    """The median of the finite ``values``, ``default`` without any."""
    finite = values[np.isfinite(values)]
    return float(np.median(finite)) if finite.size else default
