"""CA word vectors against naive references: tables vs a Python count (Eq. 62-64), the delayed SVD vs
a dense SVD of the same CA matrix (of N and of N^power), PPMI-SVD vs a dense PPMI, total inertia = chi^2/n,
Fisher's data, the tokenizer; `kcooc ca embed/eval`."""

import json
import os
import warnings

import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import given, settings
from hypothesis import strategies as st

from kcooc.ca.corpus import token_chunks
from kcooc.ca.counting import Vocabulary, contingency_table, offset_tables, tokenize
from kcooc.ca.model import PPMISVD, CorrespondenceAnalysis, vectors_from_artifact, word_similarity
from kcooc.ca.sca import sca_operator, supervision_matrix
from kcooc.ca.svd import CAOperator, randomized_svd
from kcooc.errors import InputError
from kcooc.wordvectors import read_word2vec_text

from conftest import TRAIN, needs_plot, run

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
    U, s, Vt, relative, iterations = randomized_svd(op, k, oversample=30 - k, power_iterations=2)  # exact: full width
    np.testing.assert_allclose(s, s_dense[:k], rtol=1e-6)
    # same subspaces: the cosines of the principal angles are all 1
    np.testing.assert_allclose(np.linalg.svd(U_dense[:, :k].T @ U, compute_uv=False), 1, atol=1e-5)
    np.testing.assert_allclose(np.linalg.svd(Vt_dense[:k] @ Vt.T, compute_uv=False), 1, atol=1e-5)
    assert iterations == 2 and relative_residuals(op, U, s, Vt).max() < 1e-6 and relative.max() < 1e-6


def relative_residuals(op, U, s, Vt):
    """||A v_i - s_i u_i|| / s_i by the definition, one more product with the operator."""
    return np.linalg.norm(op.matmat(Vt.T) - U * s, axis=0) / s


def test_tol_stops_the_power_iterations_once_every_residual_is_below_it():
    N = random_table(rows=300, cols=250, density=0.05, seed=4)
    op = CAOperator(N)
    fixed = randomized_svd(op, 20, oversample=5, power_iterations=3)
    assert fixed.power_iterations == 3
    np.testing.assert_allclose(fixed.relative_residuals, relative_residuals(op, fixed.U, fixed.s, fixed.Vt), rtol=1e-6)
    assert fixed.relative_residuals.max() > 1e-3  # a narrow sketch is not exact after 3 iterations
    seen = []
    tol = randomized_svd(op, 20, oversample=5, power_iterations=200, tol=1e-3, progress=lambda i, r: seen.append(r))
    assert 3 < tol.power_iterations < 200 and len(seen) == tol.power_iterations + 1
    assert tol.relative_residuals.max() <= 1e-3 < seen[-2]  # stopped at the first step below tol
    np.testing.assert_allclose(tol.relative_residuals, relative_residuals(op, tol.U, tol.s, tol.Vt), rtol=1e-6)
    s_dense = np.linalg.svd(op.dense(), compute_uv=False)[:20]
    assert np.abs(tol.s - s_dense).max() < np.abs(fixed.s - s_dense).max()
    capped = randomized_svd(op, 20, oversample=5, power_iterations=1, tol=1e-12)
    assert capped.power_iterations == 1 and capped.relative_residuals.max() > 1e-12


def real_counts(kind: str, words: int = 60, window: int = 2) -> sp.csr_matrix:
    """A word x word table of the most frequent words of real dialogue text (tests/data)."""
    vocabulary = Vocabulary.build(token_chunks(TRAIN, lowercase=True), min_count=1, max_vocab=words)
    tables = offset_tables((vocabulary.ids(t) for t in token_chunks(TRAIN, lowercase=True)), words, window,
                           separate=kind == "cut")
    N = contingency_table(tables, kind, vocabulary.counts)
    assert (N.sum(axis=0) > 0).all() and (N.sum(axis=1) > 0).all()
    return N


