"""Kernelized sorting against the paper's definitions: objective = tr(K pi^T L pi) with dense
permutation matrices, the relaxed matchings of Table 1, recovery when L is K permuted, seeds,
rectangular problems, a non-decreasing objective; convex kernelized sorting against a generic QP solver;
and `kcooc ks align` on real names (arabnamer, CLDR), with bad input."""

import gzip
import itertools
import json
import os

import numpy as np
import pytest

from kcooc.ks.align import kernelized_sorting, p_smooth, reference_kernels, zero_diagonal
from kcooc.ks.convex import convex_sorting, relaxed_objective
from kcooc.ks.mcca import mcca
from kcooc.ks.sorting import centre, objective, pca_initialisations, relaxed_rows, sort, sort_with_seeds, sub_polynomial

from conftest import DATA, needs_translit, run


def permuted_problem(n=40, extra=0, seed=0):
    """K from random points; L = K of the same objects in a shuffled order (plus ``extra`` others)."""
    rng = np.random.default_rng(seed)
    X = rng.random((n + extra, 4))
    K_all = X @ X.T
    order = rng.permutation(n + extra)  # target a is object order[a]
    truth = np.argsort(order)[:n]  # source i -> target truth[i]
    return K_all[:n, :n], K_all[np.ix_(order, order)], truth


def dense(match, n_targets):
    P = np.zeros((match.size, n_targets))
    P[np.flatnonzero(match >= 0), match[match >= 0]] = 1
    return P


def test_objective_equals_the_trace_with_a_dense_permutation():
    K, L, truth = permuted_problem(12)
    Kc, Lc = centre(K), centre(L)
    H = np.eye(12) - 1 / 12
    np.testing.assert_allclose(Kc, H @ K @ H)
    match = np.random.default_rng(3).permutation(12)
    P = dense(match, 12)
    assert objective(Kc, Lc, match) == pytest.approx(np.trace(Kc @ P @ Lc @ P.T))


def test_relaxed_rows_are_the_table_1_matrices_times_l():
    L = np.random.default_rng(1).random((4, 4))
    match = np.array([1, 0, -1, -1])  # Y1-X2, Y2-X1 seeded; X3, X4 unconfident
    uniform = np.array([[0, 1, 0, 0], [1, 0, 0, 0], [0, 0, .5, .5], [0, 0, .5, .5]])
    np.testing.assert_allclose(relaxed_rows(L, match, "uniform"), uniform @ L)
    np.testing.assert_allclose(relaxed_rows(L, match, "zero"), dense(match, 4) @ L)


def test_sub_polynomial_kernel_equals_its_definition():
    K = np.random.default_rng(2).random((5, 5))
    S = K**0.3
    S = S / np.linalg.norm(S, axis=1, keepdims=True)
    np.testing.assert_allclose(sub_polynomial(K, 0.3), S @ S.T)


@pytest.mark.parametrize("method", ["ks", "p-smooth", "s-z", "s-u", "mcca", "convex"])
def test_exact_recovery_when_l_is_k_permuted(method):
    K, L, truth = permuted_problem()
    seeds = {0: int(truth[0]), 7: int(truth[7]), 20: int(truth[20])}
    if method == "ks":
        trace = kernelized_sorting(K, L)
    elif method == "convex":
        trace = convex_sorting(K, L)
    elif method == "mcca":
        trace = mcca(K, L, {**seeds, 3: int(truth[3]), 11: int(truth[11]), 30: int(truth[30])}, dims=4)
    else:
        trace, _, _ = p_smooth(K, L, [0.2, 0.5, 1.0], seeds=None if method == "p-smooth" else seeds,
                               fill="uniform" if method == "s-u" else "zero")
    assert (trace.match == truth).all()


def test_seeds_are_always_respected_even_when_wrong():
    K, L, truth = permuted_problem(30)
    seeds = {0: int(truth[1]), 1: int(truth[0]), 5: int(truth[5])}  # two deliberately wrong seeds
    for fill in ("zero", "uniform"):
        trace = sort_with_seeds(centre(K), centre(L), seeds, fill=fill)
        assert all(trace.match[s] == t for s, t in seeds.items())
        assert sorted(trace.match) == list(range(30))


