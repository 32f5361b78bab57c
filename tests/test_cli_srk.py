"""`kcooc srk classify` end to end on real verse pairs and Python FAQ questions, and on bad input."""

from __future__ import annotations

import gzip
import json
import os

import numpy as np
import pytest

from conftest import DATA, needs_wordnet, run

VERSES_TRAIN = os.path.join(DATA, "srk-verses-train.tsv")
VERSES_TEST = os.path.join(DATA, "srk-verses-test.tsv")
FAQ_TRAIN = os.path.join(DATA, "srk-faq-train.tsv")
FAQ_TEST = os.path.join(DATA, "srk-faq-test.tsv")

SMALL = """\
kernels:
  - {kind: srk, k: [1, 2, 3], pattern_types: [stem], variable_types: [stem]}
  - {kind: pr}
svm: {c_grid: [0.1, 1.0, 10.0], folds: 5}
"""


@pytest.fixture
def small_config(tmp_path):
    path = tmp_path / "small.yaml"
    path.write_text(SMALL)
    return str(path)


def read_labels(path, column=0):
    with open(path, encoding="utf-8") as f:
        return np.array([int(line.split("\t")[column]) for line in f])


def read_predictions(path):
    rows = [line.rstrip("\n").split("\t") for line in open(path, encoding="utf-8")]
    return np.array([int(r[0]) for r in rows]), np.array([float(r[1]) for r in rows])


@needs_wordnet
def test_paraphrase_classification_with_the_papers_system(tmp_path):
    out, metrics = tmp_path / "pred.tsv", tmp_path / "metrics.json"
    run("srk", "classify", "-c", "configs/srk-paraphrase.yaml", "--train", VERSES_TRAIN, "--test", VERSES_TEST,
        "-o", out, "--metrics", metrics, "-q")
    predictions, decision = read_predictions(out)
    labels = read_labels(VERSES_TEST)
    result = json.loads(metrics.read_text())
    assert predictions.size == labels.size == result["test_pairs"]
    assert np.array_equal(predictions, (decision > 0).astype(int))
    assert np.isclose(result["accuracy"], (predictions == labels).mean())
    assert result["accuracy"] > 0.85 and result["f1"] > 0.85  # KJV/WEB verse pairs are far from chance
    assert set(result["cv_scores"]) == {"0.01", "0.1", "1.0", "10.0", "100.0"}
    best = max(result["cv_scores"].items(), key=lambda kv: (kv[1], -float(kv[0])))[0]
    assert result["C"] == float(best)  # the best mean F1, ties to the smaller C


def test_answer_selection_ranks_by_question(tmp_path):
    out, metrics = tmp_path / "pred.tsv", tmp_path / "metrics.json"
    config = tmp_path / "faq.yaml"
    config.write_text(SMALL + "input: {qid_col: 1, label_col: 2, src_col: 3, tgt_col: 4}\n")
    printed = run("srk", "classify", "-c", config, "--train", FAQ_TRAIN, "--test", FAQ_TEST, "-o", out,
                  "--metrics", metrics).stderr
    result = json.loads(metrics.read_text())
    assert printed.startswith(f"test: map {result['map']:.3f}, mrr {result['mrr']:.3f} (C=")  # no f1 beside MAP/MRR
    from kcooc.metrics import grouped_ranking

    qids = [line.split("\t")[0] for line in open(FAQ_TEST, encoding="utf-8")]
    _, decision = read_predictions(out)
    expected = grouped_ranking(qids, read_labels(FAQ_TEST, column=1), decision)
    assert result["cv_objective"] == "mrr"
    assert np.isclose(result["mrr"], expected["mrr"]) and np.isclose(result["map"], expected["map"])
    chance = np.mean([1 / np.mean(np.arange(1, n + 1)) for n in [10] * 12])
    assert result["mrr"] > chance  # better than a random ranking of ten candidates


def test_cache_resumes_and_threads_do_not_change_the_output(tmp_path, small_config):
    cache = tmp_path / "cache"
    args = ["srk", "classify", "-c", small_config, "--train", VERSES_TRAIN, "--test", VERSES_TEST, "--svm-c", "1", "-q"]
    first = run(*args, "--cache-dir", cache, "-o", tmp_path / "a.tsv")
    tiles = sorted(cache.rglob("*.npz"))
    assert len(tiles) >= 4  # srk and pr terms, train and test blocks
    tiles[0].unlink()  # as if killed before that tile was written
    run(*args, "--cache-dir", cache, "-o", tmp_path / "b.tsv", "--jobs", "1")
    run(*args, "-o", tmp_path / "c.tsv")
    assert (tmp_path / "a.tsv").read_bytes() == (tmp_path / "b.tsv").read_bytes() == (tmp_path / "c.tsv").read_bytes()
    assert first.returncode == 0