def dense_sca(N, S):
    """Def. 5 written out densely: D(r')^-1/2 [N o (Gamma N Gamma) - (Gamma N) o (N Gamma)] D(c')^-1/2."""
    Gamma = np.ones(N.shape) + S
    M = N * (Gamma @ N @ Gamma) - (Gamma @ N) * (N @ Gamma)
    M2 = (Gamma @ N) * (N @ Gamma)
    return M / np.sqrt(np.outer(M2.sum(axis=1), M2.sum(axis=0)))


def assert_same_svd(model, reference, k):
    """Singular values, and vectors up to one sign per component (u and v flip together)."""
    U, s, Vt = np.linalg.svd(reference)
    np.testing.assert_allclose(model.singular_values_, s[:k], rtol=1e-8, atol=1e-12)
    expected = U[:, :k] if model.vectors == "row" else U[:, :k] + Vt[:k].T
    expected = expected * s[:k] ** model.weight
    signs = np.sign(np.einsum("ij,ij->j", model.vectors_, expected))
    np.testing.assert_allclose(model.vectors_, expected * signs, atol=1e-5)


@pytest.mark.parametrize("kind", ["flat", "skip", "cut"])
@pytest.mark.parametrize("power", [1.0, 0.5, 0.25])
def test_ca_of_the_powered_table_equals_a_dense_svd_on_real_counts(kind, power):
    N = real_counts(kind)
    Np = N.toarray() ** power  # the definition: every entry raised, zeros stay zero
    options = dict(oversample=60, power_iterations=2)  # a sketch as wide as the table: exact
    for weight, vectors in ((0.0, "row"), (0.5, "row+column")):
        model = CorrespondenceAnalysis(10, weight, power, vectors=vectors, **options).fit(N)
        assert_same_svd(model, dense_ca(Np), 10)
    assert model.total_inertia_ == pytest.approx((np.linalg.svd(dense_ca(Np), compute_uv=False) ** 2).sum())
    assert N.toarray().max() > 1  # the power changed the table


def test_sca_of_the_powered_table_equals_definition_5_of_n_to_the_power():
    N = real_counts("flat", words=30)
    S = supervision_matrix([(0, 3, 8.0), (2, 5, 4.0), (3, 7, 2.0), (10, 20, 5.0)], 30, weight=1.0)
    model = CorrespondenceAnalysis(8, 0.0, 0.5, oversample=30, power_iterations=2).fit(N, S)
    reference = dense_sca(N.toarray() ** 0.5, S.toarray())
    assert_same_svd(model, reference, 8)
    assert model.total_inertia_ == pytest.approx((np.linalg.svd(reference, compute_uv=False) ** 2).sum(), rel=1e-10)


@pytest.mark.parametrize("vectors", ["row", "row+column"])
def test_ppmi_svd_equals_a_dense_svd_of_smoothed_ppmi(vectors):
    N = real_counts("skip").toarray()
    n, r, c = N.sum(), N.sum(axis=1), N.sum(axis=0)
    with np.errstate(divide="ignore"):
        pmi = np.log((N / n) / np.outer(r / n, c**0.75 / (c**0.75).sum()))
    ppmi = np.maximum(pmi, 0)
    assert (ppmi > 0).sum() < (N > 0).sum()  # some observed pairs are below independence
    model = PPMISVD(10, 0.5, 0.75, vectors=vectors, oversample=50, power_iterations=2).fit(sp.csr_matrix(N))
    assert_same_svd(model, ppmi, 10)
    assert model.total_inertia_ == pytest.approx((ppmi**2).sum())


def test_row_plus_column_vectors_need_a_square_table():
    from kcooc.errors import InputError

    with pytest.raises(InputError, match="square"):
        CorrespondenceAnalysis(3, vectors="row+column").fit(random_table())


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
    with warnings.catch_warnings():  # undefined, not scipy's ConstantInputWarning on stderr
        warnings.simplefilter("error")
        assert word_similarity(words, np.zeros((4, 2)), pairs)["spearman"] is None  # every cosine 0
        assert word_similarity(words, vectors, [(a, b, 3.0) for a, b, _ in pairs])["spearman"] is None