def test_rectangular_problem_matches_every_source_to_a_distinct_target():
    K, L, truth = permuted_problem(30, extra=8)
    seeds = {i: int(truth[i]) for i in range(4)}
    trace, _, _ = p_smooth(K, L, [0.5, 1.0], seeds=seeds)
    assert (trace.match >= 0).all() and len(set(trace.match.tolist())) == 30
    assert (trace.match == truth).sum() >= 20  # chance: about 1


def test_the_objective_never_decreases_across_accepted_iterations():
    rng = np.random.default_rng(5)
    X, Y = rng.random((50, 6)), rng.random((50, 6))
    K, L = centre(X @ X.T), centre(Y @ Y.T)
    for init in pca_initialisations(K, L):
        trace = sort(K, L, init, step=0.5)
        assert len(trace.history) > 2  # it did iterate
        # the returned matching is the best one any iteration produced, and never worse than the start
        assert trace.objective == pytest.approx(objective(K, L, trace.match))
        assert trace.objective == max(trace.history) >= trace.history[0]


def test_cli_aligns_real_names_and_respects_seeds(tmp_path):
    (tmp_path / "seeds.tsv").write_text("1\t23\n2\t36\n")
    result = run("ks", "align", "-c", os.path.join(DATA, "..", "..", "configs", "ks-names.yaml"),
                 "--source", os.path.join(DATA, "names-en.txt"), "--target", os.path.join(DATA, "names-ar.txt"),
                 "--seeds", tmp_path / "seeds.tsv", "--gold", os.path.join(DATA, "names-gold.tsv"),
                 "-o", tmp_path / "alignment.tsv", "--summary", tmp_path / "s.json", "--jobs", "2")
    rows = [line.split("\t") for line in (tmp_path / "alignment.tsv").read_text().splitlines()]
    assert len(rows) == 60 and len({r[1] for r in rows}) == 60
    assert rows[0][:2] == ["1", "23"] and rows[1][:2] == ["2", "36"]
    summary = json.loads((tmp_path / "s.json").read_text())
    assert summary["seeds"] == 2 and summary["matched"] == 60 and 2 <= summary["recovered"] <= 60
    assert "recovered" in result.stderr and len(summary["objective_per_p"]) == 12


@pytest.mark.parametrize("seeds, message", [("1\tnope\n", "seeds.tsv:1: expected source_id<TAB>target_id"),
                                            ("1\t2\n3\t2\n", "a target appears twice"),
                                            ("1\t2\n1\t2\n1\t5\n", "seeds.tsv:3: source 1 appears twice")])
def test_cli_bad_seeds_are_one_line_exit_2(tmp_path, seeds, message):
    (tmp_path / "seeds.tsv").write_text(seeds)
    result = run("ks", "align", "--method", "s-z", "--source", os.path.join(DATA, "names-en.txt"),
                 "--target", os.path.join(DATA, "names-ar.txt"), "--seeds", tmp_path / "seeds.tsv",
                 "-o", tmp_path / "a.tsv", check=False)
    assert result.returncode == 2 and message in result.stderr and "Traceback" not in result.stderr
    assert not (tmp_path / "a.tsv").exists()


def test_convex_objective_is_kernelized_sorting_on_permutations():
    """||K pi - pi L||^2 = ||K||^2 + ||L||^2 - 2 tr(K pi L pi^T) for a permutation (Djuric et al. 2012)."""
    K, L, _ = permuted_problem(9, seed=4)
    for seed in range(3):
        P = dense(np.random.default_rng(seed).permutation(9), 9)
        expected = np.sum(K**2) + np.sum(L**2) - 2 * np.trace(K @ P @ L @ P.T)
        assert relaxed_objective(K, L, P) == pytest.approx(expected)


def normalised(K):
    K = zero_diagonal(K)
    return K / np.linalg.norm(K)


