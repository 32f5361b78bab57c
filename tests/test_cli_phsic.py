"""The real `kcooc phsic` commands on the real dialogue excerpt, good input and bad."""

import gzip
import json
import os

import numpy as np
import pytest
from sklearn.metrics import roc_auc_score

from conftest import CANDIDATES, TRAIN, needs_wordllama, read_pairs, run


@pytest.fixture(scope="module")
def hashing_model(tmp_path_factory):
    path = tmp_path_factory.mktemp("m") / "hashing.npz"
    run("phsic", "train", "-i", TRAIN, "-o", path, "--encoder", "hashing", "--kernel", "cos")
    return str(path)


def scores_of(text, column=-1):
    return np.array([float(line.split("\t")[column]) for line in text.splitlines()])


def test_train_score_echo_and_score_only_agree(hashing_model, tmp_path):
    echoed = run("phsic", "score", "-m", hashing_model, "-i", CANDIDATES).stdout
    only = run("phsic", "score", "-m", hashing_model, "-i", CANDIDATES, "--score-only").stdout
    inputs = open(CANDIDATES, encoding="utf-8").read().splitlines()
    lines = echoed.splitlines()
    assert [line.rsplit("\t", 1)[0] for line in lines] == inputs
    assert [line.rsplit("\t", 1)[1] for line in lines] == only.splitlines()
    labels = np.array([int(line.split("\t")[2]) for line in inputs])
    assert roc_auc_score(labels, scores_of(only)) > 0.5


def test_candidates_mode_ranks_each_context(hashing_model):
    out = run("phsic", "score", "-m", hashing_model, "-i", CANDIDATES, "--candidates", "--block-size", "7").stdout
    rows = [line.split("\t") for line in out.splitlines()]
    assert len(rows) == 300
    for q in range(30):
        group = rows[q * 10 : (q + 1) * 10]
        assert len({r[0] for r in group}) == 1
        order = sorted(range(10), key=lambda i: (-float(group[i][3]), i))
        assert [int(group[i][4]) for i in order] == list(range(1, 11))


def test_outputs_are_byte_identical_across_runs_and_block_sizes(tmp_path):
    models = []
    for i, block in enumerate((8192, 8192, 333)):
        path = tmp_path / f"m{i}.npz"
        run("phsic", "train", "-i", TRAIN, "-o", path, "--kernel", "rbf", "--rank", "20", "--block-size", block)
        models.append(path)
    assert models[0].read_bytes() == models[1].read_bytes()
    a = run("phsic", "score", "-m", models[0], "-i", CANDIDATES, "--score-only").stdout
    b = run("phsic", "score", "-m", models[1], "-i", CANDIDATES, "--score-only").stdout
    c = run("phsic", "score", "-m", models[2], "-i", CANDIDATES, "--score-only").stdout
    assert a == b
    np.testing.assert_allclose(scores_of(a), scores_of(c), rtol=1e-6, atol=1e-12)
    assert sorted(os.listdir(tmp_path)) == ["m0.npz", "m1.npz", "m2.npz"]  # no .lock, work dir or temporary left


def test_stdin_gzip_header_names_and_summary(tmp_path, hashing_model):
    data = open(TRAIN, encoding="utf-8").read()
    gz = tmp_path / "train.tsv.gz"
    gz.write_bytes(gzip.compress(("context\tresponse\n" + data).encode()))
    summary = tmp_path / "summary.json"
    model = tmp_path / "named.npz"
    run("phsic", "train", "-i", gz, "--header", "--src-col", "context", "--tgt-col", "response", "-o", model,
        "--summary", summary)
    info = json.loads(summary.read_text())
    assert info["pairs"] == 2000 and info["read"]["lines"] == 2001 and info["output"] == str(model)
    from_stdin = run("phsic", "score", "-m", model, "--no-header", "--score-only", stdin=data).stdout
    from_file = run("phsic", "score", "-m", hashing_model, "-i", TRAIN, "--score-only").stdout
    assert from_stdin == from_file