def test_word_vector_files_keep_each_word_once(tmp_path, caplog):
    """A word2vec text file's repeated word keeps its first vector (as gensim reads it), with a warning naming
    the line; an empty word is a bad line; a ca-vectors artifact with a word twice is refused."""
    path = tmp_path / "v.txt"
    path.write_text("4 2\nthe 1 0\nof 0 1\nthe 5 5\nof 2 2\n")
    words, vectors = read_word2vec_text(str(path))
    assert words == ["the", "of"] and vectors.tolist() == [[1, 0], [0, 1]]
    assert f"{path}:4: 2 word(s) given again" in caplog.text
    path.write_text("2 2\n 1 0\nof 0 1\n")
    with pytest.raises(InputError, match=r"v\.txt:2: expected a word and 2 numbers"):
        read_word2vec_text(str(path))
    path.write_text("3 2\nthe 1 0\nthe 5 5\n")  # the header counts the lines, repeats too
    with pytest.raises(InputError, match="promises 3 vectors, found 2"):
        read_word2vec_text(str(path))
    arrays = {"vocab": np.array(["the", "of", "the"]), "counts": np.array([3, 2, 1]), "vectors": np.eye(3)[:, :2],
              "singular_values": np.ones(2)}
    header = {"config": {}}
    with pytest.raises(InputError, match="a word twice"):
        vectors_from_artifact(header, arrays)
    with pytest.raises(InputError, match="a negative number"):
        vectors_from_artifact(header, {**arrays, "vocab": np.array(["the", "of", "a"]), "counts": np.array([3, -2, 1])})


def test_cli_embeds_real_text_exports_word2vec_and_evaluates(tmp_path):
    text = open(TRAIN, encoding="utf-8").read().lower().replace("\t", " ")
    corpus = tmp_path / "corpus.txt"
    corpus.write_text(text, encoding="utf-8")
    args = ["ca", "embed", "-i", corpus, "--dims", "20", "--window", "3", "--min-count", "3"]
    run(*args, "-o", tmp_path / "v.npz", "--export-w2v", tmp_path / "v.txt", "--summary", tmp_path / "s.json")
    summary = json.loads((tmp_path / "s.json").read_text())
    # the top singular pairs converge first; the last of the 20 are still approximate after 4 iterations
    residuals = summary["relative_residuals"]
    assert summary["vocabulary"] > 500 and len(residuals) == 20 and residuals[0] < 1e-3 and max(residuals) < 0.5
    assert summary["convergence"]["power_iterations"] == 4 and summary["convergence"]["converged"] is None
    words, vectors = read_word2vec_text(str(tmp_path / "v.txt"))
    assert len(words) == summary["vocabulary"] and vectors.shape[1] == 20
    # stdin gives the same vectors, byte for byte
    run("ca", "embed", "-i", "-", "--dims", "20", "--window", "3", "--min-count", "3", "-o", tmp_path / "w.npz",
        stdin=text)
    assert (tmp_path / "v.npz").read_bytes() == (tmp_path / "w.npz").read_bytes()
    (tmp_path / "pairs.txt").write_text("# a tiny benchmark\nyes yeah 9\ngood great 8\ngood no 1\nyes dog 0.5\n")
    out = run("ca", "eval", "-i", tmp_path / "v.npz", "-b", tmp_path / "pairs.txt").stdout.splitlines()
    assert out[0] == "benchmark\tspearman\tpairs\toov_ratio" and out[1].split("\t")[2] == "4"
    assert run("ca", "eval", "-i", tmp_path / "v.txt", "-b", tmp_path / "pairs.txt").stdout.splitlines()[1][:-6] \
        == out[1][:-6]