def qp_minimum(K, L):
    """The relaxed problem by a generic solver: min ||K P - P L||^2 over doubly stochastic P (SLSQP on
    the n^2 entries; one of the 2n sum constraints is redundant and left out)."""
    from scipy.optimize import minimize

    n = K.shape[0]
    A = np.vstack([np.kron(np.eye(n), np.ones(n)), np.kron(np.ones(n), np.eye(n))])[:-1]

    def value_and_gradient(x):
        P = x.reshape(n, n)
        R = K @ P - P @ L
        return np.sum(R * R), (2 * (K @ R - R @ L)).ravel()

    result = minimize(value_and_gradient, np.full(n * n, 1 / n), jac=True, method="SLSQP", bounds=[(0, 1)] * (n * n),
                      constraints=[{"type": "eq", "fun": lambda x: A @ x - 1, "jac": lambda x: A}],
                      options={"ftol": 1e-15, "maxiter": 5000})
    assert result.success
    return result.fun


def test_convex_frank_wolfe_reaches_the_qp_minimum_of_a_generic_solver():
    rng = np.random.default_rng(6)
    X, Y = rng.random((6, 3)), rng.random((6, 3))
    K, L = X @ X.T, Y @ Y.T
    trace = convex_sorting(K, L, max_iter=3000, tol=1e-10)
    minimum = qp_minimum(normalised(K), normalised(L))
    assert minimum - 1e-9 <= trace.history[-1] <= minimum * 1.01  # Frank-Wolfe converges sublinearly
    assert trace.history[-1] < 0.8 * min(relaxed_objective(normalised(K), normalised(L), dense(m, 6))
                                         for m in map(np.array, itertools.permutations(range(6))))
    assert all(b <= a + 1e-12 for a, b in zip(trace.history, trace.history[1:]))  # exact line search descends


def test_convex_rounding_finds_the_best_permutation_of_a_brute_force_search():
    K, L, truth = permuted_problem(6, seed=2)
    L = L + 0.01 * np.random.default_rng(0).standard_normal(L.shape)
    L = (L + L.T) / 2
    Kn, Ln = normalised(K), normalised(L)
    best = min(itertools.permutations(range(6)), key=lambda m: relaxed_objective(Kn, Ln, dense(np.array(m), 6)))
    assert convex_sorting(K, L).match.tolist() == list(best) == truth.tolist()


def test_convex_keeps_wrong_seeds_and_matches_the_rest():
    K, L, truth = permuted_problem(30)
    seeds = {0: int(truth[1]), 1: int(truth[0]), 5: int(truth[5])}
    trace = convex_sorting(K, L, seeds)
    assert all(trace.match[s] == t for s, t in seeds.items()) and sorted(trace.match) == list(range(30))


@needs_translit
def test_cli_convex_on_romanised_cldr_names(tmp_path):
    args = ["ks", "align", "-c", os.path.join(DATA, "..", "..", "configs", "ks-translit.yaml"), "--method", "convex",
            "--source", os.path.join(DATA, "tl-ar-en.txt"), "--target", os.path.join(DATA, "tl-ar-native.txt"),
            "--gold", os.path.join(DATA, "tl-ar-gold.tsv"), "--random-seeds", "5", "--seed", "0"]
    run(*args, "-o", tmp_path / "a.tsv", "--summary", tmp_path / "s.json")
    summary = json.loads((tmp_path / "s.json").read_text())
    assert summary["seeds"] == 5 and summary["matched"] == 40 and 5 <= summary["recovered"] <= 40
    assert summary["gold_objective"] > 0 and "found_objective_on_gold_sources" in summary
    # the same names gzipped and on stdin give the same alignment
    with gzip.open(tmp_path / "en.txt.gz", "wt", encoding="utf-8") as f:
        f.write(open(os.path.join(DATA, "tl-ar-en.txt"), encoding="utf-8").read())
    native = open(os.path.join(DATA, "tl-ar-native.txt"), encoding="utf-8").read()
    args[args.index(os.path.join(DATA, "tl-ar-en.txt"))] = str(tmp_path / "en.txt.gz")
    args[args.index(os.path.join(DATA, "tl-ar-native.txt"))] = "-"
    run(*args, "-o", tmp_path / "b.tsv", stdin=native)
    assert (tmp_path / "a.tsv").read_bytes() == (tmp_path / "b.tsv").read_bytes()


