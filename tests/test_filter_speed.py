"""The fast paths of filter-parallel give the same numbers as the straightforward code they replace:
the alignment EM (prior tables, transposed tables, threads), the banded sparse cross product of the
PHSIC statistics, PHSIC's row-wise bilinear form, and the in-place merges of the per-task results."""

import math

import numpy as np
import pytest
import scipy.sparse as sp

from kcooc.filtering.alignment import DIAGONALS, TOKEN_LIMIT, AlignmentModel, _prior_table, _priors
from kcooc.filtering.corpus import CorpusCounts
from kcooc.filtering.tokens import token_sequences
from kcooc.linalg import _sparse_cross_product, add_cross_product, rowwise_bilinear
from kcooc.phsic.moments import CrossMoments

from conftest import DATA


def read_pairs(n, path=f"{DATA}/en-ja.tsv"):
    with open(path, encoding="utf-8") as f:
        rows = [line.rstrip("\n").split("\t") for line in f][:n]
    return [r[0] for r in rows], [r[1] for r in rows]


def per_word_e_step(given, words, table, diagonal):
    """The E-step as the model defines it, pair by pair and word by word, on the untransposed
    table ``[given id, word id]`` (last row: the empty word), priors computed where used."""
    p0, counts, log_likelihood = AlignmentModel.null_probability, np.zeros_like(table), 0.0
    prior = np.empty(TOKEN_LIMIT)
    for g, w in zip(given, words):
        longest = max(len(g), len(w))
        m, n = (len(g), len(w)) if longest <= TOKEN_LIMIT else (
            max(1, len(g) * TOKEN_LIMIT // longest), max(1, len(w) * TOKEN_LIMIT // longest))
        if not m or not n:
            continue
        for j in range(n):
            _priors(m, n, j, diagonal, p0, prior)
            weights = [prior[i] * table[g[i], w[j]] for i in range(m)]
            null = p0 * table[-1, w[j]]
            total = null
            for x in weights:
                total += x
            log_likelihood += math.log(total)
            counts[-1, w[j]] += null / total
            for i in range(m):
                counts[g[i], w[j]] += weights[i] / total
    return counts, log_likelihood


def rows_of(sequences):
    ids, indptr = sequences
    return [ids[indptr[k] : indptr[k + 1]].tolist() for k in range(indptr.size - 1)]


@pytest.mark.parametrize("diagonal", [0.0, 4.0])
def test_e_step_on_transposed_tables_equals_the_per_word_e_step_bit_for_bit(diagonal):
    src, tgt = read_pairs(60)
    src, tgt = src + ["word " * 70, ""], tgt + ["語" * 30, "x"]  # a pair cut to TOKEN_LIMIT, an empty side
    buckets = 32
    s, t = token_sequences(src, buckets), token_sequences(tgt, buckets)
    table = np.random.default_rng(0).random((buckets + 1, buckets))
    table /= table.sum(axis=1, keepdims=True)
    counts, log_likelihood = per_word_e_step(rows_of(s), rows_of(t), table, diagonal)
    counts_t = np.zeros((buckets, buckets + 1))
    table_t, priors = np.ascontiguousarray(table.T), AlignmentModel.prior_table(diagonal)
    assert AlignmentModel._expect(s, t, table_t, priors, counts_t) == log_likelihood
    assert np.array_equal(counts_t.T, counts)
    assert AlignmentModel._expect(s, t, table_t, priors, None) == log_likelihood


def test_em_on_transposed_tables_equals_em_on_the_tables_bit_for_bit():
    """_fit_direction's EM (transposed tables, one transposition of the counts an iteration) against EM
    written on the untransposed table with the per-word E-step: the same table, lambda and totals."""
    src, tgt = read_pairs(80)
    buckets, model = 32, AlignmentModel
    s, t = token_sequences(src, buckets), token_sequences(tgt, buckets)
    table, diagonal = np.full((buckets + 1, buckets), 1.0 / buckets), 0.0
    for iteration in range(model.iterations):
        counts = per_word_e_step(rows_of(s), rows_of(t), table, diagonal)[0] + model.smoothing
        totals = counts.sum(axis=1)
        table = counts / totals[:, None]
        if iteration == 0:
            diagonal = max(DIAGONALS, key=lambda d: per_word_e_step(rows_of(s), rows_of(t), table, d)[1])
    fitted, fitted_diagonal, fitted_totals = model._fit_direction(s, t, buckets)
    assert fitted_diagonal == diagonal and np.array_equal(fitted_totals, totals)
    assert fitted.dtype == np.float32 and np.array_equal(fitted, table.astype(np.float32))


def test_prior_table_holds_the_priors_of_every_shape():
    offsets, priors = _prior_table(2.0, 0.08, 5)
    prior = np.empty(5)
    for m in range(1, 6):
        for n in range(1, 6):
            for j in range(n):
                _priors(m, n, j, 2.0, 0.08, prior)
                start = offsets[m, n] + j * m
                assert np.array_equal(priors[start : start + m], prior[:m])


def test_alignment_fit_in_two_threads_equals_one_thread():
    src, tgt = read_pairs(200)
    one, two = AlignmentModel.fit(src, tgt, 64), AlignmentModel.fit(src, tgt, 64, threads=2)
    assert one.diagonals.tolist() == two.diagonals.tolist() and one.diagonals[0] in DIAGONALS
    assert np.array_equal(one.forward, two.forward) and np.array_equal(one.reverse, two.reverse)
    assert np.array_equal(one.features(src, tgt), two.features(src, tgt), equal_nan=True)


@pytest.mark.parametrize("tile", [1, 3, 7, 64])
def test_banded_cross_product_equals_the_row_by_row_sums(tile):
    rng = np.random.default_rng(1)
    Phi = sp.random(300, 20, density=0.3, format="csr", random_state=rng)
    Psi = sp.random(300, 15, density=0.3, format="csr", random_state=rng)
    expected = np.zeros((20, 15))
    for r in range(300):  # term by term, rows in order: the order of the sums every engine keeps
        for a in range(Phi.indptr[r], Phi.indptr[r + 1]):
            for b in range(Psi.indptr[r], Psi.indptr[r + 1]):
                expected[Phi.indices[a], Psi.indices[b]] += Phi.data[a] * Psi.data[b]
    S = np.zeros((20, 15))
    _sparse_cross_product(Phi.indptr, Phi.indices, Phi.data, Psi.indptr, Psi.indices, Psi.data, S, tile)
    assert np.array_equal(S, expected)
    S = np.ones((20, 15))
    add_cross_product(S, Phi, Psi)
    np.testing.assert_allclose(S, 1 + (Phi.T @ Psi).toarray(), rtol=1e-12)


def test_sparse_bilinear_equals_the_term_by_term_sums():
    rng = np.random.default_rng(2)
    nnz = np.arange(40) % 11  # rows of 0 to 10 entries: every remainder of the four rows taken at once
    Phi = sp.csr_matrix((rng.standard_normal(nnz.sum()), np.concatenate([rng.choice(30, k, replace=False)
                                                                          for k in nnz]), np.r_[0, np.cumsum(nnz)]),
                        shape=(40, 30))
    Psi = sp.random(40, 25, density=0.3, format="csr", random_state=rng)
    C = rng.standard_normal((30, 25))
    expected = np.zeros(40)
    for r in range(40):  # phi_r^T C psi_r, each of phi_r's entries times its sum over psi_r, in order
        for a in range(Phi.indptr[r], Phi.indptr[r + 1]):
            partial = 0.0
            for b in range(Psi.indptr[r], Psi.indptr[r + 1]):
                partial += C[Phi.indices[a], Psi.indices[b]] * Psi.data[b]
            expected[r] += Phi.data[a] * partial
    assert np.array_equal(rowwise_bilinear(Phi, C, Psi), expected)
    np.testing.assert_allclose(expected, np.einsum("ij,ij->i", Phi.toarray() @ C, Psi.toarray()), atol=1e-12)


def test_in_place_merges_equal_merge():
    rng = np.random.default_rng(2)
    parts = [CrossMoments(10, rng.random(4), rng.random(3), rng.random((4, 3))) for _ in range(3)]
    expected = parts[0].merge(parts[1]).merge(parts[2])
    total = None
    for part in [CrossMoments(p.n, p.sum_x.copy(), p.sum_y.copy(), p.sum_xy.copy()) for p in parts]:
        total = part if total is None else total.add(part)
    assert total.n == expected.n
    for name in ("sum_x", "sum_y", "sum_xy"):
        assert np.array_equal(getattr(total, name), getattr(expected, name))
    src, tgt = read_pairs(90)
    counts = [CorpusCounts.count(src[k : k + 30], tgt[k : k + 30], 64, 128) for k in (0, 30, 60)]
    expected = counts[0].merge(counts[1]).merge(counts[2])
    total = None
    for part in counts:
        total = part if total is None else total.add(part)
    for name, array in expected.arrays().items():
        assert total.arrays()[name].dtype == np.int64 and np.array_equal(total.arrays()[name], array)
    assert total.add(counts[0]) is total  # in place once the sums are int64


def test_newton_fit_reaches_the_regularised_optimum_from_any_start():
    """fit_logistic (float32 Hessian, float64 gradient) ends where scikit-learn's exact Newton
    ends, from zero, from another fit's coefficients and with the Hessian of a subsample, and the
    gradient of the objective, computed from its definition, is at most the tolerance there."""
    from sklearn.linear_model import LogisticRegression

    from kcooc.linalg import fit_logistic

    rng = np.random.default_rng(3)
    X = rng.normal(size=(3000, 40))
    X = np.hstack([X, X[:, :10] * X[:, 10:20]])  # products, as in the quadratic expansion
    y = (X[:, 0] - X[:, 45] + 0.5 * rng.normal(size=3000) > 0).astype(float)
    reference = LogisticRegression(C=0.05, solver="newton-cholesky", max_iter=100, tol=1e-8).fit(X, y)
    cold = fit_logistic(X, y, 0.05, tol=1e-8)
    other = fit_logistic(X[:2000], y[:2000], 0.05)  # fitted on other rows: a start, not the answer
    warm = fit_logistic(X, y, 0.05, tol=1e-8, start=other)
    subsampled = fit_logistic(X, y, 0.05, tol=1e-8, hessian_rows=500)  # the Hessian of every 6th row
    for w, b in (cold, warm, subsampled):
        np.testing.assert_allclose(w, reference.coef_.ravel(), atol=1e-5)
        assert abs(b - reference.intercept_[0]) < 1e-5
        p = 1 / (1 + np.exp(-(X @ w + b)))
        gradient = np.r_[X.T @ (p - y) / len(y) + w / (0.05 * len(y)), np.mean(p - y)]
        assert np.max(np.abs(gradient)) <= 1e-8
    assert not np.allclose(other[0], cold[0], atol=1e-3)


def test_bounded_newton_fit_reaches_the_optimum_with_many_weights_at_their_bound(monkeypatch):
    """With most weights bounded below by 0 and about half of them held there at the optimum (as the
    monotone score's ramps are), fit_logistic ends where L-BFGS-B on the same objective ends, and its
    steps that fix the weights they would take below 0 (_bounded_newton_step) keep every one >= 0."""
    from scipy.optimize import minimize

    from kcooc import linalg

    rng = np.random.default_rng(5)
    base = rng.normal(size=(4000, 30))
    X = np.hstack([base, np.maximum(base[:, :20, None] - np.array([-1.0, 0.0, 1.0]), 0).reshape(4000, -1)])
    y = (base[:, 0] - base[:, 1] + base[:, 2] * base[:, 3] + rng.normal(size=4000) > 0).astype(float)
    bounded = np.arange(X.shape[1]) >= 10  # 80 of 90 columns
    n, C = len(y), 0.5

    def objective(v):
        z = X @ v[:-1] + v[-1]
        p = 1 / (1 + np.exp(-z))
        loss = np.mean(np.logaddexp(0, z) - y * z) + v[:-1] @ v[:-1] / (2 * C * n)
        return loss, np.r_[X.T @ (p - y) / n + v[:-1] / (C * n), np.mean(p - y)]

    bounds = [(0, None) if b else (None, None) for b in bounded] + [(None, None)]
    reference = minimize(objective, np.zeros(X.shape[1] + 1), jac=True, method="L-BFGS-B", bounds=bounds,
                         options={"ftol": 1e-15, "gtol": 1e-10, "maxiter": 10000}).x
    steps = []
    original = linalg._bounded_newton_step

    def counting(*args):
        steps.append(original(*args))
        return steps[-1]

    monkeypatch.setattr(linalg, "_bounded_newton_step", counting)
    w, b = linalg.fit_logistic(X, y, C, tol=1e-9, nonnegative=bounded)
    at_bound = bounded & (reference[:-1] < 1e-9)
    assert 20 < at_bound.sum() < 70  # many weights at the bound, many off it
    assert (w[bounded] >= 0).all() and np.array_equal(w[at_bound], np.zeros(at_bound.sum()))
    np.testing.assert_allclose(np.r_[w, b], reference, atol=1e-5)
    assert objective(np.r_[w, b])[0] <= objective(reference)[0] + 1e-12
    assert len(steps) <= 6  # 5; the plain Newton step, bent by the projection, takes 8


def test_newton_fit_of_separable_collinear_examples_with_a_weak_penalty_ends(monkeypatch):
    """learn.regularization 1e6 on separable examples with repeated columns: the float32 Hessian is not
    positive definite at most steps (plain Cholesky fails); the fit still ends, separating them."""
    from scipy.linalg import LinAlgError, cho_factor

    from kcooc import linalg

    rng = np.random.default_rng(0)
    a = rng.normal(size=(200, 3))
    X, y = np.hstack([a, a, a * 3]), (a[:, 0] > 0).astype(float)
    singular, cholesky = [], linalg._cholesky

    def counting(H):
        try:
            cho_factor(H)
        except LinAlgError:
            singular.append(H)
        return cholesky(H)

    monkeypatch.setattr(linalg, "_cholesky", counting)
    w, b = linalg.fit_logistic(X, y, 1e6)
    assert singular and np.isfinite(w).all() and ((X @ w + b > 0) == (y > 0)).all()


def test_pair_features_of_the_scored_rows_equal_those_of_their_whole_block():
    """The score pass computes the per-pair features (language ID included) of the pairs it scores
    only (no duplicates, no line a rule dropped); each row's features must not depend on the
    other rows of its block, so they are those the screen pass used to compute for every line."""
    from kcooc.filtering.extractor import FeatureExtractor, feature_names
    from kcooc.text import TextStats

    src, tgt = read_pairs(3000)
    src += ["", "%s files and 3 dirs in /usr/share", "Hello World"]
    tgt += ["空", "%d 個のファイル", "Hello World"]
    extractor = FeatureExtractor(feature_names("en", "ja"), "en", "ja")
    whole = extractor.pair(src, tgt, TextStats(src), TextStats(tgt))
    rows = np.flatnonzero(np.random.default_rng(0).random(len(src)) < 0.3)
    rows = np.r_[rows, len(src) - 3, len(src) - 1]
    s, t = [src[i] for i in rows], [tgt[i] for i in rows]
    assert np.array_equal(extractor.pair(s, t, TextStats(s), TextStats(t)), whole[rows])


def test_one_pass_prediction_equals_predict_proba_and_weakest_bit_for_bit():
    """predict_with_reasons computes the inputs once and returns exactly predict_proba and weakest,
    on rows with a gated language and a missing link order alike."""
    from kcooc.filtering.classifier import PairClassifier

    rng = np.random.default_rng(4)
    names = ["phsic", "char_ratio", "numbers", "order", "tgt_chars", "tgt_lang"]
    F = np.column_stack([rng.normal(size=(600, 3)), np.where(rng.random(600) < 0.2, np.nan, rng.random(600)),
                         np.log1p(rng.integers(1, 200, 600)), np.where(rng.random(600) < 0.3, rng.random(600), 1.0)])
    model = PairClassifier(names, regularization=0.5).fit(F, F[:, 0] - np.abs(F[:, 1]) > 0)
    p, weakest = model.predict_with_reasons(F)
    assert np.array_equal(p, model.predict_proba(F)) and np.array_equal(weakest, model.weakest(F))
    assert np.isfinite(p).all() and ((0 <= p) & (p <= 1)).all()


def awkward_lines():
    """TSV bytes a reader must handle: a header, CRLF and CR-CR-LF endings, a carriage return inside a
    field, bad UTF-8, too few and too many fields, an empty line, and a last line that ends in a
    carriage return without a newline."""
    src, tgt = read_pairs(200)
    lines = [b"src\ttgt\n"]
    for k, (s, t) in enumerate(zip(src, tgt)):
        line = f"{s}\t{t}".encode()
        lines.append(line + [b"\n", b"\r\n", b"\r\r\n", b"\n", b"\n", b"\n"][k % 6])
        if k % 17 == 0:
            lines.append([b"bad \xff utf-8\tx\n", b"one field\n", b"\n", b"a\tb\tc\n", b"x\r\ty\n"][k // 17 % 5])
    lines.append(b"last\tline\r")
    return b"".join(lines)


@pytest.mark.parametrize("chunk", [7, 100, 1 << 20])
def test_raw_lines_write_the_rows_as_the_reader_reads_them(tmp_path, chunk):
    """The write pass cuts the kept rows out of the undecoded input (RawLines): the same bytes as
    joining the reader's decoded lines, for any block size, keep pattern and malformed line."""
    from kcooc.io.readers import RawLines, line_blocks
    from kcooc.io.tsv import TsvReader

    path = tmp_path / "in.tsv"
    path.write_bytes(awkward_lines())
    reader = TsvReader(str(path), [1, 2], header=True, on_error="skip", block_size=50)
    blocks = list(reader)
    lines = [line for b in blocks for line in b.lines]
    linenos = np.concatenate([b.linenos for b in blocks]).astype(np.int64)
    assert reader.stats.skipped and len(lines) < reader.stats.lines - 1  # the input does hold malformed lines
    keep = np.random.default_rng(0).random(len(lines)) < 0.7
    written, texts, row = b"", [], 0
    for first, data in line_blocks(str(path), chunk):
        block = RawLines.of(data, first, linenos, row)
        written += block.joined(keep[block.rows])
        texts += block.texts()
        row = block.rows.stop
    assert row == len(lines)
    assert texts == lines
    assert written == "".join(line + "\n" for line, k in zip(lines, keep) if k).encode()
    assert b"x\r\ty" in written or not keep[lines.index("x\r\ty")]  # a carriage return inside a line stays


def test_spooled_rows_come_back_with_their_texts_and_encoding_bit_for_bit(tmp_path):
    """The screen pass spools a task's passing pairs (texts, encoding in narrowed integer types where
    exact); the score pass reads a subset back: the same strings and the same sparse matrices, dtypes
    included. Values that are not small integers (or -0.0, NaN) are kept as they are."""
    from kcooc.filtering.spool import load_spooled, narrowed, save_spooled

    src, tgt = read_pairs(500)
    src[3], tgt[4], src[5] = "", "a\rb", "ünïcödé \u3000 全角"
    rng = np.random.default_rng(1)
    X = sp.random(500, 1024, density=0.03, format="csr", random_state=2, dtype=np.float32)
    X.data = np.round(X.data * 200 - 100) + 0.0  # small integers, no -0.0
    Y = sp.random(500, 70000, density=0.01, format="csr", random_state=3, dtype=np.float64)
    rows = np.sort(rng.choice(5000, 500, replace=False))
    save_spooled(str(tmp_path / "t"), rows, src, tgt, (X, Y))
    subset = np.sort(rng.choice(500, 120, replace=False))
    s, t, (X2, Y2) = load_spooled(str(tmp_path / "t"), rows[subset])
    assert s == [src[i] for i in subset] and t == [tgt[i] for i in subset]
    for before, after in ((X[subset], X2), (Y[subset], Y2)):
        assert after.dtype == before.dtype and after.indices.dtype == before.indices.dtype
        assert np.array_equal(after.indptr, before.indptr) and np.array_equal(after.indices, before.indices)
        assert np.array_equal(after.data.view(np.uint8), before.data.view(np.uint8))
    assert not (tmp_path / "t").exists()
    assert narrowed(X.data).dtype == np.int8 and narrowed(X.indices).itemsize == 2
    assert narrowed(Y.indices).dtype == Y.indices.dtype  # 70,000 columns: no 16-bit type holds them
    for kept in (np.array([0.5, 1.0]), np.array([-0.0, 1.0]), np.array([np.nan, 1.0]), np.array([300.0, -1.0])):
        assert narrowed(kept).dtype == (np.int16 if kept[0] == 300 else np.float64)
