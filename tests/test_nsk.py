"""Nonstationary convolution kernels, kernel-LSH k-NN and Algorithm 1 against naive references."""

from __future__ import annotations

import itertools
import json
import os

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from kcooc.nsk.hashing import NeighbourIndex, knn_predict
from kcooc.nsk.learn import learn_sigma, nn_loss
from kcooc.nsk.model import ConvolutionKernel
from kcooc.nsk.structures import Labels, Structures, read_structures

from conftest import DATA, run

BROWN_TRAIN = os.path.join(DATA, "nsk-brown-train.jsonl")
BROWN_TEST = os.path.join(DATA, "nsk-brown-test.jsonl")


def paths(sequences, labels=None):
    flat = np.array([t for s in sequences for t in s], np.int64).reshape(-1, 2)
    ptr = np.r_[0, np.cumsum([len(s) for s in sequences])].astype(np.int64)
    return Structures("path", flat[:, 0].copy(), flat[:, 1].copy(), ptr, np.zeros(flat.shape[0] + 1, np.int64),
                      np.zeros(0, np.int64), np.array(labels if labels is not None else [0] * len(sequences)))


def trees(roots, labels=None):
    """roots: nested (edge, node, [children]) tuples."""
    items, kids, lengths = [], [], []
    for root in roots:
        local = []
        stack = [(root, -1)]
        while stack:
            (edge, node, children), parent = stack.pop()
            index = len(local)
            local.append((edge, node))
            kids.append([])
            if parent >= 0:
                kids[len(items) + parent].append(index)
            for child in reversed(children):
                stack.append((child, index))
        items.extend(local)
        lengths.append(len(local))
    flat = np.array(items, np.int64)
    return Structures("tree", flat[:, 0].copy(), flat[:, 1].copy(), np.r_[0, np.cumsum(lengths)].astype(np.int64),
                      np.r_[0, np.cumsum([len(k) for k in kids])].astype(np.int64),
                      np.array([c for k in kids for c in k], np.int64),
                      np.array(labels if labels is not None else [0] * len(roots)))


def tuple_kernel(a, b, sigma, vectors=None, gamma=0.6):
    if a[0] != b[0]:
        return 0.0
    if a[1] == b[1]:
        k_n = 1.0
    elif vectors is None:
        k_n = 0.0
    else:
        dot = float(vectors[a[1]] @ vectors[b[1]])
        k_n = np.exp(dot - 1) * max(0.0, (dot - gamma) / (1 - gamma))
    return sigma[a[0]] * sigma[b[0]] * k_n


def brute_path_kernel(s, t, k, lam, max_length):
    """§4.1: every pair of equal-length index subsequences, lambda^(l(i) + l(j)), l = last - first."""
    total = 0.0
    for p in range(1, min(len(s), len(t), max_length) + 1):
        for i in itertools.combinations(range(len(s)), p):
            for j in itertools.combinations(range(len(t)), p):
                total += np.prod([k(s[a], t[b]) for a, b in zip(i, j)]) * lam ** ((i[-1] - i[0]) + (j[-1] - j[0]))
    return total


def brute_tree_kernel(u, v, k, lam):
    """Zelenko et al. by its definition: sums over equal-length child subsequences, recursively."""
    m = k(u[:2], v[:2])
    if m == 0:
        return 0.0
    cu, cv = u[2], v[2]
    child_sum = 0.0
    for p in range(1, min(len(cu), len(cv)) + 1):
        for i in itertools.combinations(range(len(cu)), p):
            for j in itertools.combinations(range(len(cv)), p):
                product = np.prod([k(cu[a][:2], cv[b][:2]) for a, b in zip(i, j)])
                if product:
                    inner = sum(brute_tree_kernel(cu[a], cv[b], k, lam) for a, b in zip(i, j))
                    child_sum += lam ** ((i[-1] - i[0]) + (j[-1] - j[0])) * inner * product
    return m * (m + child_sum)


tuples = st.tuples(st.integers(0, 2), st.integers(0, 3))
sequences = st.lists(tuples, min_size=1, max_size=6)


@settings(max_examples=40, deadline=None)
@given(data=st.lists(sequences, min_size=2, max_size=4), sigma=st.lists(st.sampled_from([0.0, 1.0]), min_size=3,
                                                                              max_size=3),
       lam=st.floats(0.1, 1.0), max_length=st.integers(1, 4))