@needs_translit
def test_romanise_counts_n_grams_of_the_romanised_target():
    from anyascii import anyascii

    from kcooc.ks.commands import kernels
    from kcooc.ks.config import FeaturesConfig, KsConfig
    from kcooc.ks.features import char_ngram_vectors, linear_kernel

    native = open(os.path.join(DATA, "tl-ar-native.txt"), encoding="utf-8").read().splitlines()
    english = open(os.path.join(DATA, "tl-ar-en.txt"), encoding="utf-8").read().splitlines()
    _, L = kernels(KsConfig(features=FeaturesConfig(kind="chars", romanise=True)), english, native)
    np.testing.assert_array_equal(L, linear_kernel(char_ngram_vectors([anyascii(t) for t in native])))
    assert anyascii(native[30]) == "stwkhwlm"  # Stockholm, consonants as the paper's romanised Arabic


@pytest.mark.parametrize("directory", [False, True])
def test_cli_names_in_another_encoding_are_one_line_errors_naming_file_and_line(tmp_path, directory):
    text = "Mozambique\nSão Tomé\nRome\n"
    if directory:
        (tmp_path / "names").mkdir()
        (tmp_path / "names" / "a.txt").write_text("Rome\n", encoding="utf-8")
        (tmp_path / "names" / "b.txt").write_bytes(text.encode("latin-1"))
        source, bad = tmp_path / "names", tmp_path / "names" / "b.txt"
    else:
        (tmp_path / "names.txt").write_bytes(text.encode("cp1252"))
        source = bad = tmp_path / "names.txt"
    result = run("ks", "align", "--method", "ks", "--source", source, "--target", os.path.join(DATA, "names-ar.txt"),
                 "-o", tmp_path / "a.tsv", check=False)
    assert result.returncode == 2 and f"{bad}:2: invalid UTF-8" in result.stderr
    assert "Traceback" not in result.stderr and len(result.stderr.strip().splitlines()) == 1
    assert not (tmp_path / "a.tsv").exists()