@needs_wordllama
def test_precomputed_vectors(tmp_path):
    from kcooc.encoders import WordLlamaEncoder

    x, y = read_pairs()
    encoder = WordLlamaEncoder()
    np.save(tmp_path / "x.npy", encoder.encode(x))
    np.save(tmp_path / "y.npy", encoder.encode(y))
    model = tmp_path / "v.npz"
    run("phsic", "train", "--x-vectors", tmp_path / "x.npy", "--y-vectors", tmp_path / "y.npy", "-o", model)
    with_lines = run("phsic", "score", "-m", model, "-i", TRAIN, "--x-vectors", tmp_path / "x.npy",
                     "--y-vectors", tmp_path / "y.npy").stdout
    assert len(with_lines.splitlines()) == 2000
    wl = tmp_path / "wl.npz"
    run("phsic", "train", "-i", TRAIN, "-o", wl, "--encoder", "wordllama")
    through_encoder = run("phsic", "score", "-m", wl, "-i", TRAIN, "--score-only").stdout
    np.testing.assert_allclose(scores_of(with_lines), scores_of(through_encoder), rtol=1e-5, atol=1e-9)
    np.save(tmp_path / "short.npy", encoder.encode(x[:10]))
    bad = run("phsic", "score", "-m", model, "-i", TRAIN, "--x-vectors", tmp_path / "short.npy",
              "--y-vectors", tmp_path / "short.npy", check=False)
    assert bad.returncode == 2 and "more rows than the 10 vectors" in bad.stderr
    refused = run("phsic", "score", "-m", model, "-i", TRAIN, check=False)
    assert refused.returncode == 2 and "pass --x-vectors" in refused.stderr


def test_merge_of_shards_equals_training_on_all(tmp_path, hashing_model):
    lines = open(TRAIN, encoding="utf-8").read().splitlines(keepends=True)
    shards = []
    for i, (a, b) in enumerate(((0, 700), (700, 2000))):
        part = tmp_path / f"part{i}.tsv"
        part.write_text("".join(lines[a:b]), encoding="utf-8")
        shards.append(tmp_path / f"s{i}.npz")
        run("phsic", "train", "-i", part, "-o", shards[-1], "--encoder", "hashing")
    merged = tmp_path / "merged.npz"
    run("phsic", "merge", *shards, "-o", merged)
    a = run("phsic", "score", "-m", merged, "-i", CANDIDATES, "--score-only").stdout
    b = run("phsic", "score", "-m", hashing_model, "-i", CANDIDATES, "--score-only").stdout
    np.testing.assert_allclose(scores_of(a), scores_of(b), rtol=1e-9, atol=1e-15)
    other = tmp_path / "other.npz"
    run("phsic", "train", "-i", TRAIN, "-o", other, "--encoder", "hashing", "--kernel", "linear")
    refused = run("phsic", "merge", shards[0], other, "-o", tmp_path / "x.npz", check=False)
    assert refused.returncode == 2 and "differ" in refused.stderr


def test_fasttext_encoder_through_config(tmp_path, fasttext_model):
    config = tmp_path / "ft.yaml"
    config.write_text(f"encoder:\n  name: fasttext\n  model: {fasttext_model}\nkernel:\n  name: cos\n")
    model = tmp_path / "ft.npz"
    run("phsic", "train", "-c", config, "-i", TRAIN, "-o", model)
    out = run("phsic", "score", "-m", model, "-i", CANDIDATES, "--score-only").stdout
    assert len(out.splitlines()) == 300
    moved = run("phsic", "score", "-m", model, "-i", CANDIDATES, "--encoder-model", tmp_path / "gone.bin", check=False)
    assert moved.returncode == 2 and "gone.bin: fastText model not found" in moved.stderr


def test_print_config_and_version():
    printed = run("phsic", "train", "--kernel", "rbf", "--rank", "7", "--print-config").stdout
    assert "name: rbf" in printed and "rank: 7" in printed and not os.path.exists("unused.npz")
    assert run("--version").stdout.startswith("kcooc, version")
    assert "kcooc phsic score" in run("--help").stdout


BAD_INPUTS = {
    "ragged.tsv": (b"a\tb\nc\td\ne\n", "ragged.tsv:3: expected 2 tab-separated fields"),
    "badutf8.tsv": (b"a\tb\nc\t\xc3\x28\n", "badutf8.tsv:2: invalid UTF-8"),
    "empty-line.tsv": (b"a\tb\n\nc\td\n", "empty-line.tsv:2:"),
    "one-column.tsv": (b"a\nb\n", "column 2 does not exist"),
}


@pytest.mark.parametrize("name", sorted(BAD_INPUTS))
def test_bad_input_is_one_line_exit_2_and_no_output(tmp_path, name):
    data, message = BAD_INPUTS[name]
    path = tmp_path / name
    path.write_bytes(data)
    out = tmp_path / "model.npz"
    result = run("phsic", "train", "-i", path, "-o", out, check=False)
    assert result.returncode == 2
    assert message in result.stderr and "Traceback" not in result.stderr
    assert len(result.stderr.strip().splitlines()) == 1
    assert not out.exists() and os.listdir(tmp_path) == [name]