def test_cli_bad_corpus_is_one_line_exit_2(tmp_path):
    bad = tmp_path / "bad.txt"
    bad.write_bytes(b"fine words here \xff\xfe broken")
    result = run("ca", "embed", "-i", bad, "-o", tmp_path / "v.npz", "--min-count", "1", check=False)
    assert result.returncode == 2 and "invalid UTF-8" in result.stderr and "Traceback" not in result.stderr
    assert not (tmp_path / "v.npz").exists()
    empty = tmp_path / "empty.txt"
    empty.write_text("a b c")
    result = run("ca", "embed", "-i", empty, "-o", tmp_path / "v.npz", check=False)
    assert result.returncode == 2 and "no word occurs at least 5 times" in result.stderr
    assert os.listdir(tmp_path) == ["bad.txt", "empty.txt"] or sorted(os.listdir(tmp_path)) == ["bad.txt", "empty.txt"]


def test_sca_operator_equals_definition_5_and_is_lca_without_supervision():
    N = random_table(rows=12, cols=12, density=0.4, seed=3)
    S = supervision_matrix([(0, 3, 8.0), (2, 5, 4.0), (3, 7, 2.0)], 12, weight=0.5)
    reference = dense_sca(N.toarray().astype(float), S.toarray())
    op = sca_operator(N, S)
    np.testing.assert_allclose(op.dense(), reference, atol=1e-12)
    np.testing.assert_allclose(op.rmatmat(np.eye(12)), reference.T, atol=1e-12)
    np.testing.assert_allclose(sca_operator(N, sp.csr_matrix((12, 12))).dense(), CAOperator(N).dense(), atol=1e-12)


def naive_sca(N, S):
    """Def. 5 transcribed densely: Gamma = 11^T + S, M = D(r')^-1/2 [N o (Gamma N Gamma) - (Gamma N) o (N Gamma)]
    D(c')^-1/2, r' and c' the row and column sums of (Gamma N) o (N Gamma); a row or column whose weight is not
    positive is left out (zero), as the delayed operator leaves it."""
    Gamma = np.ones(N.shape) + S
    weights = (Gamma @ N) * (N @ Gamma)
    r, c = weights.sum(axis=1), weights.sum(axis=0)
    scale_r = np.array([1 / np.sqrt(w) if w > 0 else 0.0 for w in r])
    scale_c = np.array([1 / np.sqrt(w) if w > 0 else 0.0 for w in c])
    return scale_r[:, None] * (N * (Gamma @ N @ Gamma) - (Gamma @ N) * (N @ Gamma)) * scale_c[None, :]


@pytest.mark.parametrize("seed, weight, pairs", [(0, 1.0, 8), (1, 5.0, 8), (2, -0.5, 8), (3, 1.0, 30), (4, 0.3, 1)])
def test_sca_total_inertia_is_the_squared_norm_of_the_sca_matrix(seed, weight, pairs):
    """Exact (to 1e-10) on 40 x 40 sparse tables; seed 4's table has an empty row and column, one of them a
    supervised word's. The LCA total stays chi^2/n, and SCA without pairs is LCA."""
    rng = np.random.default_rng(seed)
    N = random_table(rows=40, cols=40, density=0.1, seed=seed).tolil()
    if seed == 4:
        N[7, :], N[:, 30] = 0, 0
    N = N.tocsr()
    supervised = [(7, 12, 3.0)] if seed == 4 else []
    supervised += [(int(a), int(b), float(rng.integers(1, 11))) for a, b in rng.integers(0, 40, (pairs, 2))]
    S = supervision_matrix(supervised, 40, weight)
    reference = naive_sca(N.toarray().astype(float), S.toarray())
    op = sca_operator(N, S)
    np.testing.assert_allclose(op.dense(), reference, atol=1e-12)
    assert op.total_inertia() == pytest.approx((reference**2).sum(), rel=1e-10)
    assert op.total_inertia() == pytest.approx((np.linalg.svd(reference, compute_uv=False) ** 2).sum(), rel=1e-10)
    assert op.total_inertia() != pytest.approx(CAOperator(N).total_inertia(), rel=1e-6)  # the bug: LCA's total
    dense = N.toarray().astype(float)
    kept = (dense.sum(axis=1) > 0)[:, None] & (dense.sum(axis=0) > 0)[None, :]
    expected = np.outer(dense.sum(axis=1), dense.sum(axis=0)) / dense.sum()
    chi2 = ((dense - expected)[kept] ** 2 / expected[kept]).sum()
    assert CAOperator(N).total_inertia() == pytest.approx(chi2 / dense.sum(), rel=1e-10)
    assert sca_operator(N, sp.csr_matrix((40, 40))).total_inertia() == pytest.approx(chi2 / dense.sum(), rel=1e-10)


