"""CA word vectors against naive references: tables vs a Python count (Eq. 62-64), the delayed SVD vs
a dense SVD of the same CA matrix, total inertia = chi^2/n, Fisher's data; `kcooc ca embed/eval`."""

import json
import os

import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import given, settings
from hypothesis import strategies as st

from conftest import TRAIN, run
from kcooc.ca.counting import Vocabulary, contingency_table, offset_tables
from kcooc.ca.model import CorrespondenceAnalysis, word_similarity
from kcooc.ca.svd import CAOperator, randomized_svd, residuals
from kcooc.encoders import read_word2vec_text

FISHER = np.array([[326, 38, 241, 110, 3], [688, 116, 584, 188, 4], [343, 84, 909, 412, 26], [98, 48, 403, 681, 85]])


def naive_offsets(ids, V, window):
    T = np.zeros((window + 1, V, V), dtype=np.int64)
    for a in range(len(ids)):
        for k in range(window + 1):
            if a + k + 1 < len(ids):
                T[k, ids[a], ids[a + k + 1]] += 1
    return T


def test_the_papers_example_sentence():
    """'this is this is this is this.': #(this *^k is) by the definition (w_j k words after w_i).

    The paper prints 4, 0, 3 for k = 0, 1, 2; counting its own definition on its own sentence gives
    3, 0, 2 (this-is adjacent at word pairs 1-2, 3-4, 5-6; three words apart at 1-4 and 3-6).
    """
    vocabulary = Vocabulary.build([["this", "is", "this", "is", "this", "is", "this"]], min_count=1)
    this, is_ = vocabulary.words.index("this"), vocabulary.words.index("is")
    tables = offset_tables([vocabulary.ids("this is this is this is this".split())], 2, window=2)
    assert [int(T[this, is_]) for T in tables] == [3, 0, 2]
    assert [int(T[is_, this]) for T in tables] == [3, 0, 2]


@settings(max_examples=40, deadline=None)
@given(st.lists(st.integers(0, 5), min_size=0, max_size=60), st.lists(st.integers(1, 15), min_size=1, max_size=6),
       st.integers(0, 4))
def test_tables_equal_a_naive_count_however_the_stream_is_cut(ids, cuts, window):
    ids = np.array(ids, dtype=np.int64)
    chunks, start = [], 0
    for size in cuts + [len(ids)]:
        chunks.append(ids[start : start + size])
        start += size
    tables = offset_tables(chunks, 6, window)
    reference = naive_offsets(ids, 6, window)
    for k in range(window + 1):
        np.testing.assert_array_equal(tables[k].toarray(), reference[k])
    flat = contingency_table(tables, "flat").toarray()
    np.testing.assert_array_equal(flat, reference.sum(axis=0))
    np.testing.assert_array_equal(contingency_table(tables, "skip").toarray(), flat + flat.T)
    summed = offset_tables(chunks, 6, window, separate=False)
    assert len(summed) == 1 and (contingency_table(summed, "flat").toarray() == flat).all()


@pytest.mark.parametrize("threshold, scale", [("expected", 1), ("literal", 2)])
def test_tail_cut_keeps_offset_counts_above_independence(threshold, scale):
    rng = np.random.default_rng(0)
    ids = rng.integers(0, 8, size=400)
    ids[::7] = 0  # word 0 often follows itself at distance 7 = k 6
    counts = np.bincount(ids, minlength=8)
    tables = offset_tables([ids], 8, 6)
    reference = naive_offsets(ids, 8, 6)
    n = counts.sum()
    expected = np.outer(counts, counts) / n**scale
    cut = sum(np.where(reference[k] > expected, reference[k], 0) for k in range(7))
    np.testing.assert_array_equal(contingency_table(tables, "cut", counts, threshold).toarray(), cut)


def random_table(rows=40, cols=30, density=0.2, seed=0):
    rng = np.random.default_rng(seed)
    N = sp.random(rows, cols, density=density, random_state=seed, data_rvs=lambda k: rng.integers(1, 20, k)).tocsr()
    return N + sp.csr_matrix((np.ones(rows), (np.arange(rows), np.arange(rows) % cols)), shape=(rows, cols))


def dense_ca(N):
    P = N / N.sum()
    r, c = P.sum(axis=1), P.sum(axis=0)
    return (P - np.outer(r, c)) / np.sqrt(np.outer(r, c))