def test_cli_truncated_gzip_names_are_exit_2(tmp_path):
    data = gzip.compress(open(os.path.join(DATA, "tl-ar-en.txt"), "rb").read())
    (tmp_path / "en.txt.gz").write_bytes(data[: len(data) // 2])
    result = run("ks", "align", "--method", "convex", "--source", tmp_path / "en.txt.gz",
                 "--target", os.path.join(DATA, "tl-ar-native.txt"), "-o", tmp_path / "a.tsv", check=False)
    assert result.returncode == 2 and "en.txt.gz:" in result.stderr
    assert "truncated or corrupt input" in result.stderr and "Traceback" not in result.stderr
    assert not (tmp_path / "a.tsv").exists()


@needs_translit
def test_skeletons_of_transliterations_agree_across_scripts():
    from kcooc.ks.features import skeleton

    for english, native in [("Stockholm", "ستوكهولم"), ("El Salvador", "السلفادور"), ("Khmer", "الخميرية"),
                            ("Los Angeles", "لوس انجلوس"), ("Berlin", "Берлин"), ("Sydney", "シドニー")]:
        assert skeleton(english) == skeleton(native), (english, native)
    assert skeleton("Port Moresby") == "brt mrsb"  # word boundaries stay; p/b merged, vowels and y dropped
    assert skeleton("Alabama") == "rbm"  # only a separate or hyphenated Al-/El- is an article on the Latin side
    assert skeleton("El Salvador", drop_article=False, keep_spaces=False) == "rsrfdr"


@pytest.mark.parametrize("weighting, normalise", [("count", False), ("binary", False), ("sqrt", True), ("count", True)])
def test_char_ngram_vectors_equal_their_definition(weighting, normalise):
    from kcooc.ks.features import char_ngram_vectors, linear_kernel

    names = ["stkrm", "brt mrsb", "mrsrs", "aaa"]
    counts = [{} for _ in names]
    for row, name in zip(counts, names):
        for n in (1, 2, 3):
            for i in range(len(name) - n + 1):
                row[name[i:i + n]] = row.get(name[i:i + n], 0) + 1
    weigh = {"count": lambda c: c, "binary": lambda c: 1.0, "sqrt": np.sqrt}[weighting]
    vectors = [{g: weigh(c) for g, c in row.items()} for row in counts]
    if normalise:
        vectors = [{g: v / np.sqrt(sum(x * x for x in row.values())) for g, v in row.items()} for row in vectors]
    expected = np.array([[sum(v * b.get(g, 0.0) for g, v in a.items()) for b in vectors] for a in vectors])
    np.testing.assert_allclose(linear_kernel(char_ngram_vectors(names, 1, 3, weighting, normalise)), expected)


def test_the_unsmoothed_grid_point_runs_on_the_reference_kernels():
    K, L, truth = permuted_problem(30)
    L = L + 0.002 * np.random.default_rng(1).standard_normal(L.shape)
    seeds = {0: int(truth[0]), 7: int(truth[7])}
    trace, best_p, per_p = p_smooth(K, L, [None], seeds=seeds)
    Kr, Lr = reference_kernels(K, L)
    expected = sort_with_seeds(Kr, Lr, seeds, fill="zero")
    assert best_p is None and trace.match.tolist() == expected.match.tolist()
    assert per_p == [(None, pytest.approx(objective(Kr, Lr, expected.match)))]
    unseeded, _, _ = p_smooth(K, L, [0.5, None])  # p-smooth's warm-start chain takes the None point too
    assert (unseeded.match == truth).sum() >= 25


@needs_translit
def test_cli_says_how_many_recovered_pairs_were_seeds(tmp_path):
    gold = dict(line.split("\t") for line in open(os.path.join(DATA, "tl-ar-gold.tsv")).read().splitlines())
    (tmp_path / "seeds.tsv").write_text(f"1\t{gold['1']}\n2\t{gold['2']}\n3\t{gold['4']}\n")  # one wrong seed
    result = run("ks", "align", "-c", os.path.join(DATA, "..", "..", "configs", "ks-translit.yaml"),
                 "--source", os.path.join(DATA, "tl-ar-en.txt"), "--target", os.path.join(DATA, "tl-ar-native.txt"),
                 "--seeds", tmp_path / "seeds.tsv", "--gold", os.path.join(DATA, "tl-ar-gold.tsv"),
                 "-o", tmp_path / "a.tsv", "--summary", tmp_path / "s.json")
    summary = json.loads((tmp_path / "s.json").read_text())
    assert summary["seeds"] == 3 and summary["recovered_seeds"] == 2
    assert summary["p"] is None or 0.05 <= summary["p"] <= 0.6
    assert f"recovered {summary['recovered']} of 40 gold pairs (s-z; 2 of them were given as seeds)" in result.stderr


@pytest.mark.parametrize("method", ["p-smooth", "ks"])
def test_cli_methods_without_seeds_refuse_them(tmp_path, method):
    (tmp_path / "seeds.tsv").write_text("1\t23\n")
    for seeds in (["--seeds", tmp_path / "seeds.tsv"],
                  ["--gold", os.path.join(DATA, "names-gold.tsv"), "--random-seeds", "3"]):
        result = run("ks", "align", "--method", method, "--source", os.path.join(DATA, "names-en.txt"),
                     "--target", os.path.join(DATA, "names-ar.txt"), *seeds, "-o", tmp_path / "a.tsv", check=False)
        assert result.returncode == 2 and f"method {method} does not use seed alignments" in result.stderr
        assert "Traceback" not in result.stderr and not (tmp_path / "a.tsv").exists()


def test_gold_versus_found_oracle_counts_equal_their_definition():
    from kcooc.ks.commands import gold_versus_found

    K, L, truth = permuted_problem(30, extra=5)
    L = L + 0.05 * np.random.default_rng(2).standard_normal(L.shape)
    L = (L + L.T) / 2
    gold = {i: int(truth[i]) for i in range(25)}  # five sources without gold
    found = np.random.default_rng(3).permutation(35)[:30]
    result = gold_versus_found(K, L, gold, found)
    Kr, Lr = (centre(zero_diagonal(M)) for M in (K, L))
    P = np.zeros((30, 35))
    P[list(gold), list(gold.values())] = 1
    G = Kr @ P @ Lr  # the truth's gradient with a dense permutation matrix
    from scipy.optimize import linear_sum_assignment

    rows, cols = linear_sum_assignment(G, maximize=True)
    assert result["gold_fixed_point"] == sum(int(c == gold.get(r)) for r, c in zip(rows, cols))
    assert result["gold_nearest"] == sum(int(G[i].argmax() == t) for i, t in gold.items())
    assert result["gold_objective"] == pytest.approx(np.trace(Kr @ P @ Lr @ P.T))
    assert 20 <= result["gold_fixed_point"] <= 25