def test_path_kernel_equals_the_sum_over_all_index_subsequences(data, sigma, lam, max_length):
    sigma = np.array(sigma)
    kernel = ConvolutionKernel("path", lam, max_length, sigma)
    X = paths(data)
    gram = kernel.raw(X, np.arange(len(data)), X, np.arange(len(data)))
    k = lambda a, b: tuple_kernel(a, b, sigma)  # noqa: E731
    expected = np.array([[brute_path_kernel(s, t, k, lam, max_length) for t in data] for s in data])
    assert np.allclose(gram, expected)


def random_tree(rng, depth=0):
    children = [random_tree(rng, depth + 1) for _ in range(rng.integers(0, 4 if depth < 2 else 1))]
    return (int(rng.integers(0, 3)), int(rng.integers(0, 3)), children)


def test_tree_kernel_equals_its_recursive_definition():
    rng = np.random.default_rng(4)
    roots = [random_tree(rng) for _ in range(7)]
    sigma = np.array([1.0, 0.0, 1.0])
    kernel = ConvolutionKernel("tree", 0.7, sigma=sigma)
    gram = kernel.raw(trees(roots), np.arange(7), trees(roots), np.arange(7))
    k = lambda a, b: tuple_kernel(a, b, sigma)  # noqa: E731
    expected = np.array([[brute_tree_kernel(u, v, k, 0.7) for v in roots] for u in roots])
    assert np.allclose(gram, expected)
    assert expected.max() > 0


def test_word_vector_node_kernel_equals_its_formula():
    rng = np.random.default_rng(2)
    vectors = rng.normal(size=(4, 5))
    vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
    vectors[1] = vectors[0] * 0.9 + vectors[1] * 0.1  # a close pair, so the (.)_+ part is not always 0
    vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
    data = [[(0, 0), (1, 2), (0, 1)], [(0, 1), (1, 3)], [(0, 3), (0, 0)]]
    sigma = np.ones(2)
    kernel = ConvolutionKernel("path", 0.8, 3, sigma, vectors=vectors, gamma=0.2)
    gram = kernel.raw(paths(data), np.arange(3), paths(data), np.arange(3))
    k = lambda a, b: tuple_kernel(a, b, sigma, vectors, 0.2)  # noqa: E731
    expected = np.array([[brute_path_kernel(s, t, k, 0.8, 3) for t in data] for s in data])
    assert np.allclose(gram, expected) and expected[0, 1] > 0


def test_sigma_one_is_the_stationary_kernel_and_ids_do_not_matter():
    rng = np.random.default_rng(0)
    data = [[(int(rng.integers(4)), int(rng.integers(5))) for _ in range(rng.integers(2, 9))] for _ in range(12)]
    X = paths(data)
    stationary = ConvolutionKernel("path", 0.8, 4)(X, np.arange(12), X, np.arange(12))
    ones = ConvolutionKernel("path", 0.8, 4, np.ones(4))(X, np.arange(12), X, np.arange(12))
    assert np.array_equal(stationary, ones)
    # relabelling the ids (as a different fit set would) changes nothing
    edge_map, node_map = rng.permutation(10), rng.permutation(10)
    Y = paths([[(int(edge_map[e]), int(node_map[n])) for e, n in s] for s in data])
    assert np.allclose(ConvolutionKernel("path", 0.8, 4)(Y, np.arange(12), Y, np.arange(12)), stationary)
    assert np.allclose(np.diag(stationary), 1.0)


@pytest.mark.parametrize("kind", ["path", "tree"])
def test_gram_matrices_are_symmetric_positive_semidefinite(kind):
    rng = np.random.default_rng(5)
    if kind == "path":
        X = paths([[(int(rng.integers(3)), int(rng.integers(4))) for _ in range(rng.integers(1, 12))]
                   for _ in range(40)])
    else:
        X = trees([random_tree(rng) for _ in range(40)])
    sigma = np.array([1.0, 0.0, 1.0])
    gram = ConvolutionKernel(kind, 0.6, 5, sigma)(X, np.arange(40), X, np.arange(40))
    assert np.allclose(gram, gram.T)
    assert np.linalg.eigvalsh(gram)[0] > -1e-9


@pytest.fixture(scope="module")
def brown():
    edges, nodes = Labels(), Labels()
    train = read_structures(BROWN_TRAIN, edges, nodes)
    test = read_structures(BROWN_TEST, edges, nodes)
    return edges, nodes, train, test