def test_unknown_test_labels_give_predictions_without_metrics(tmp_path, small_config):
    test = tmp_path / "unlabelled.tsv.gz"
    with gzip.open(test, "wt", encoding="utf-8") as f:
        for line in open(VERSES_TEST, encoding="utf-8"):
            f.write("?\t" + line.split("\t", 1)[1])
    metrics = tmp_path / "m.json"
    run("srk", "classify", "-c", small_config, "--train", VERSES_TRAIN, "--test", test, "-o", tmp_path / "p.tsv",
        "--metrics", metrics, "--svm-c", "1", "-q")
    result = json.loads(metrics.read_text())
    assert "accuracy" not in result and result["test_pairs"] == 80
    assert len((tmp_path / "p.tsv").read_text().splitlines()) == 80


@pytest.mark.parametrize("content, message", [
    ("yes\tA man.\tA person.\n1\tB.\tC.\n", "label 'yes'"),
    ("1\tA man.\tA person.\n0\tonly two fields\n", "train.tsv:2: expected 3"),
    (b"1\tA man.\tA p\xffrson.\n0\tB.\tC.\n", "UTF-8"),
    ("", "empty input"),
    ("1\tA man.\t" + "word " * 300000 + "\n0\tB.\tC.\n", "train.tsv:1:"),
    ("1\tA man.\tA person.\n1\tB.\tC.\n", "both positive and negative"),
], ids=["bad-label", "missing-column", "bad-utf8", "empty", "huge-line", "one-class"])
def test_bad_training_input_fails_with_one_line_and_no_output(tmp_path, content, message, small_config):
    train = tmp_path / "train.tsv"
    train.write_bytes(content if isinstance(content, bytes) else content.encode("utf-8"))
    config = tmp_path / "c.yaml"
    config.write_text(SMALL + "input: {max_line_bytes: 100000}\n")
    out = tmp_path / "pred.tsv"
    result = run("srk", "classify", "-c", config, "--train", train, "--test", VERSES_TEST, "-o", out, "--svm-c", "1",
                 "-q", check=False)
    assert result.returncode == 2, result.stderr
    assert message in result.stderr and len(result.stderr.strip().splitlines()) == 1
    assert not out.exists()


def test_truncated_gzip_and_config_mistakes_exit_2(tmp_path, small_config):
    data = gzip.compress(open(VERSES_TRAIN, "rb").read())
    broken = tmp_path / "train.tsv.gz"
    broken.write_bytes(data[: len(data) // 2])
    result = run("srk", "classify", "-c", small_config, "--train", broken, "--test", VERSES_TEST, "--svm-c", "1", "-q",
                 check=False)
    assert result.returncode == 2
    assert result.stderr.startswith("kcooc srk classify: error: ") and "train.tsv.gz:1: truncated" in result.stderr
    bad = tmp_path / "bad.yaml"
    bad.write_text("kernels:\n  - {kind: srk, k: [2], pattern_types: [synonyms]}\n")
    result = run("srk", "classify", "-c", bad, "--train", VERSES_TRAIN, "--test", VERSES_TEST, check=False)
    assert result.returncode == 2 and "unknown word type 'synonyms'" in result.stderr
    bad.write_text("kernels:\n  - {kind: srk, k: [9]}\n")
    result = run("srk", "classify", "-c", bad, "--train", VERSES_TRAIN, "--test", VERSES_TEST, check=False)
    assert result.returncode == 2 and "'kernels[0].k[0]': expected an integer in [1, 8], got 9" in result.stderr


def test_long_sentences_are_cut_and_counted(tmp_path, small_config):
    train = tmp_path / "train.tsv"
    lines = open(VERSES_TRAIN, encoding="utf-8").read().splitlines()
    lines[0] = lines[0] + " and" * 200
    train.write_text("\n".join(lines) + "\n", encoding="utf-8")
    summary = tmp_path / "s.json"
    run("srk", "classify", "-c", small_config, "--train", train, "--test", VERSES_TEST, "--svm-c", "1", "-q",
        "-o", tmp_path / "p.tsv", "--summary", summary)
    assert json.loads(summary.read_text())["truncated_sentences"] == 1
