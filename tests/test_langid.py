"""kcooc.langid against py3langid's own per-line classify/rank (the reference implementation of the
same naive-Bayes model) on real lines, batch against one-by-one, odd and huge input, code checks."""

import pickle

import numpy as np
import pytest
from py3langid import langid as py3langid

from kcooc.errors import InputError
from kcooc.langid import BLOCK_TEXTS, LanguageIdentifier, check_language_code

from conftest import DATA


def real_lines():
    """Real lines: Debian description segments in 19 languages, then 300 en-ja pairs of
    descriptions (long paragraphs among them) and UI strings."""
    with open(f"{DATA}/langid-lines.tsv", encoding="utf-8") as f:
        lines = [row.rstrip("\n").split("\t")[2] for row in f]
    with open(f"{DATA}/en-ja.tsv", encoding="utf-8") as f:
        rows = [row.rstrip("\n").split("\t") for row in f]
    return lines + [text for row in rows[::4][:300] for text in row[:2]]


@pytest.fixture(scope="module")
def lid():
    return LanguageIdentifier()


@pytest.fixture(scope="module")
def reference():
    """py3langid as its users call it: one line at a time, raw scores (uint32 counts: no overflow)."""
    model = py3langid.LanguageIdentifier.from_pickled_model(py3langid.MODEL_FILE)

    def scores(text):
        return model.nb_classprobs(model.instance2fv(text, datatype="uint32")).astype(np.float64)

    return model, scores


def log_softmax(scores):
    top = scores.max()
    return scores - top - np.log(np.exp(scores - top).sum())


def test_languages_are_the_models(lid, reference):
    model, _ = reference
    assert lid.languages == tuple(model.nb_classes)
    assert len(lid.languages) == 97 and all(len(code) == 2 for code in lid.languages)


def test_equals_py3langid_line_by_line(lid, reference):
    model, scores = reference
    texts = real_lines()
    ours = lid.log_probabilities(texts)
    assert ours.shape == (len(texts), 97) and ours.dtype == np.float32
    predicted = lid.predict(texts)
    assert list(predicted) == [py3langid.classify(text)[0] for text in texts]
    for text, row in zip(texts, ours):
        raw = scores(text)
        # float32 sums of ~1 term per byte: the error grows with the score's magnitude
        np.testing.assert_allclose(row, log_softmax(raw), rtol=0, atol=2e-5 * np.abs(raw).max() + 1e-4)
    np.testing.assert_allclose(np.exp(ours.astype(np.float64)).sum(axis=1), 1, rtol=1e-5)
    assert set(predicted) >= {"en", "ja", "de", "fr", "ru", "zh", "ko", "pl", "nl"}


def test_probability_is_the_column(lid):
    texts = real_lines()[:300]
    column = lid.languages.index("de")
    probability = lid.probability(texts, "de")
    assert probability.dtype == np.float64 and probability.shape == (300,)
    expected = np.exp(lid.log_probabilities(texts)[:, column].astype(np.float64))
    np.testing.assert_allclose(probability, expected, rtol=1e-6)


def test_batch_equals_one_by_one_and_blocks(lid):
    texts = real_lines()
    batch = lid.log_probabilities(texts[:200])
    single = np.concatenate([lid.log_probabilities([text]) for text in texts[:200]])
    np.testing.assert_array_equal(batch, single)
    many = (texts * (BLOCK_TEXTS // len(texts) + 2))[: BLOCK_TEXTS + 7]  # crosses a block boundary
    np.testing.assert_array_equal(lid.log_probabilities(many)[-200:], lid.log_probabilities(many[-200:]))
    assert list(lid.predict(np.array(texts[:50]))) == list(lid.predict(texts[:50]))  # numpy arrays of str too


def test_featureless_text_gets_the_prior(lid, reference):
    model, scores = reference
    prior = log_softmax(model.nb_pc.astype(np.float64))
    empty = lid.log_probabilities(["", "", "0"])
    np.testing.assert_allclose(empty, np.tile(prior, (3, 1)), atol=1e-5)
    assert list(lid.predict(["", "0"])) == [py3langid.classify("")[0]] * 2 == ["en", "en"]
    assert lid.log_probabilities([]).shape == (0, 97) and lid.predict([]).shape == (0,)
    assert lid.probability([], "en").shape == (0,)


def test_odd_and_huge_input(lid, reference):
    model, scores = reference
    odd = ["\ud800 lone surrogate", "\udfff", "emoji 😀 ok", "\x00\x07\x85", "a\u00a0b", "ＡＢＣ全角", "\ufeffBOM"]
    for text, row in zip(odd, lid.log_probabilities(odd)):
        np.testing.assert_allclose(row, log_softmax(scores(text)), atol=1e-3)
    # a feature seen 100,000 times overflows py3langid's default uint16 counts (it raises); not ours
    huge = " ".join(real_lines()[:2000:2]) * 3 + "x" * 100_000
    raw = scores(huge)
    np.testing.assert_allclose(lid.log_probabilities([huge])[0], log_softmax(raw), atol=2e-5 * np.abs(raw).max())
    assert lid.predict([huge, "Dies ist ein ganz normaler deutscher Satz."])[1] == "de"


def test_pickle_is_cheap_and_rebuilds(lid):
    data = pickle.dumps(lid)
    assert len(data) < 200
    copy = pickle.loads(data)
    assert copy.languages == lid.languages
    texts = real_lines()[:20]
    np.testing.assert_array_equal(copy.log_probabilities(texts), lid.log_probabilities(texts))


def test_check_language_code(lid):
    assert check_language_code("de") == "de"
    for bad in ["xx", "DE", "deu", ""]:
        with pytest.raises(InputError) as error:
            check_language_code(bad)
        message = str(error.value)
        assert repr(bad) in message and ", ".join(sorted(lid.languages)) in message
    with pytest.raises(InputError):
        lid.probability(["text"], "xx")