def test_delayed_operator_is_the_dense_ca_matrix_and_its_inertia_is_chi2_over_n():
    N = random_table()
    op = CAOperator(N)
    dense = N.toarray().astype(float)
    np.testing.assert_allclose(op.dense(), dense_ca(dense), atol=1e-12)
    np.testing.assert_allclose(op.rmatmat(np.eye(40)), dense_ca(dense).T, atol=1e-12)
    expected = np.outer(dense.sum(1), dense.sum(0)) / dense.sum()
    chi2 = ((dense - expected) ** 2 / expected).sum()
    assert op.total_inertia() == pytest.approx(chi2 / dense.sum())
    assert (np.linalg.svd(op.dense(), compute_uv=False) ** 2).sum() == pytest.approx(chi2 / dense.sum())


@pytest.mark.parametrize("k", [3, 10])
def test_delayed_randomized_svd_equals_the_dense_svd(k):
    N = random_table(seed=k)
    op = CAOperator(N)
    U_dense, s_dense, Vt_dense = np.linalg.svd(op.dense())
    U, s, Vt = randomized_svd(op, k, oversample=30 - k, power_iterations=2)  # a sketch as wide as the table: exact
    np.testing.assert_allclose(s, s_dense[:k], rtol=1e-6)
    # same subspaces: the cosines of the principal angles are all 1
    np.testing.assert_allclose(np.linalg.svd(U_dense[:, :k].T @ U, compute_uv=False), 1, atol=1e-5)
    np.testing.assert_allclose(np.linalg.svd(Vt_dense[:k] @ Vt.T, compute_uv=False), 1, atol=1e-5)
    assert residuals(op, U, s, Vt).max() < 1e-6


def test_fishers_data_gives_the_known_principal_inertias():
    model = CorrespondenceAnalysis(dims=3, weight=1.0).fit(sp.csr_matrix(FISHER))
    np.testing.assert_allclose(model.singular_values_**2, [0.1992, 0.0301, 0.0009], atol=5e-5)
    dense = np.linalg.svd(dense_ca(FISHER.astype(float)), compute_uv=False)[:3]
    np.testing.assert_allclose(model.singular_values_, dense, rtol=1e-9)
    assert model.total_inertia_ == pytest.approx(0.2302, abs=1e-4)


def test_word_similarity_is_spearman_over_known_pairs():
    words = ["cat", "dog", "car", "truck"]
    vectors = np.array([[1, 0.1], [1, 0.3], [0, 1], [0.2, 1]])
    pairs = [("cat", "dog", 9.0), ("car", "truck", 8.0), ("cat", "car", 1.0), ("dog", "truck", 2.0),
             ("cat", "unicorn", 5.0)]
    result = word_similarity(words, vectors, pairs)
    assert result["oov_ratio"] == pytest.approx(0.2) and result["pairs"] == 5
    assert result["spearman"] == pytest.approx(1.0)


def test_cli_embeds_real_text_exports_word2vec_and_evaluates(tmp_path):
    text = open(TRAIN, encoding="utf-8").read().lower().replace("\t", " ")
    corpus = tmp_path / "corpus.txt"
    corpus.write_text(text, encoding="utf-8")
    args = ["ca", "embed", "--corpus", corpus, "--dims", "20", "--window", "3", "--min-count", "3"]
    run(*args, "-o", tmp_path / "v.npz", "--export-w2v", tmp_path / "v.txt", "--summary", tmp_path / "s.json")
    summary = json.loads((tmp_path / "s.json").read_text())
    # a spot check of the top singular pairs (singular values here are 0.3-0.6)
    assert summary["vocabulary"] > 500 and summary["residuals"][0] < 1e-3 and max(summary["residuals"]) < 0.05
    words, vectors = read_word2vec_text(str(tmp_path / "v.txt"))
    assert len(words) == summary["vocabulary"] and vectors.shape[1] == 20
    # stdin gives the same vectors, byte for byte
    run("ca", "embed", "--corpus", "-", "--dims", "20", "--window", "3", "--min-count", "3", "-o", tmp_path / "w.npz",
        stdin=text)
    assert (tmp_path / "v.npz").read_bytes() == (tmp_path / "w.npz").read_bytes()
    (tmp_path / "pairs.txt").write_text("# a tiny benchmark\nyes yeah 9\ngood great 8\ngood no 1\nyes dog 0.5\n")
    out = run("ca", "eval", "-v", tmp_path / "v.npz", "-b", tmp_path / "pairs.txt").stdout.splitlines()
    assert out[0] == "benchmark\tspearman\tpairs\toov_ratio" and out[1].split("\t")[2] == "4"
    assert run("ca", "eval", "-v", tmp_path / "v.txt", "-b", tmp_path / "pairs.txt").stdout.splitlines()[1][:-6] \
        == out[1][:-6]


