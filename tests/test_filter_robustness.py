"""The default learned `filter-parallel` run never fails on a valid corpus, however degenerate: made of
duplicates, of a handful of distinct pairs or of one, with identical sides, in one language only, or
smaller than the training sample. It filters (exit 0, the kept lines a sub-multiset of the input in
input order) or stops with exit 2 and a one-line reason; never exit 1, never a traceback. The examples run
the command in this process (conftest.invoke: the same code, without a new interpreter's start-up for
each of them), where an exception that escapes it is a failure of its own, and so is a RuntimeWarning,
which would reach the user's stderr."""

import os
import pathlib
import tempfile
import warnings

import numpy as np
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from conftest import DATA, invoke

CONFIG = os.path.join(os.path.dirname(__file__), "..", "configs", "filter-learned.yaml")
with open(os.path.join(DATA, "en-ja.tsv"), encoding="utf-8") as f:
    PAIRS = [tuple(line.split("\t")[:2]) for line in f.read().splitlines()]


def shaped(pairs: list[tuple[str, str]], shape: str) -> list[tuple[str, str]]:
    if shape == "identical_sides":
        return [(s, s) for s, _ in pairs]
    if shape == "source_language_only":  # the English side of another pair as the target
        return [(s, pairs[(i + 1) % len(pairs)][0]) for i, (s, _) in enumerate(pairs)]
    if shape == "target_language_only":
        return [(pairs[(i + 1) % len(pairs)][1], t) for i, (_, t) in enumerate(pairs)]
    if shape == "shared_sources":  # every source twice, with its own target and with the next pair's
        return [pair for i, (s, t) in enumerate(pairs) for pair in ((s, t), (s, pairs[(i + 1) % len(pairs)][1]))]
    return pairs


corpora = st.builds(
    lambda picks, repeats, shape, interleave: (picks, repeats, shape, interleave),
    picks=st.lists(st.integers(0, len(PAIRS) - 1), min_size=1, max_size=40, unique=True)
    | st.just(list(range(0, len(PAIRS), 3))),  # a few hundred distinct pairs
    repeats=st.integers(1, 30),
    shape=st.sampled_from(["as_is", "as_is", "identical_sides", "source_language_only", "target_language_only",
                           "shared_sources"]),
    interleave=st.booleans(),  # copies one after another (two dumps merged) or each pair's copies together
)


@settings(max_examples=25, deadline=None, derandomize=True,
          suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(corpus=corpora, sample=st.sampled_from([None, "10", "37"]))
def test_the_default_run_filters_or_says_why(tmp_path, corpus, sample):
    tmp_path = pathlib.Path(tempfile.mkdtemp(dir=tmp_path))  # hypothesis runs every example in one tmp_path
    picks, repeats, shape, interleave = corpus
    pairs = shaped([PAIRS[i] for i in picks], shape)
    lines = [f"{s}\t{t}" for s, t in pairs]
    lines = lines * repeats if interleave else [line for line in lines for _ in range(repeats)]
    path = tmp_path / "corpus.tsv"
    path.write_text("".join(line + "\n" for line in lines), encoding="utf-8")
    out = tmp_path / "kept.tsv"
    config = CONFIG
    if sample is not None:  # a training sample smaller (or far smaller) than the corpus
        config = tmp_path / "config.yaml"
        config.write_text(open(CONFIG, encoding="utf-8").read().replace("sample: 20000", f"sample: {sample}"))
    with warnings.catch_warnings():  # a numpy warning would reach the user's stderr: here it is an error
        warnings.simplefilter("error", RuntimeWarning)
        result = invoke("filter-parallel", "-c", config, "-i", path, "-o", out, "-q")  # raises what escapes it
    assert result.returncode in (0, 2), result.stderr
    assert "Traceback" not in result.stderr
    if result.returncode == 2:
        message = result.stderr.strip()
        assert message.startswith("kcooc filter-parallel: error: ") and "\n" not in message
        assert not out.exists()
    else:
        kept = out.read_text(encoding="utf-8").splitlines()
        position = iter(range(len(lines)))
        assert all(any(lines[i] == line for i in position) for line in kept)  # a subsequence of the input


def test_near_miss_partners_when_every_source_repeats():
    """Every source shared by two pairs: all find a partner at the first signature (this crashed)."""
    from kcooc.filtering.noise import similar_partners

    src = [s for s, _ in PAIRS[:50] for _ in range(2)]
    tgt = [t for _, t in PAIRS[:100]]
    fallback = (np.arange(100) + 1) % 100
    partner = similar_partners(src, tgt, fallback, seed=0)
    assert partner.shape == (100,) and np.all(partner != np.arange(100))
    same_source = np.array([src[p] == s for p, s in zip(partner, src)])
    assert np.array_equal(partner[same_source], fallback[same_source])  # a partner never has the same source
