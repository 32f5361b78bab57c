"""The library layer: shared helpers against naive definitions, the estimators of the Python API against
the functions they wrap, persistence round trips, and the layers: the maths imports neither the engine,
io nor the command line; commands import pipelines, never the reverse; no import circle; no module
imports another's private names."""

from __future__ import annotations

import os
import pkgutil
import subprocess
import sys

import numpy as np
import pytest

from kcooc.errors import InputError

from conftest import DATA, read_pairs

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def test_normalize_kernel_is_the_definition(rng):
    from kcooc.linalg import normalize_kernel

    K, row, col = rng.random((4, 3)), rng.random(4), np.r_[rng.random(2), 0.0]
    naive = np.array([[K[i, j] / np.sqrt(row[i] * col[j]) if row[i] * col[j] > 0 else 0.0 for j in range(3)]
                      for i in range(4)])
    assert np.allclose(normalize_kernel(K, row, col), naive) and (normalize_kernel(K, row, col)[:, 2] == 0).all()
    stack = np.stack([K, 2 * K])
    out = normalize_kernel(stack, np.stack([row, row]), np.stack([col, 4 * col]))
    assert np.allclose(out[0], naive) and np.allclose(out[1], naive)


def test_word_vector_files_know_what_they_hold(tmp_path):
    from kcooc.wordvectors import open_word_vectors, read_word2vec_text, write_word2vec_text

    path = str(tmp_path / "w.vec")
    write_word2vec_text(path, ["a", "b"], np.array([[1.0, 2.0], [3.0, 4.5]], np.float32))
    words, vectors = read_word2vec_text(path)
    assert words == ["a", "b"] and vectors.tolist() == [[1.0, 2.0], [3.0, 4.5]]
    found, known = open_word_vectors(path).lookup(["b", "zzz"])
    assert found.tolist() == [[3.0, 4.5], [0.0, 0.0]] and known.tolist() == [True, False]
    with pytest.raises(InputError, match="fastText model not found"):
        open_word_vectors(str(tmp_path / "none.bin"))


def test_phsic_save_load_round_trip(tmp_path):
    from kcooc import PHSIC
    from kcooc.encoders import HashingEncoder
    from kcooc.phsic.model import load_phsic

    x, y = read_pairs(n=300)
    encoder = HashingEncoder(256)
    X, Y = encoder.encode(x), encoder.encode(y)
    model = PHSIC("rbf", rank=20).fit(X.toarray(), Y.toarray())
    path = str(tmp_path / "m.npz")
    model.save(path, config={"seed": 0}, encoders=[encoder.spec()] * 2, data_sha256="ab", note="kept")
    header, loaded = load_phsic(path)
    assert header["note"] == "kept" and header["encoders"][0]["name"] == "hashing"
    X20, Y20 = X[:20].toarray(), Y[:20].toarray()
    assert np.array_equal(loaded.score(X20, Y20), model.score(X20, Y20))
    with pytest.raises(InputError, match="is a 'phsic' model, expected a 'nsk' model"):
        from kcooc.nsk.model import load_nsk

        load_nsk(path)


def test_ca_vectors_save_load_round_trip(tmp_path, rng):
    import scipy.sparse as sp

    from kcooc import CorrespondenceAnalysis
    from kcooc.ca.model import load_vectors

    N = sp.csr_matrix(rng.integers(0, 5, size=(12, 12)).astype(float))
    model = CorrespondenceAnalysis(dims=3, seed=0).fit(N)
    words = [f"w{i}" for i in range(12)]
    path = str(tmp_path / "v.npz")
    model.save(path, words, np.arange(12), config={"dims": 3})
    loaded_words, vectors = load_vectors(path)
    assert loaded_words == words and np.array_equal(vectors, model.vectors_)


def test_nsk_classifier_without_learning_is_the_majority_of_the_exact_neighbours():
    from kcooc import ConvolutionKernel, NSKClassifier
    from kcooc.nsk.structures import Labels, read_structures

    edges, nodes = Labels(), Labels()
    train = read_structures(os.path.join(DATA, "nsk-brown-train.jsonl"), edges, nodes, "path").subset(np.arange(120))
    test = read_structures(os.path.join(DATA, "nsk-brown-test.jsonl"), edges, nodes, "path").subset(np.arange(30))
    kernel = ConvolutionKernel("path", 0.8, 3)
    predictions, share = NSKClassifier(kernel, k=5, hashing="exact", learn=False).fit(train).vote(test)
    gram = kernel(test, np.arange(len(test)), train, np.arange(len(train)))
    nearest = np.argsort(-gram, axis=1, kind="stable")[:, :5]
    votes = train.labels[nearest].mean(axis=1)
    assert np.allclose(share, votes)
    assert np.array_equal(predictions[votes != 0.5], (votes[votes != 0.5] > 0.5).astype(int))


