"""The length ratios read at the pair's length (kcooc/filtering/ratios.py) against a naive transcription of
its definition, and on real pairs."""

import statistics

import numpy as np
import pytest

from kcooc.errors import KcoocError
from kcooc.filtering.ratios import LENGTH_BINS, SCALE_FLOOR, SHARE_ROWS, RatioDistances


def naive_distances(sample, rows, names):
    """The module docstring, one pair at a time: shares of the sample ordered by mean log length, each
    share's median length, median ratio and median absolute deviation, interpolated between the shares."""
    col = {name: k for k, name in enumerate(names)}
    length = [(r[col["src_chars"]] + r[col["tgt_chars"]]) / 2 for r in sample]
    order = sorted(range(len(sample)), key=lambda i: length[i])
    n = len(order)
    bins = min(LENGTH_BINS, n // SHARE_ROWS)
    sizes = [n // bins + (1 if b < n % bins else 0) for b in range(bins)]
    starts = [sum(sizes[:b]) for b in range(bins)]
    shares = [order[starts[b]:starts[b] + sizes[b]] for b in range(bins)]
    centres = [statistics.median(length[i] for i in share) for share in shares]

    def at(x, values):  # linear between the centres, constant beyond them
        if x <= centres[0]:
            return values[0]
        for b in range(1, len(centres)):
            if x <= centres[b]:
                t = (x - centres[b - 1]) / (centres[b] - centres[b - 1])
                return values[b - 1] + t * (values[b] - values[b - 1])
        return values[-1]

    out = []
    for r in rows:
        x = (r[col["src_chars"]] + r[col["tgt_chars"]]) / 2
        row = []
        for name in ("char_ratio", "word_ratio"):
            ratios = [s[col[name]] for s in sample]
            median = statistics.median(ratios)
            if name == "char_ratio":
                spread = statistics.median(abs(v - median) for v in ratios)
                medians = [statistics.median(ratios[i] for i in share) for share in shares]
                scales = [max(statistics.median(abs(ratios[i] - m) for i in share), SCALE_FLOOR * spread)
                          for share, m in zip(shares, medians)]
                d = (r[col[name]] - at(x, medians)) / at(x, scales)
            else:
                d = r[col[name]] - median
            row += [max(d, 0.0), max(-d, 0.0)]
        out.append(row)
    return np.array(out)


def sample_pairs(rng, n):
    """Log lengths and ratios whose spread shrinks with the length, as a corpus's."""
    chars = rng.integers(2, 300, n)
    src = np.log1p(chars)
    ratio = -0.3 + rng.normal(size=n) / np.sqrt(chars) * 2
    words = np.round(rng.normal(0, 0.3, n), 1)
    return np.column_stack([src, src + ratio, ratio, words, rng.normal(size=n)])


def test_the_ratios_are_read_at_the_pairs_length_as_the_definition_says():
    names = ["src_chars", "tgt_chars", "char_ratio", "word_ratio", "phsic"]
    rng = np.random.default_rng(3)
    sample, rows = sample_pairs(rng, 2003), sample_pairs(rng, 60)
    rows[:3, 0] = [0.5, 9.0, np.log1p(50)]  # shorter and longer than every share, and inside
    model = RatioDistances(names).fit(sample)
    assert model.centres_.size == LENGTH_BINS and np.all(np.diff(model.centres_) > 0)
    np.testing.assert_allclose(np.column_stack(model.transform(rows)), naive_distances(sample, rows, names),
                               rtol=1e-12, atol=1e-12)
    # the same distance from the typical ratio weighs more on a long pair than on a short one
    short, long = np.log1p(8.0), np.log1p(250.0)
    typical = [np.interp(x, model.centres_, model.medians_[0]) for x in (short, long)]
    pairs = np.array([[x, x + m - 0.5, m - 0.5, 0.0, 0.0] for x, m in zip((short, long), typical)])
    below = model.transform(pairs)[1]
    assert below[1] > 2 * below[0] > 0
    again = RatioDistances.from_arrays(names, model.arrays())
    assert all(np.array_equal(a, b) for a, b in zip(again.transform(rows), model.transform(rows)))


def test_ratio_distances_without_lengths_or_spread_and_bad_arrays():
    rng = np.random.default_rng(0)
    F = np.column_stack([rng.normal(size=50), np.zeros(50)])  # no lengths: one share; a constant ratio: scale 1
    model = RatioDistances(["char_ratio", "token_ratio"]).fit(F)
    assert model.centres_.shape == (1,) and model.scales_[1].tolist() == [1.0]
    spread = np.median(np.abs(F[:, 0] - np.median(F[:, 0])))
    np.testing.assert_allclose(model.transform(F)[0], np.maximum(F[:, 0] - np.median(F[:, 0]), 0) / spread)
    names = ["src_chars", "tgt_chars", "char_ratio"]
    small = sample_pairs(rng, 2 * SHARE_ROWS + 50)[:, :3]  # a small sample is cut into fewer shares
    assert RatioDistances(names).fit(small).centres_.size == 2
    tied = sample_pairs(rng, 3000)[:, :3]
    tied[:2000, :2] = 2.0  # two thirds of one length: one share, not several of the same median length
    centres = RatioDistances(names).fit(tied).centres_
    assert centres[0] == 2.0 and centres.size == 4 and np.all(np.diff(centres) > 0)
    arrays = model.arrays()
    for bad in ({**arrays, "centres": arrays["centres"][:0]}, {**arrays, "scales": 0 * arrays["scales"]},
                {**arrays, "medians": arrays["medians"][:1]}, {"medians": arrays["medians"]},
                {**arrays, "medians": np.full_like(arrays["medians"], np.nan)},
                {**arrays, "scales": np.full_like(arrays["scales"], np.inf)}):
        with pytest.raises(KcoocError, match="ratio_"):
            RatioDistances.from_arrays(["char_ratio", "token_ratio"], bad)