def test_sca_total_inertia_never_densifies_the_table():
    """4000 words, 50 of them supervised: the total needs far less memory than one dense 4000 x 4000 matrix."""
    import tracemalloc

    N = random_table(rows=4000, cols=4000, density=0.002, seed=5)
    rng = np.random.default_rng(5)
    words = rng.choice(4000, 50, replace=False)
    S = supervision_matrix([(int(a), int(b), 1.0 + i) for i, (a, b) in enumerate(rng.choice(words, (80, 2)))],
                           4000, 1.0)
    op = sca_operator(N, S)
    tracemalloc.start()
    try:
        total = op.total_inertia()
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 4000 * 4000 * 8 / 20 and total > 0
    Z = np.random.default_rng(0).choice([-1.0, 1.0], size=(4000, 200))  # Hutchinson: E ||M z||^2 = ||M||_F^2
    assert (op.matmat(Z) ** 2).sum() / 200 == pytest.approx(total, rel=0.05)


@needs_plot
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
    bad = run("ca", "plot", "-i", tmp_path / "t.tsv", "-o", tmp_path / "t.png", check=False)
    assert bad.returncode == 2 and "counts must be numbers" in bad.stderr and not (tmp_path / "t.png").exists()


@needs_plot
def test_plot_labels_and_title_render_literally():
    """TeX-like labels ($...$, \\frac{) are drawn as the text they are, even under text.usetex: true."""
    import io
    import re

    import matplotlib

    from kcooc.ca.plot import biplot

    out = io.BytesIO()
    with matplotlib.rc_context({"svg.fonttype": "none", "text.usetex": True}):  # svg text as <text> elements
        biplot(["$x^2$", "b"], ["c", r"\frac{1"], np.array([[1.0, 2], [3, 1]]), "map.svg", out, r"$\frac{a}{b}$")
    texts = re.findall(r"<text[^>]*>([^<]*)</text>", out.getvalue().decode())
    assert {"$x^2$", r"\frac{1", r"$\frac{a}{b}$"} <= set(texts), texts


@needs_plot
def test_huge_counts_plot_like_small_ones():
    """CA is invariant to the table's scale: counts near the float limit give the small table's map."""
    from kcooc.ca.plot import check_table, principal_coordinates

    small = np.array([[1.0, 2, 0.5], [3, 1, 2]])
    scaled = check_table(["x", "y"], ["a", "b", "c"], small * 1e307)
    for got, expected in zip(principal_coordinates(scaled), principal_coordinates(small)):
        np.testing.assert_allclose(np.abs(got), np.abs(expected), rtol=1e-9, atol=1e-12)