def test_nsk_classifier_learns_sigma_as_algorithm_1():
    from kcooc import ConvolutionKernel, NSKClassifier
    from kcooc.nsk.learn import learn_sigma
    from kcooc.nsk.structures import Labels, read_structures

    edges, nodes = Labels(), Labels()
    train = read_structures(os.path.join(DATA, "nsk-brown-train.jsonl"), edges, nodes, "path").subset(np.arange(150))
    kernel = ConvolutionKernel("path", 0.8, 3)
    learned = NSKClassifier(kernel, hashing="exact", beta=5, alpha=1, label_share=0.1, seed=3).fit(train, len(edges))
    report = learn_sigma(kernel, train, learned.learned_labels_, 5, 1, 4, 1, {"method": "exact", "bits": None,
                         "reference_size": None, "subset_size": None}, 3)
    assert np.array_equal(learned.sigma_, report.sigma) and learned.learned_labels_
    with pytest.raises(InputError, match="hashing must be one of"):
        NSKClassifier(kernel, hashing="lsh")


def test_kernelized_sorting_estimator_is_the_functions_it_wraps():
    from kcooc import KernelizedSorting
    from kcooc.ks.align import kernelized_sorting
    from kcooc.ks.features import char_ngram_vectors, linear_kernel

    names = open(os.path.join(DATA, "names-en.txt"), encoding="utf-8").read().splitlines()[:20]
    K = linear_kernel(char_ngram_vectors(names, 1, 2))
    order = np.random.default_rng(1).permutation(20)
    L = K[np.ix_(order, order)]
    fitted = KernelizedSorting("ks").fit(K, L)
    direct = kernelized_sorting(K, L)
    assert np.array_equal(fitted.match_, direct.match) and fitted.objective_ == direct.objective
    with pytest.raises(InputError, match="needs seed alignments"):
        KernelizedSorting("s-z").fit(K, L)
    with pytest.raises(InputError, match="method must be one of"):
        KernelizedSorting("sort")


def test_string_rewriting_kernel_call_is_the_cli_gram():
    from kcooc import StringRewritingKernel
    from kcooc.encoders import tokenize

    with open(os.path.join(DATA, "srk-verses-train.tsv"), encoding="utf-8") as f:
        rows = [line.rstrip("\n").split("\t") for line in f]
    pairs = [(tokenize(r[1], True, True), tokenize(r[2], True, True)) for r in rows[:40]]
    kernel = StringRewritingKernel([{"kind": "srk", "k": [1, 2], "pattern_types": ["stem"], "variable_types": ["stem"]},
                                    {"kind": "pr"}], tile_rows=7)
    train_gram, test_gram, _ = kernel.train_test(pairs[:30], pairs[30:])
    assert np.allclose(kernel(pairs[:30]), train_gram) and np.allclose(kernel(pairs[30:], pairs[:30]), test_gram)
    with pytest.raises(InputError):
        StringRewritingKernel([{"kind": "srk", "k": [9]}])


# -- the layers ---------------------------------------------------------------------------------------
# The maths: every module but the command line, inputs and outputs, the engines, configs, pipelines (and
# the passes they run) and file formats, which are listed here; a new module is maths unless added.
CLI = ("kcooc.cli", "kcooc.__main__")
NOT_MATHS = CLI + (
    "kcooc.io", "kcooc.engine", "kcooc.config", "kcooc.artifact", "kcooc.wordvectors", "kcooc.pairs",
    "kcooc.phsic.stream", "kcooc.filtering.pipeline", "kcooc.filtering.job", "kcooc.filtering.passes",
    "kcooc.filtering.spool", "kcooc.filtering.workspace", "kcooc.filtering.persistence", "kcooc.filtering.report",
    "kcooc.nsk.structures",
    "kcooc.ca.corpus", "kcooc.ca.plot", "kcooc.ca.report", "kcooc.srk.cache")


