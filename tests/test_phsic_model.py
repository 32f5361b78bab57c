"""PHSIC estimators against the paper's naive data-space definitions (Yokoi et al. 2018)."""

import numpy as np
import pytest
import scipy.sparse as sp

from kcooc.encoders import HashingEncoder, WordLlamaEncoder
from kcooc.kernels import IncompleteCholeskyMap, RBFKernel, make_kernel
from kcooc.phsic import PHSIC, CrossMoments

from conftest import needs_wordllama, read_pairs


def naive_phsic(x_new, y_new, X, Y, k, l_kernel):
    """Eq. 27 written out: (k - kbar)^T (1/n) H (l - lbar) with n x n Gram matrices, per pair."""
    n = X.shape[0]
    K, L = k(X, X), l_kernel(Y, Y)
    H = np.eye(n) - np.ones((n, n)) / n
    k_bar, l_bar = K.mean(axis=1), L.mean(axis=1)
    scores = []
    for x, y in zip(x_new, y_new):
        kv = np.array([k(x[None], X[i : i + 1])[0, 0] for i in range(n)])
        lv = np.array([l_kernel(y[None], Y[i : i + 1])[0, 0] for i in range(n)])
        scores.append((kv - k_bar) @ (H / n) @ (lv - l_bar))
    return np.array(scores)


@pytest.fixture(scope="module")
def vectors():
    """Real sentence vectors: WordLlama embeddings of dialogue pairs from the excerpt."""
    pytest.importorskip("wordllama", reason="wordllama is not installed (pip install 'kcooc[wordllama]')")
    x, y = read_pairs(n=60)
    encoder = WordLlamaEncoder()
    return encoder.encode(x).astype(np.float64), encoder.encode(y).astype(np.float64)


@pytest.mark.parametrize("kernel", ["linear", "cos"])
def test_feature_space_equals_data_space_eq27(vectors, kernel):
    X, Y = vectors
    train, test = slice(0, 40), slice(40, 60)
    model = PHSIC(kernel).fit(X[train], Y[train])
    k = make_kernel(kernel)
    expected = naive_phsic(X[test], Y[test], X[train], Y[train], k, k)
    np.testing.assert_allclose(model.score(X[test], Y[test]), expected, rtol=1e-8, atol=1e-12)
    in_sample = naive_phsic(X[train][:5], Y[train][:5], X[train], Y[train], k, k)
    np.testing.assert_allclose(model.score(X[train][:5], Y[train][:5]), in_sample, rtol=1e-8, atol=1e-12)


@pytest.mark.parametrize("kernel", ["rbf", "laplacian"])
def test_full_rank_icd_equals_eq27(vectors, kernel):
    X, Y = vectors
    train, test = slice(0, 30), slice(30, 45)
    model = PHSIC(kernel, rank=30, tol=1e-13).fit(X[train], Y[train])
    assert model.x_map.icd.dim == 30
    for rows in (train, test):
        expected = naive_phsic(X[rows], Y[rows], X[train], Y[train], model.x_map.kernel, model.y_map.kernel)
        np.testing.assert_allclose(model.score(X[rows], Y[rows]), expected, rtol=1e-6, atol=1e-10)


def test_eq34_out_of_sample_rows_equal_in_sample_rows(vectors):
    X, _ = vectors
    kernel = RBFKernel(sigma=float(np.median(np.linalg.norm(X[:, None] - X[None], axis=2))))
    for rank in (5, 20, 60):
        icd, A = IncompleteCholeskyMap.fit(X, kernel, rank=rank, tol=0.0)
        np.testing.assert_allclose(icd(X), A, atol=1e-8)


def test_icd_approximates_gram_and_improves_with_rank(vectors):
    X, _ = vectors
    kernel = RBFKernel(sigma=1.0)
    K = kernel(X, X)
    errors = []
    for rank in (2, 10, 30, 60):
        _, A = IncompleteCholeskyMap.fit(X, kernel, rank=rank, tol=0.0)
        errors.append(np.abs(K - A @ A.T).max())
    assert errors == sorted(errors, reverse=True)
    assert errors[-1] < 1e-8


@pytest.mark.parametrize("kernel,rank", [("linear", 100), ("rbf", 40)])
def test_hsic_eq30_equals_trace_khlh(vectors, kernel, rank):
    X, Y = vectors
    X, Y = X[:40], Y[:40]
    n = X.shape[0]
    model = PHSIC(kernel, rank=rank, tol=1e-13).fit(X, Y)
    K, L = model.x_map.kernel(X, X), model.y_map.kernel(Y, Y)
    H = np.eye(n) - np.ones((n, n)) / n
    assert model.hsic() == pytest.approx(np.trace(K @ H @ L @ H) / n**2, rel=1e-7)
    assert model.hsic() == pytest.approx(model.score(X, Y).mean(), rel=1e-7)