@needs_plot
def test_plot_format_follows_the_extension_and_runs_repeat_byte_for_byte(tmp_path):
    for name, magic in (("map.pdf", b"%PDF"), ("map.svg", b"<?xml"), ("map.png", b"\x89PNG")):
        run("ca", "plot", "-o", tmp_path / name)
        first = (tmp_path / name).read_bytes()
        run("ca", "plot", "-o", tmp_path / name)
        assert first.startswith(magic) and (tmp_path / name).read_bytes() == first
    bad = run("ca", "plot", "-o", tmp_path / "map.jpg", check=False)
    assert bad.returncode == 2 and ".png, .pdf or .svg" in bad.stderr and not (tmp_path / "map.jpg").exists()


@settings(max_examples=30, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 40), st.integers(0, 40), st.integers(1, 30), st.integers(1, 12)),
                min_size=2, max_size=12), st.data())
def test_separated_labels_overlap_nothing_and_fixed_boxes_stay(boxes, data):
    from kcooc.ca.plot import separate

    boxes = np.array([(x, y, x + w, y + h) for x, y, w, h in boxes], dtype=float)
    fixed = np.array(data.draw(st.lists(st.booleans(), min_size=len(boxes), max_size=len(boxes))))
    # fixed boxes that overlap each other cannot be helped; keep one of each such group
    for i in range(len(boxes)):
        for j in range(i):
            if fixed[i] and fixed[j] and overlaps(boxes[i], boxes[j]):
                fixed[i] = False
    moved = boxes + np.tile(separate(boxes, fixed), 2)
    assert np.array_equal(moved[fixed], boxes[fixed])
    assert not any(overlaps(moved[i], moved[j]) for i in range(len(boxes)) for j in range(i))


def overlaps(a, b) -> bool:
    """Two (x0, y0, x1, y1) boxes share an area (touching edges do not count)."""
    return a[0] < b[2] and b[0] < a[2] and a[1] < b[3] and b[1] < a[3]


def test_cli_sca_uses_the_supervised_pairs(tmp_path):
    text = open(TRAIN, encoding="utf-8").read().lower().replace("\t", " ")
    (tmp_path / "corpus.txt").write_text(text, encoding="utf-8")
    (tmp_path / "pairs.txt").write_text("yes yeah 9\ngood great 8\nlike love 7\n")
    common = ["ca", "embed", "-i", tmp_path / "corpus.txt", "--dims", "10", "--window", "2", "--min-count", "3"]
    run(*common, "-o", tmp_path / "lca.npz")
    run(*common, "--supervision", tmp_path / "pairs.txt", "-o", tmp_path / "sca.npz")
    from kcooc import artifact

    header, sca = artifact.load(str(tmp_path / "sca.npz"), "ca-vectors")
    _, lca = artifact.load(str(tmp_path / "lca.npz"), "ca-vectors")
    assert header["config"]["supervision"].endswith("pairs.txt")
    assert not np.allclose(sca["singular_values"], lca["singular_values"])


def test_tokenize_lowercases_and_splits_punctuation_off_words():
    assert tokenize("Don't STOP-loss, Mr. Smith!") == ["don't", "stop-loss", ",", "mr", ".", "smith", "!"]
    assert tokenize("Don't STOP-loss, Mr. Smith!", lowercase=False) == ["Don't", "STOP-loss,", "Mr.", "Smith!"]
    assert tokenize("already like text eight") == ["already", "like", "text", "eight"]


def test_cli_lowercases_raw_text_by_default(tmp_path):
    from kcooc import artifact

    raw = open(TRAIN, encoding="utf-8").read()
    assert any(c.isupper() for c in raw) and "," in raw
    (tmp_path / "raw.txt").write_text(raw, encoding="utf-8")
    common = ["ca", "embed", "-i", tmp_path / "raw.txt", "--dims", "5", "--window", "2", "-q"]
    run(*common, "-o", tmp_path / "low.npz")
    run(*common, "--no-lowercase", "-o", tmp_path / "raw.npz")
    low = artifact.load(str(tmp_path / "low.npz"), "ca-vectors")[1]["vocab"].tolist()
    kept = artifact.load(str(tmp_path / "raw.npz"), "ca-vectors")[1]["vocab"].tolist()
    assert all(w == w.lower() for w in low) and "," in low and "?" in low
    assert not any(w.endswith(",") for w in low if w != ",")
    assert any(w != w.lower() for w in kept) and any(w.endswith(",") for w in kept)
    assert len(set(low) & {"hello", "yeah", "good"}) == 3