def test_exact_neighbours_equal_a_full_gram(brown):
    _, _, train, test = brown
    kernel = ConvolutionKernel("path", 0.8, 4)
    found, similarity = NeighbourIndex(kernel, train, "exact").query(test, 3)
    gram = ConvolutionKernel("path", 0.8, 4)(test, np.arange(len(test)), train, np.arange(len(train)))
    assert np.allclose(similarity, -np.sort(-gram, axis=1)[:, :3])
    assert np.allclose(np.take_along_axis(gram, found, axis=1), similarity)
    graph, _ = NeighbourIndex(kernel, train, "exact").query(train, 1, exclude_self=True)
    assert not (graph[:, 0] == np.arange(len(train))).any()


@pytest.mark.parametrize("method", ["random-knn", "klsh"])
def test_hashed_graph_costs_about_n_to_the_1_5_and_finds_close_neighbours(brown, method):
    _, _, train, _ = brown
    n = len(train)
    kernel = ConvolutionKernel("path", 0.8, 4)
    graph, similarity = NeighbourIndex(kernel, train, method, seed=1).query(train, 1, exclude_self=True)
    assert kernel.evaluations < 4 * n ** 1.5 < n * n  # references + buckets, not all pairs
    assert (graph[:, 0] >= 0).all() and not (graph[:, 0] == np.arange(n)).any()
    exact = ConvolutionKernel("path", 0.8, 4)
    best = NeighbourIndex(exact, train, "exact").query(train, 1, exclude_self=True)[1][:, 0]
    assert np.all(similarity[:, 0] <= best + 1e-12)
    assert np.median(similarity[:, 0] / np.maximum(best, 1e-12)) > 0.6  # hashed neighbours are close ones


def test_loss_and_vote_equal_naive_loops():
    rng = np.random.default_rng(3)
    data = [[(int(rng.integers(3)), int(rng.integers(4))) for _ in range(rng.integers(2, 7))] for _ in range(15)]
    labels = rng.integers(0, 2, size=15)
    X = paths(data, labels)
    kernel = ConvolutionKernel("path", 0.8, 3)
    gram = ConvolutionKernel("path", 0.8, 3)(X, np.arange(15), X, np.arange(15))
    loss = 0.0
    for i in range(15):
        j = max((j for j in range(15) if j != i), key=lambda j: (gram[i, j], -j))
        loss += gram[i, j] * (labels[i] != labels[j]) - gram[i, j] * (labels[i] == labels[j] == 1)
    assert np.isclose(nn_loss(kernel, X), loss)
    neighbour_labels = np.array([[1, 0, 1, -1], [0, 1, 1, 0], [1, 0, 0, 1]])
    index = np.array([[5, 6, 7, -1], [1, 2, 3, 4], [1, 2, 3, 4]])
    predicted, share = knn_predict(neighbour_labels, index)
    assert list(predicted) == [1, 0, 1] and np.allclose(share, [2 / 3, 0.5, 0.5])


def test_algorithm1_zeroes_a_confusing_label_and_keeps_the_informative_one():
    """Edge 0 carries the class (node 0 or 1); edge 1 carries shared noise that dominates the stationary kernel."""
    rng = np.random.default_rng(0)
    data, labels = [], []
    for i in range(120):
        y = i % 2
        noise = [(1, int(rng.integers(0, 3))) for _ in range(8)]
        data.append([(0, y)] + noise)
        labels.append(y)
    X = paths(data, labels)
    kernel = ConvolutionKernel("path", 0.8, 3)
    report = learn_sigma(kernel, X, [1, 0], beta=10, alpha=3, k_graph=4, iterations=1,
                         index_options={"method": "exact"}, seed=0)
    assert report.sigma[1] == 0.0 and report.sigma[0] == 1.0
    stationary = nn_loss(ConvolutionKernel("path", 0.8, 3), X)
    assert nn_loss(ConvolutionKernel("path", 0.8, 3, report.sigma), X) < stationary


