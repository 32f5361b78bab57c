"""Encoders against naive per-sentence references."""

import numpy as np
import pytest

from kcooc.encoders import (
    FastTextEncoder,
    HashingEncoder,
    StaticVectorsEncoder,
    WordLlamaEncoder,
    build_encoder,
    tokenize,
)
from kcooc.errors import InputError
from kcooc.text import lowered, lowered_rows

from conftest import needs_fasttext, needs_wordllama, read_pairs

MASK = (1 << 64) - 1
BASE = 0x100000001B3


def naive_mix(x):
    x = ((x ^ (x >> 30)) * 0xBF58476D1CE4E5B9) & MASK
    x = ((x ^ (x >> 27)) * 0x94D049BB133111EB) & MASK
    return x ^ (x >> 31)


def naive_hash(text):
    return sum((ord(c) + 1) * pow(BASE, i, 1 << 64) for i, c in enumerate(text)) & MASK


def naive_hashing(sentence, n_features, word_ngrams, char_ngrams):
    """The documented features, one sentence at a time with Python integers."""
    separators = set(" \t\n\r\x0b\x0c!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~")
    chars = [" " if c in separators or 0x80 <= ord(c) <= 0xBF or 0x2000 <= ord(c) <= 0x206F
             or 0x3000 <= ord(c) <= 0x303F else c for c in sentence.lower()]
    tokens = "".join(chars).split()
    vector = np.zeros(n_features)

    def add(h):
        vector[h % n_features] += -1.0 if h >> 63 else 1.0

    for token in tokens:
        for n in char_ngrams:
            for i in range(len(token) - n + 1):
                add(naive_mix((naive_hash(token[i : i + n]) + n) & MASK))
    words = [naive_mix(naive_hash(t)) for t in tokens]
    for h in words if word_ngrams >= 1 else []:
        add(h)
    for n in range(2, word_ngrams + 1):
        for i in range(len(words) - n + 1):
            combined = words[i]
            for w in words[i + 1 : i + n]:
                combined = naive_mix((combined * 0x9E3779B97F4A7C15 + w) & MASK)
            add(naive_mix(combined ^ (n << 56)))
    return vector


SENTENCES = ["Hello, world! How are you?", "", "   ", "日本語の文です。テスト", "a b c d", "Ünïcödé naïve café",
             "tab\tseparated words", "x"]


@pytest.mark.parametrize("word_ngrams,char_ngrams", [(1, []), (2, []), (3, [2, 3]), (0, [1, 2])])
def test_hashing_matches_naive_reference(word_ngrams, char_ngrams):
    x, _ = read_pairs(n=40)
    sentences = SENTENCES + x
    encoder = HashingEncoder(n_features=97, word_ngrams=word_ngrams, char_ngrams=char_ngrams)
    matrix = encoder.encode(sentences)
    expected = np.stack([naive_hashing(s, 97, word_ngrams, char_ngrams) for s in sentences])
    np.testing.assert_array_equal(matrix.toarray(), expected)
    assert matrix.has_canonical_format  # sorted, distinct columns per row (what the PHSIC kernels walk)


def test_hashing_matches_naive_reference_on_real_non_ascii_and_bad_lines():
    x, y = read_pairs(n=60)  # English and Japanese
    odd = ["emoji 😀😀 x😀y", "ＡＢＣ全角 ｶﾀｶﾅ", "NUL\x00inside", "replaced \ufffd\ufffd bytes", "İstanbul ǅ ß Σίσυφος",
           "ab" * 4000, "\x85next\u00a0line", "carriage\rreturn"]
    sentences = x + y + odd
    # widths up to 4096 add into a dense row, wider ones sort each row's columns
    for word_ngrams, char_ngrams, dim in ((2, [], 1024), (0, [1, 2], 1024), (3, [2, 5], 7), (2, [1, 3], 5000),
                                          (1, [2], 1 << 13)):
        matrix = HashingEncoder(n_features=dim, word_ngrams=word_ngrams, char_ngrams=char_ngrams).encode(sentences)
        expected = np.stack([naive_hashing(s, dim, word_ngrams, char_ngrams) for s in sentences])
        np.testing.assert_array_equal(matrix.toarray(), expected)
        assert matrix.has_canonical_format and matrix.indices.dtype == np.int32


def test_hashing_vector_does_not_depend_on_the_batch():
    x, y = read_pairs(n=100)
    encoder = HashingEncoder(n_features=512, char_ngrams=[3])
    together = encoder.encode(x + y).toarray()
    alone = np.vstack([encoder.encode([s]).toarray() for s in x[:10]])
    np.testing.assert_array_equal(together[:10], alone)
    assert encoder.encode([""]).nnz == 0