def test_a_huge_word_stays_out_of_the_vocabulary_so_the_model_stays_small(tmp_path):
    """The saved vocabulary is a fixed-width text array: one legal 900,000-character word made every
    entry that wide (a 3.5 GB model from a 1.4 MB corpus). Words over MAX_WORD_CHARS are left out."""
    from kcooc import artifact
    from kcooc.ca.counting import MAX_WORD_CHARS

    corpus = ("the cat sat on the mat and the dog sat on the log\n" * 5 + "a" * 20_000 + " " + "b-" * 5_000
              + "\n" + "x" * MAX_WORD_CHARS + "\n")
    (tmp_path / "corpus.txt").write_text(corpus)
    result = run("ca", "embed", "-i", tmp_path / "corpus.txt", "--dims", "2", "--min-count", "1", "-o",
                 tmp_path / "v.npz", "-q")
    assert "2 distinct tokens longer than 100 characters left out of the vocabulary" in result.stderr
    vocab = artifact.load(str(tmp_path / "v.npz"), "ca-vectors")[1]["vocab"]
    assert vocab.dtype.itemsize == 4 * MAX_WORD_CHARS and "x" * MAX_WORD_CHARS in vocab.tolist()


@pytest.mark.parametrize("value", ["0", "-0.5", "1.5", "nan"])
def test_cli_power_outside_0_1_is_exit_2_before_any_work(tmp_path, value):
    missing = tmp_path / "no-such-corpus.txt"  # would fail too, later: the power is checked first
    result = run("ca", "embed", "-i", missing, "--power", value, "-o", tmp_path / "v.npz", check=False)
    assert result.returncode == 2 and "power" in result.stderr and "Traceback" not in result.stderr
    assert "no-such-corpus" not in result.stderr and os.listdir(tmp_path) == []


def test_config_power_outside_0_1_is_exit_2(tmp_path):
    (tmp_path / "c.yaml").write_text("power: 2\n")
    (tmp_path / "corpus.txt").write_text("a b c " * 10)
    result = run("ca", "embed", "-c", tmp_path / "c.yaml", "-i", tmp_path / "corpus.txt", "-o",
                 tmp_path / "v.npz", check=False)
    assert result.returncode == 2 and "'power': expected a number in (0, 1], got 2" in result.stderr
    assert not (tmp_path / "v.npz").exists()


def test_cli_ppmi_and_tol_report_their_convergence(tmp_path):
    text = open(TRAIN, encoding="utf-8").read()
    (tmp_path / "corpus.txt").write_text(text, encoding="utf-8")
    common = ["ca", "embed", "-i", tmp_path / "corpus.txt", "--dims", "10", "--window", "2", "--min-count", "3"]
    result = run(*common, "--method", "ppmi", "--vectors", "row+column", "--tol", "1e-3", "--power-iterations", "60",
                 "-o", tmp_path / "p.npz", "--summary", tmp_path / "p.json")
    summary = json.loads((tmp_path / "p.json").read_text())
    convergence = summary["convergence"]
    assert summary["method"] == "ppmi" and convergence["converged"] is True and convergence["tol"] == 1e-3
    assert 0 < convergence["power_iterations"] < 60 and max(summary["relative_residuals"]) <= 1e-3
    assert f"svd: {convergence['power_iterations']} power iterations" in result.stderr
    bad = run(*common, "--method", "ppmi", "--supervision", tmp_path / "corpus.txt", "-o", tmp_path / "q.npz",
              check=False)
    assert bad.returncode == 2 and "CA only" in bad.stderr and not (tmp_path / "q.npz").exists()