def within(module: str, packages: tuple[str, ...]) -> bool:
    return any(module == p or module.startswith(p + ".") for p in packages)


def is_command_line(module: str) -> bool:
    """The CLI package, each tool's commands, and the click options a command declares (``filtering/options.py``)."""
    return within(module, CLI) or module.endswith((".commands", ".options"))


def import_graph() -> dict[str, set[str]]:
    """Every module of kcooc -> the kcooc modules it imports anywhere in its file (lazy imports too),
    less its own packages' faces (``from .. import artifact`` names a module, not the package)."""
    import ast

    root = os.path.join(ROOT, "kcooc")
    files = {}
    for directory, _, names in os.walk(root):
        for name in names:
            if name.endswith(".py"):
                path = os.path.join(directory, name)
                module = os.path.relpath(path, ROOT)[:-3].replace(os.sep, ".")
                files[module.removesuffix(".__init__")] = path
    graph = {}
    for module, path in files.items():
        package = module.split(".") if path.endswith("__init__.py") else module.split(".")[:-1]
        targets = set()
        for node in ast.walk(ast.parse(open(path, encoding="utf-8").read())):
            if isinstance(node, ast.ImportFrom):
                base = ".".join(package[: len(package) - node.level + 1] + [node.module or ""]).strip(".") \
                    if node.level else node.module
                targets |= {name for name in [base, *(f"{base}.{a.name}" for a in node.names)] if name in files}
            elif isinstance(node, ast.Import):
                targets |= {a.name for a in node.names if a.name in files}
        graph[module] = {t for t in targets if t != module and not module.startswith(t + ".")}
    return graph


def test_the_import_graph_has_no_circle():
    graph, state, circles = import_graph(), {}, []

    def visit(module, path):
        state[module] = "open"
        for target in sorted(graph[module]):
            if state.get(target) == "open":
                circles.append(path[path.index(target):] + [target])
            elif target not in state:
                visit(target, path + [target])
        state[module] = "done"

    for module in sorted(graph):
        if module not in state:
            visit(module, [module])
    assert circles == []


def is_maths(module: str) -> bool:
    return module != "kcooc" and not within(module, NOT_MATHS) and not is_command_line(module) \
        and not module.endswith(".config")


def test_the_maths_imports_neither_the_engine_nor_io_nor_the_command_line():
    graph = import_graph()
    assert ({"kcooc.phsic.model", "kcooc.filtering.classifier", "kcooc.filtering.learning", "kcooc.ks.align",
             "kcooc.linalg"} <= set(filter(is_maths, graph)))
    broken = {m: sorted(t for t in targets if within(t, ("kcooc.engine", "kcooc.io")) or is_command_line(t))
              for m, targets in graph.items() if is_maths(m)}
    assert {m: t for m, t in broken.items() if t} == {}


def test_commands_import_pipelines_never_the_reverse():
    graph = import_graph()
    assert "kcooc.filtering.pipeline" in graph["kcooc.filtering.commands"]
    broken = {m: sorted(t for t in targets if is_command_line(t))
              for m, targets in graph.items() if not is_command_line(m)}
    assert {m: t for m, t in broken.items() if t} == {}


def test_no_module_imports_another_modules_private_names():
    import ast

    private = []
    for directory, _, names in os.walk(os.path.join(ROOT, "kcooc")):
        for name in (n for n in names if n.endswith(".py")):
            path = os.path.join(directory, name)
            for node in ast.walk(ast.parse(open(path, encoding="utf-8").read())):
                if isinstance(node, ast.ImportFrom) and (node.level or (node.module or "").startswith("kcooc")):
                    private += [f"{os.path.relpath(path, ROOT)}: {a.name}" for a in node.names
                                if a.name.startswith("_") and not a.name.startswith("__")]
    assert private == []


def test_library_modules_import_neither_click_nor_tqdm_nor_the_command_line():
    import kcooc

    modules = [m.name for m in pkgutil.walk_packages(kcooc.__path__, "kcooc.")
               if not is_command_line(m.name) and not m.name.endswith(".plot")]
    code = ("import importlib, sys\n"
            f"for name in {modules!r}:\n"
            "    importlib.import_module(name)\n"
            "print(sorted(m for m in sys.modules if m in ('click', 'tqdm') or m.startswith('kcooc.cli')))")
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[]"