@pytest.mark.parametrize("lowercase", [True, False])
def test_hashing_reads_a_slice_of_lowered_code_points_as_the_texts_themselves(lowercase):
    # the filter's screen pass lowers a task's sides once and hands each block's slice to the encoder
    x, y = read_pairs(n=50)
    sentences = SENTENCES + x + y + ["İstanbul ǅ ß Σίσυφος", "\x85next\u00a0line"]
    text = lowered(sentences)
    for start, stop in ((0, len(sentences)), (3, 17), (len(sentences) - 1, len(sentences)), (5, 5)):
        part = lowered_rows(text, start, stop)
        naive = lowered(sentences[start:stop])
        for got, expected in zip(part[:2], naive[:2]):
            np.testing.assert_array_equal(got, expected)
        assert part[2] == naive[2]
        encoder = HashingEncoder(n_features=211, word_ngrams=2, char_ngrams=[1, 3], lowercase=lowercase)
        got, expected = encoder.encode_lowered(sentences[start:stop], part), encoder.encode(sentences[start:stop])
        assert got.shape == expected.shape == (stop - start, 211)
        np.testing.assert_array_equal(got.toarray(), expected.toarray())


def test_fasttext_sum_and_mean_equal_naive(fasttext_model):
    import fasttext

    raw = fasttext.load_model(fasttext_model)
    x, _ = read_pairs(n=50)
    sentences = x + ["", "!!!", "zzqxj unseenword"]
    for pooling in ("sum", "mean"):
        encoder = FastTextEncoder(fasttext_model, pooling=pooling)
        expected = []
        for s in sentences:
            words = tokenize(s, True, True)
            vectors = [raw.get_word_vector(w) for w in words] or [np.zeros(16, dtype=np.float32)]
            expected.append(np.sum(vectors, axis=0) / (max(len(words), 1) if pooling == "mean" else 1))
        np.testing.assert_allclose(encoder.encode(sentences), np.stack(expected), rtol=1e-5, atol=1e-6)
        np.testing.assert_allclose(encoder.encode(sentences[::-1])[::-1], np.stack(expected), rtol=1e-5, atol=1e-6)


def test_fasttext_cache_growth_and_reset(fasttext_model):
    x, _ = read_pairs()
    encoder = FastTextEncoder(fasttext_model)
    reference = encoder.encode(x[:20])
    encoder.max_cache = 50
    for start in range(0, 400, 40):
        encoder.encode(x[start : start + 40])
    np.testing.assert_allclose(encoder.encode(x[:20]), reference, rtol=1e-6)


def test_static_vectors_known_unknown_and_malformed(tmp_path):
    path = tmp_path / "v.vec"
    path.write_text("3 2\nhello 1 0\nworld 0 1\nthere 2 2\n", encoding="utf-8")
    for pooling, expected in (("sum", [[1, 1], [0, 0], [3, 2]]), ("mean", [[0.5, 0.5], [0, 0], [1.5, 1]])):
        encoder = StaticVectorsEncoder(str(path), pooling=pooling)
        np.testing.assert_allclose(encoder.encode(["Hello world!", "unknown words", "hello there unk"]), expected)
    bad = tmp_path / "bad.vec"
    bad.write_text("2 2\nhello 1\n", encoding="utf-8")
    with pytest.raises(InputError, match="bad.vec:2: expected a word and 2 numbers"):
        StaticVectorsEncoder(str(bad))


@needs_wordllama
def test_wordllama_matches_the_library():
    import pathlib

    import wordllama

    x, _ = read_pairs(n=30)
    reference = wordllama.WordLlama.load(cache_dir=pathlib.Path(wordllama.__file__).parent, disable_download=True)
    np.testing.assert_allclose(WordLlamaEncoder().encode(x + [""]), reference.embed(x + [""], norm=False), rtol=1e-6)


def test_build_encoder_errors(tmp_path):
    with pytest.raises(InputError, match="fastText model not found.*`make data-parallel` .en-100/ja-100, filtering"):
        build_encoder({"name": "fasttext", "model": str(tmp_path / "missing.bin")})
    with pytest.raises(InputError, match="needs a model path"):
        build_encoder({"name": "fasttext"})
    with pytest.raises(InputError, match="unknown encoder"):
        build_encoder({"name": "bert"})
    assert build_encoder({"name": "hashing", "n_features": 8, "char_ngrams": [2]}).spec()["char_ngrams"] == [2]


@needs_fasttext
def test_a_file_that_is_not_a_fasttext_model_is_an_input_error(tmp_path):
    not_a_model = tmp_path / "x.bin"
    not_a_model.write_bytes(b"garbage")
    with pytest.raises(InputError, match="not a fastText .bin model"):
        build_encoder({"name": "fasttext", "model": str(not_a_model)})