def test_cli_bad_corpus_is_one_line_exit_2(tmp_path):
    bad = tmp_path / "bad.txt"
    bad.write_bytes(b"fine words here \xff\xfe broken")
    result = run("ca", "embed", "--corpus", bad, "-o", tmp_path / "v.npz", "--min-count", "1", check=False)
    assert result.returncode == 2 and "invalid UTF-8" in result.stderr and "Traceback" not in result.stderr
    assert not (tmp_path / "v.npz").exists()
    empty = tmp_path / "empty.txt"
    empty.write_text("a b c")
    result = run("ca", "embed", "--corpus", empty, "-o", tmp_path / "v.npz", check=False)
    assert result.returncode == 2 and "no word occurs at least 5 times" in result.stderr
    assert os.listdir(tmp_path) == ["bad.txt", "empty.txt"] or sorted(os.listdir(tmp_path)) == ["bad.txt", "empty.txt"]


def test_sca_operator_equals_definition_5_and_is_lca_without_supervision():
    from kcooc.ca.sca import sca_operator, supervision_matrix

    N = random_table(rows=12, cols=12, density=0.4, seed=3)
    S = supervision_matrix([(0, 3, 8.0), (2, 5, 4.0), (3, 7, 2.0)], 12, weight=0.5)
    dense_N, Gamma = N.toarray().astype(float), np.ones((12, 12)) + S.toarray()
    M = dense_N * (Gamma @ dense_N @ Gamma) - (Gamma @ dense_N) * (dense_N @ Gamma)
    M2 = (Gamma @ dense_N) * (dense_N @ Gamma)
    r, c = M2.sum(axis=1), M2.sum(axis=0)
    reference = M / np.sqrt(np.outer(r, c))
    op = sca_operator(N, S)
    np.testing.assert_allclose(op.dense(), reference, atol=1e-12)
    np.testing.assert_allclose(op.rmatmat(np.eye(12)), reference.T, atol=1e-12)
    np.testing.assert_allclose(sca_operator(N, sp.csr_matrix((12, 12))).dense(), CAOperator(N).dense(), atol=1e-12)


def test_biplot_coordinates_are_the_dense_principal_coordinates(tmp_path):
    from kcooc.ca.plot import principal_coordinates

    F, G, inertia = principal_coordinates(FISHER)
    P = FISHER / FISHER.sum()
    r, c = P.sum(axis=1), P.sum(axis=0)
    U, s, Vt = np.linalg.svd(dense_ca(FISHER.astype(float)))
    F_dense, G_dense = U[:, :2] * s[:2] / np.sqrt(r)[:, None], Vt[:2].T * s[:2] / np.sqrt(c)[:, None]
    signs = np.sign(F[0] / F_dense[0])  # singular vectors are defined up to sign
    np.testing.assert_allclose(F, F_dense * signs, atol=1e-10)
    np.testing.assert_allclose(G, G_dense * signs, atol=1e-10)
    result = run("ca", "plot", "-o", tmp_path / "fisher.png")
    assert result.stdout.strip() == "principal inertias: 0.1992, 0.0301"
    assert (tmp_path / "fisher.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    (tmp_path / "t.tsv").write_text("\tfair\tdark\nblue\t10\t2\ndark\t1\tx\n")
    bad = run("ca", "plot", "--table", tmp_path / "t.tsv", "-o", tmp_path / "t.png", check=False)
    assert bad.returncode == 2 and "counts must be numbers" in bad.stderr and not (tmp_path / "t.png").exists()


def test_cli_sca_uses_the_supervised_pairs(tmp_path):
    text = open(TRAIN, encoding="utf-8").read().lower().replace("\t", " ")
    (tmp_path / "corpus.txt").write_text(text, encoding="utf-8")
    (tmp_path / "pairs.txt").write_text("yes yeah 9\ngood great 8\nlike love 7\n")
    common = ["ca", "embed", "--corpus", tmp_path / "corpus.txt", "--dims", "10", "--window", "2", "--min-count", "3"]
    run(*common, "-o", tmp_path / "lca.npz")
    run(*common, "--supervision", tmp_path / "pairs.txt", "-o", tmp_path / "sca.npz")
    from kcooc import artifact

    header, sca = artifact.load(str(tmp_path / "sca.npz"), "ca-vectors")
    _, lca = artifact.load(str(tmp_path / "lca.npz"), "ca-vectors")
    assert header["config"]["supervision"].endswith("pairs.txt")
    assert not np.allclose(sca["singular_values"], lca["singular_values"])