def test_cli_train_and_classify_on_brown_paths(tmp_path):
    config = tmp_path / "c.yaml"
    config.write_text("learn: {beta: 10, alpha: 2, label_share: 0.2}\nk: 8\n")
    model, summary = tmp_path / "m.npz", tmp_path / "s.json"
    log = run("nsk", "train", "-c", config, "-i", BROWN_TRAIN, "-o", model, "--summary", summary).stderr.splitlines()
    trained = json.loads(summary.read_text())
    assert trained["structures"] == 700 and trained["learned_labels"] >= 10
    # each learned label is logged by its tag name (the summary's order), then the zeroed ones
    assert [line.split(": loss")[0] for line in log[:-1]] == [name for name, _, _ in trained["losses"]]
    assert log[-1].startswith(f"{len(trained['zeroed_labels'])} of {trained['learned_labels']} learned labels skipped")
    metrics_npk, metrics_pk = tmp_path / "npk.json", tmp_path / "pk.json"
    run("nsk", "classify", "-m", model, "-i", BROWN_TEST, "-o", tmp_path / "p.tsv", "--metrics", metrics_npk)
    quiet = run("nsk", "classify", "-m", model, "-i", BROWN_TEST, "-o", tmp_path / "p2.tsv", "--jobs", "0",
                "--neighbours", "8", "-q")
    assert quiet.stderr == ""  # -q: no F1 line either
    run("nsk", "classify", "-m", model, "-i", BROWN_TEST, "-o", tmp_path / "pk.tsv", "--metrics", metrics_pk,
        "--stationary", "--hashing", "exact")
    assert (tmp_path / "p.tsv").read_bytes() == (tmp_path / "p2.tsv").read_bytes()
    npk, pk = json.loads(metrics_npk.read_text()), json.loads(metrics_pk.read_text())
    assert npk["structures"] == pk["structures"] == 300 and pk["kernel_evaluations"] >= 300 * 700
    assert npk["kernel_evaluations"] < pk["kernel_evaluations"]
    predictions = np.loadtxt(tmp_path / "p.tsv")
    labels = np.array([json.loads(line)["label"] for line in open(BROWN_TEST)])
    assert np.isclose(npk["accuracy"], (predictions[:, 0] == labels).mean())
    from kcooc import artifact

    header, arrays = artifact.load(str(model), "nsk")
    assert set(header["zeroed_labels"]) <= set(header["learned_labels"])
    assert len(header["zeroed_labels"]) == int((arrays["sigma"] == 0).sum())


def test_cli_trees(tmp_path):
    rows = [{"label": i % 2, "tree": {"edge": "root", "node": "bind" if i % 2 else "cut", "children": [
        {"edge": "arg0", "node": f"p{i % 3}"},
        {"edge": "arg1", "node": "x", "children": [{"edge": "mod", "node": "y"}]}]}}
        for i in range(30)]
    train = tmp_path / "trees.jsonl"
    train.write_text("\n".join(json.dumps(r) for r in rows) + "\n")
    config = tmp_path / "c.yaml"
    config.write_text("kernel: {kind: tree}\nhashing: {method: exact}\nlearn: {beta: 5, alpha: 2}\nk: 3\n")
    run("nsk", "train", "-c", config, "-i", train, "-o", tmp_path / "m.npz", "-q")
    metrics = tmp_path / "m.json"
    run("nsk", "classify", "-m", tmp_path / "m.npz", "-i", train, "-o", tmp_path / "p.tsv", "--metrics", metrics)
    assert json.loads(metrics.read_text())["f1"] == 1.0  # the root word decides the label


def test_a_long_line_is_cut_to_max_items_so_its_kernels_cost_a_bounded_amount(tmp_path):
    """A kernel value costs the product of the two lengths: a legal 1 MB line of 70,000 tuples made
    K(x, x) take the square of that (an 80 GB matrix). Paths keep their first max_items tuples, trees
    their first nodes in pre-order (still a tree); both are counted in the summary."""
    long_path = {"label": 1, "tuples": [["nn", f"w{i}"] for i in range(5000)]}
    train = tmp_path / "paths.jsonl"
    with open(BROWN_TRAIN) as f:
        train.write_text("".join(f.readline() for _ in range(20)) + json.dumps(long_path) + "\n")
    config, model, summary = tmp_path / "c.yaml", tmp_path / "m.npz", tmp_path / "s.json"
    config.write_text("hashing: {method: exact}\nlearn: {enabled: false}\nk: 3\nmax_items: 40\n")
    log = run("nsk", "train", "-c", config, "-i", train, "-o", model, "--summary", summary).stderr
    assert "1 structures cut to their first 40 items" in log
    assert json.loads(summary.read_text())["truncated_structures"] == 1
    from kcooc.nsk.model import load_nsk

    ptr = load_nsk(str(model))[1].train.ptr
    assert ptr[-1] - ptr[-2] == 40
    wide = {"label": 1, "tree": {"node": "r", "children": [{"node": f"c{i}", "children": [{"node": "g"}]}
                                                           for i in range(100)]}}
    trees = tmp_path / "trees.jsonl"
    trees.write_text(json.dumps(wide) + "\n" + json.dumps({"label": 0, "tree": {"node": "x"}}) + "\n")
    edges, nodes = Labels(), Labels()
    read = read_structures(str(trees), edges, nodes, max_items=7)
    assert read.truncated == 1 and list(np.diff(read.ptr)) == [7, 1]
    # the first seven nodes in pre-order: r, c0, g, c1, g, c2, g
    Structures.from_arrays("tree", read.arrays(), len(edges), len(nodes))
    assert list(read.children) == [1, 3, 5, 2, 4, 6]