def test_merged_shards_equal_one_fit(vectors):
    X, Y = vectors
    whole = PHSIC("cos").fit(X, Y)
    shards = [PHSIC("cos").fit(X[a:b], Y[a:b]).moments for a, b in ((0, 17), (17, 41), (41, 60))]
    merged = shards[0].merge(shards[1]).merge(shards[2])
    assert merged.n == 60
    np.testing.assert_allclose(merged.sum_xy, whole.moments.sum_xy, rtol=1e-10, atol=1e-14)
    streamed = PHSIC("cos").fit_maps(X, Y)
    for a in range(0, 60, 7):
        streamed.partial_fit(X[a : a + 7], Y[a : a + 7])
    np.testing.assert_allclose(streamed.finalize().score(X, Y), whole.score(X, Y), rtol=1e-9)


def test_sparse_and_dense_inputs_score_the_same():
    x, y = read_pairs(n=200)
    encoder = HashingEncoder(n_features=256)
    Xs, Ys = encoder.encode(x), encoder.encode(y)
    assert sp.issparse(Xs)
    for kernel in ("cos", "linear", "rbf"):
        sparse_model = PHSIC(kernel, rank=20).fit(Xs, Ys)
        dense_model = PHSIC(kernel, rank=20).fit(Xs.toarray(), Ys.toarray())
        # float32 inputs: products run in single precision, in different orders for sparse and dense
        np.testing.assert_allclose(sparse_model.score(Xs, Ys), dense_model.score(Xs.toarray(), Ys.toarray()),
                                   rtol=1e-5, atol=1e-9)


def test_empty_sentence_scores_zero_with_cosine(vectors):
    X, Y = vectors
    model = PHSIC("cos").fit(X, Y)
    zero = np.zeros((1, X.shape[1]))
    # phi(0) = 0, so the score is the constant -mean_phi^T C (psi(y) - mean_psi): deterministic, finite
    first = model.score(zero, Y[:1])
    assert np.isfinite(first).all()
    np.testing.assert_array_equal(first, model.score(zero, Y[:1]))


def test_score_matrix_matches_pairwise_scores(vectors):
    X, Y = vectors
    model = PHSIC("cos").fit(X[:40], Y[:40])
    matrix = model.score_matrix(X[40:45], Y[40:50])
    pairwise = model.score(np.repeat(X[40:45], 10, axis=0), np.tile(Y[40:50], (5, 1))).reshape(5, 10)
    np.testing.assert_allclose(matrix, pairwise, rtol=1e-10)


@needs_wordllama
def test_true_pairs_score_higher_than_shuffled_pairs():
    """PHSIC learns the dependence: real (context, response) pairs beat mismatched ones."""
    x, y = read_pairs()
    encoder = WordLlamaEncoder()
    X, Y = encoder.encode(x), encoder.encode(y)
    model = PHSIC("cos").fit(X[:1500], Y[:1500])
    true = model.score(X[1500:], Y[1500:])
    shuffled = model.score(X[1500:], np.roll(Y[1500:], 1, axis=0))
    assert true.mean() > shuffled.mean()


def test_bad_parameters_are_input_errors():
    from kcooc.errors import InputError

    with pytest.raises(InputError):
        PHSIC("cos", rank=0)
    with pytest.raises(InputError):
        PHSIC("rbf", sigma=-1.0)
    with pytest.raises(InputError):
        PHSIC("cos").fit_maps(np.ones((3, 2)), np.ones((3, 2))).finalize()
    with pytest.raises(InputError):
        CrossMoments.zeros(2, 2) and PHSIC("cos").fit(np.ones((3, 2)), np.ones((4, 2)))


def test_normalized_rbf_equals_eq27_on_unit_vectors(vectors):
    from kcooc.linalg import normalize_rows

    X, Y = vectors
    model = PHSIC("rbf", rank=30, tol=1e-13, normalize=True).fit(X[:30], Y[:30])
    Xn, Yn = normalize_rows(X), normalize_rows(Y)
    expected = naive_phsic(Xn[30:40], Yn[30:40], Xn[:30], Yn[:30], model.x_map.kernel, model.y_map.kernel)
    np.testing.assert_allclose(model.score(X[30:40], Y[30:40]), expected, rtol=1e-6, atol=1e-10)
    # sentence length no longer matters: scaling a vector leaves its score unchanged
    np.testing.assert_allclose(model.score(3 * X[30:40], Y[30:40]), expected, rtol=1e-6, atol=1e-10)


def test_train_reports_both_passes_of_a_data_space_kernel():
    """rbf reads and spools, fits the maps on the sample, then passes over the spool: each step is
    announced and the second pass counts every pair again (the CLI's progress bar follows it)."""
    from kcooc.pairs import PairBlock
    from kcooc.phsic.model import PHSIC
    from kcooc.phsic.stream import train

    rng = np.random.default_rng(0)
    blocks = [PairBlock(None, None, rng.normal(size=(n, 4)), rng.normal(size=(n, 3))) for n in (30, 25, 45)]
    events = []
    model = PHSIC("rbf", rank=5, seed=0)
    train(iter(blocks), model, sample_size=60, on_block=lambda n: events.append(n),
          on_pass=lambda name, total: events.append((name, total)))
    assert events == [30, 25, 45, ("maps", None), ("statistics", 100), 30, 25, 45]
    reference = PHSIC("rbf", rank=5, seed=0)
    train(iter(blocks), reference, sample_size=60)
    X, Y = np.vstack([b.X for b in blocks]), np.vstack([b.Y for b in blocks])
    np.testing.assert_array_equal(model.score(X, Y), reference.score(X, Y))