def test_bad_input_in_score_keeps_previous_output(tmp_path, hashing_model):
    out = tmp_path / "scores.tsv"
    out.write_text("previous\n")
    bad = tmp_path / "bad.tsv"
    bad.write_bytes(open(CANDIDATES, "rb").read() + b"broken line\n")
    result = run("phsic", "score", "-m", hashing_model, "-i", bad, "-o", out, check=False)
    assert result.returncode == 2 and "bad.tsv:301:" in result.stderr
    assert out.read_text() == "previous\n" and sorted(os.listdir(tmp_path)) == ["bad.tsv", "scores.tsv"]
    skipped = run("phsic", "score", "-m", hashing_model, "-i", bad, "-o", out, "--on-error", "skip",
                  "--summary", tmp_path / "s.json")
    assert skipped.returncode == 0 and len(out.read_text().splitlines()) == 300
    assert json.loads((tmp_path / "s.json").read_text())["read"]["skipped"] == {"wrong_field_count": 1}


def test_truncated_gzip_input(tmp_path):
    data = gzip.compress(open(TRAIN, "rb").read())
    path = tmp_path / "cut.tsv.gz"
    path.write_bytes(data[: len(data) // 3])
    result = run("phsic", "train", "-i", path, "-o", tmp_path / "m.npz", check=False)
    assert result.returncode == 2 and "truncated or corrupt input" in result.stderr


def test_wrong_model_kind_config_typo_and_missing_files(tmp_path):
    not_model = tmp_path / "x.npz"
    np.savez(not_model, a=np.zeros(2))
    result = run("phsic", "score", "-m", not_model, "-i", TRAIN, check=False)
    assert result.returncode == 2 and "not a kcooc model file" in result.stderr
    from kcooc import artifact

    other = tmp_path / "ca.npz"
    artifact.save(str(other), "ca", {"v": np.zeros(2)}, {})
    result = run("phsic", "score", "-m", other, "-i", TRAIN, check=False)
    assert result.returncode == 2 and "is a 'ca' model, expected a 'phsic' model" in result.stderr
    typo = tmp_path / "typo.yaml"
    typo.write_text("kernel:\n  nmae: rbf\n")
    result = run("phsic", "train", "-c", typo, "-i", TRAIN, "-o", tmp_path / "m.npz", check=False)
    assert result.returncode == 2 and "unknown config key 'kernel.nmae' (did you mean 'kernel.name'?)" in result.stderr
    result = run("phsic", "train", "-i", tmp_path / "missing.tsv", "-o", tmp_path / "m.npz", check=False)
    assert result.returncode == 2 and "missing.tsv: cannot open" in result.stderr
    result = run("phsic", "train", "-i", TRAIN, "-o", tmp_path / "no" / "dir" / "m.npz", check=False)
    assert result.returncode == 2 and "does not exist" in result.stderr
    result = run("phsic", "train", "-i", TRAIN, "-o", tmp_path / "m.npz", "--sigma", "wide", check=False)
    assert result.returncode == 2 and "sigma" in result.stderr
    empty = tmp_path / "empty.tsv"
    empty.write_text("")
    result = run("phsic", "train", "-i", empty, "-o", tmp_path / "m.npz", check=False)
    assert result.returncode == 2 and "empty.tsv: empty input" in result.stderr


def test_icd_from_stdin_with_a_pivot_sample_is_deterministic(tmp_path):
    config = tmp_path / "rbf.yaml"
    config.write_text("kernel:\n  name: rbf\n  rank: 30\n  sample: 500\n  normalize: true\nseed: 7\n")
    data = open(TRAIN, encoding="utf-8").read()
    models = [tmp_path / f"m{i}.npz" for i in range(2)]
    for model in models:
        run("phsic", "train", "-c", config, "-o", model, "--block-size", "256", "--work-dir", tmp_path, stdin=data)
    assert models[0].read_bytes() == models[1].read_bytes()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["m0.npz", "m1.npz", "rbf.yaml"]  # spool removed
    from kcooc.phsic.model import load_phsic

    header, model = load_phsic(str(models[0]))
    assert header["config"]["kernel"]["sample"] == 500 and model.x_map.icd.dim == 30 and model.moments.n == 2000
    other_seed = tmp_path / "seed.npz"
    run("phsic", "train", "-c", config, "-o", other_seed, "--seed", "8", "-i", TRAIN)
    assert other_seed.read_bytes() != models[0].read_bytes()