@pytest.mark.parametrize("content, message", [
    ('{"label": 1, "tuples": [["nn", "dog"]]}\nnot json\n', "bad.jsonl:2: not JSON"),
    ('{"tuples": [["nn", "dog"]]}\n', "bad.jsonl:1: missing 'label'"),
    ('{"label": 1, "tuples": [["nn", "dog"]]}\n{"label": 0, "tree": {"node": "x"}}\n',
     "bad.jsonl:2: a tree among paths"),
    ('{"label": 3, "tuples": []}\n', "label must be 1 or 0"),
    ('{"label": 1, "tuples": [["nn"]]}\n', "[edge, node] pairs"),
    (b'{"label": 1, "tuples": [["nn", "d\xffg"]]}\n', "bad.jsonl:1: invalid UTF-8"),
    ("", "no structures"),
    ('{"label": 1, "tuples": [["nn", "dog"]]}\n{"label": 1, "tuples": [["vb", "run"]]}\n', "both labels"),
], ids=["not-json", "no-label", "mixed-kinds", "bad-label", "bad-tuple", "bad-utf8", "empty", "one-class"])
def test_bad_input_fails_with_one_line_and_no_model(tmp_path, content, message):
    bad = tmp_path / "bad.jsonl"
    bad.write_bytes(content if isinstance(content, bytes) else content.encode())
    result = run("nsk", "train", "-i", bad, "-o", tmp_path / "m.npz", "-q", check=False)
    assert result.returncode == 2 and message in result.stderr, result.stderr
    assert len(result.stderr.strip().splitlines()) == 1
    assert not (tmp_path / "m.npz").exists()


def test_cli_word_vector_node_kernel(tmp_path):
    """kernel.node_kernel vectors reads a word2vec file; words without a vector fall back to exact match."""
    from kcooc.nsk.model import node_vectors

    words = ["the", "a", "jury", "court", "said"]
    rng = np.random.default_rng(0)
    table = rng.normal(size=(len(words), 8))
    vec = tmp_path / "w.vec"
    vec.write_text(f"{len(words)} 8\n" + "".join(w + " " + " ".join(f"{x:.5f}" for x in row) + "\n"
                                                for w, row in zip(words, table)))
    vectors = node_vectors(["jury", "unknown", "the"], str(vec))
    assert np.allclose(np.linalg.norm(vectors, axis=1), [1, 0, 1])
    assert np.allclose(vectors[0], table[2] / np.linalg.norm(table[2]), atol=1e-4)
    config = tmp_path / "c.yaml"
    config.write_text(f"kernel: {{node_kernel: vectors, vectors: {vec}, gamma: 0.1}}\nhashing: {{method: exact}}\n"
                      "learn: {enabled: false}\nk: 3\n")
    run("nsk", "train", "-c", config, "-i", BROWN_TRAIN, "-o", tmp_path / "m.npz", "-q")
    metrics = tmp_path / "m.json"
    run("nsk", "classify", "-m", tmp_path / "m.npz", "-i", BROWN_TEST, "-o", tmp_path / "p.tsv", "--metrics", metrics)
    assert json.loads(metrics.read_text())["structures"] == 300
    config.write_text("kernel: {node_kernel: vectors}\n")
    result = run("nsk", "train", "-c", config, "-i", BROWN_TRAIN, "-o", tmp_path / "x.npz", check=False)
    assert result.returncode == 2 and "needs kernel.vectors" in result.stderr
