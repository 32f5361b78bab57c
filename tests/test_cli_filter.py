"""`kcooc filter-parallel` end to end on the real en-ja excerpt (Debian descriptions + LibreOffice)."""

import fcntl
import gzip
import io
import json
import os
import signal
import subprocess
import sys
import time
import zipfile

import pytest
import yaml

from conftest import DATA, invoke, run

EN_JA = os.path.join(DATA, "en-ja.tsv")
CONFIG = os.path.join(os.path.dirname(__file__), "..", "configs", "filter-hashing.yaml")
SMALL = ["--task-lines", "300", "--block-size", "128"]


def filter_run(tmp_path, *args, name="kept.tsv", check=True, stdin=None):
    out = tmp_path / name
    result = run("filter-parallel", "-c", CONFIG, "-o", out, "-q", *args, stdin=stdin, check=check)
    return result, out


def read(path):
    with open(path, "rb") as f:
        return f.read()


def annotated_rows(path):
    with open(path, encoding="utf-8") as f:
        return [line.rstrip("\n").split("\t") for line in f]


def test_filter_keeps_the_top_ratio_and_explains_every_drop(tmp_path):
    _, out = filter_run(tmp_path, "-i", EN_JA, "--annotated", tmp_path / "why.tsv", "--scores", tmp_path / "scores.txt",
                        "--summary", tmp_path / "summary.json")
    rows = annotated_rows(tmp_path / "why.tsv")
    lines = open(EN_JA, encoding="utf-8").read().splitlines()
    assert [r[:3] for r in rows] == [line.split("\t") for line in lines]
    kept = [line for line, r in zip(lines, rows) if r[4] == "keep"]
    assert read(out).decode().splitlines() == kept
    assert [r[3] for r in rows] == open(tmp_path / "scores.txt").read().splitlines()
    summary = json.loads(open(tmp_path / "summary.json").read())
    assert summary["kept"] == len(kept) == round(0.8 * summary["eligible"])
    reasons = {}
    for r in rows:
        if r[4] == "drop":
            reasons[r[5]] = reasons.get(r[5], 0) + 1
    assert reasons == summary["dropped"]
    assert reasons["identical_sides"] > 10 and reasons["not_selected"] > 100  # LibreOffice keeps names like ACOSH
    kept_scores = [float(r[3]) for r in rows if r[4] == "keep"]
    unselected = [float(r[3]) for r in rows if r[5] == "not_selected"]
    assert min(kept_scores) >= max(unselected) and min(kept_scores) == pytest.approx(summary["lowest_kept_score"])
    assert all(r[3] == "nan" for r in rows if r[5] not in ("-", "not_selected", "duplicate"))


def test_rerun_jobs_and_compressed_io_are_byte_identical(tmp_path):
    filter_run(tmp_path, "-i", EN_JA, "--annotated", tmp_path / "a1.tsv", *SMALL, name="k1.tsv")
    filter_run(tmp_path, "-i", EN_JA, "--annotated", tmp_path / "a2.tsv", *SMALL, name="k2.tsv")
    filter_run(tmp_path, "-i", EN_JA, "--annotated", tmp_path / "a3.tsv", *SMALL, "--jobs", "2", name="k3.tsv")
    with gzip.open(tmp_path / "in.tsv.gz", "wb") as f:
        f.write(read(EN_JA))
    filter_run(tmp_path, "-i", tmp_path / "in.tsv.gz", *SMALL, name="k4.tsv.gz")
    assert read(tmp_path / "k1.tsv") == read(tmp_path / "k2.tsv") == read(tmp_path / "k3.tsv")
    assert read(tmp_path / "a1.tsv") == read(tmp_path / "a2.tsv") == read(tmp_path / "a3.tsv")
    assert gzip.decompress(read(tmp_path / "k4.tsv.gz")) == read(tmp_path / "k1.tsv")
    stdout = run("filter-parallel", "-c", CONFIG, "-q", *SMALL, stdin=open(EN_JA, encoding="utf-8").read()).stdout
    assert stdout.encode() == read(tmp_path / "k1.tsv")


@pytest.fixture(scope="module")
def dask_scheduler():
    distributed = pytest.importorskip("distributed")
    cluster = distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True, host="127.0.0.1",
                                       dashboard_address=None)
    try:
        yield cluster.scheduler_address
    finally:
        cluster.close()


@pytest.mark.parametrize("kernel, scorer", [("cos", "phsic"), ("rbf", "phsic")])  # learned: the test below
def test_dask_engine_is_byte_identical_to_serial(tmp_path, dask_scheduler, kernel, scorer):
    common = ["-i", EN_JA, "--kernel", kernel, "--rank", "30", "--scorer", scorer, *SMALL]
    filter_run(tmp_path, *common, "--annotated", tmp_path / "serial.tsv", "--save-model", tmp_path / "serial.npz",
               name="serial-kept.tsv")
    filter_run(tmp_path, *common, "--annotated", tmp_path / "dask.tsv", "--save-model", tmp_path / "dask.npz",
               "--engine", "dask", "--scheduler", dask_scheduler, "--summary", tmp_path / "s.json",
               name="dask-kept.tsv")
    assert read(tmp_path / "serial.tsv") == read(tmp_path / "dask.tsv")
    assert read(tmp_path / "serial-kept.tsv") == read(tmp_path / "dask-kept.tsv")
    assert read(tmp_path / "serial.npz") == read(tmp_path / "dask.npz")
    engine = json.loads(open(tmp_path / "s.json").read())["engine"]
    assert engine == {"engine": "dask", "scheduler": dask_scheduler, "workers": 2}


def test_skipped_lines_leave_serial_jobs_and_dask_byte_identical(tmp_path, dask_scheduler):
    """With malformed lines skipped (--on-error skip), CRLF endings and a last line without a newline,
    serial, --jobs 2 and Dask runs write the same bytes, and the kept lines are the input lines as
    the reader read them (the write pass cuts them out of the undecoded input); so are their saved models."""
    lines = read(EN_JA).splitlines(keepends=True)
    malformed = [b"bad \xff utf-8\tx\ty\n", b"one field\n", b"\n", b"a\tb\tc\td\n"]
    awkward = b"".join(line.replace(b"\n", b"\r\n") if k % 5 == 0 else line + malformed[k // 7 % 4] * (k % 7 == 0)
                       for k, line in enumerate(lines)).rstrip(b"\r\n")
    (tmp_path / "in.tsv").write_bytes(awkward)
    common = ["-i", tmp_path / "in.tsv", "--on-error", "skip", "--scorer", "learned", *SMALL]
    for name, engine in (("serial", []), ("jobs", ["--jobs", "2"]),
                         ("dask", ["--engine", "dask", "--scheduler", dask_scheduler])):
        filter_run(tmp_path, *common, *engine, "--annotated", tmp_path / f"{name}.tsv", "--scores",
                   tmp_path / f"{name}.txt", "--summary", tmp_path / f"{name}.json", "--save-model",
                   tmp_path / f"{name}.npz", name=f"{name}-kept.tsv")
    for suffix in (".tsv", ".txt", "-kept.tsv", ".npz"):
        serial = read(tmp_path / f"serial{suffix}")
        assert serial == read(tmp_path / f"jobs{suffix}") == read(tmp_path / f"dask{suffix}")
    engine = json.loads(open(tmp_path / "dask.json").read())["engine"]
    assert engine == {"engine": "dask", "scheduler": dask_scheduler, "workers": 2}
    skipped = json.loads(open(tmp_path / "serial.json").read())["read"]["skipped"]
    assert sum(skipped.values()) == sum(1 for k in range(len(lines)) if k % 7 == 0 and k % 5)
    rows = annotated_rows(tmp_path / "serial.tsv")
    kept = "".join("\t".join(r[:3]) + "\n" for r in rows if r[4] == "keep")
    assert len(rows) == len(lines) and read(tmp_path / "serial-kept.tsv") == kept.encode()


def test_saved_model_scores_like_phsic_score_and_merges_from_shards(tmp_path):
    rules_off = ["--threshold", "-1e9"]
    filter_run(tmp_path, "-i", EN_JA, "--scores", tmp_path / "scores.txt", "--save-model", tmp_path / "m.npz",
               *rules_off)
    scored = run("phsic", "score", "-m", tmp_path / "m.npz", "-i", EN_JA, "--score-only").stdout.splitlines()
    mine = open(tmp_path / "scores.txt").read().splitlines()
    assert [s for s, m in zip(scored, mine) if m != "nan"] == [m for m in mine if m != "nan"]
    filter_run(tmp_path, "-i", EN_JA, "--model", tmp_path / "m.npz", "--scores", tmp_path / "again.txt", name="k2.tsv")
    assert open(tmp_path / "again.txt").read().splitlines() == mine


def test_models_of_two_shards_merge_into_the_model_of_the_whole(tmp_path):
    lines = open(EN_JA, encoding="utf-8").read().splitlines(keepends=True)
    (tmp_path / "a.tsv").write_text("".join(lines[:700]), encoding="utf-8")
    (tmp_path / "b.tsv").write_text("".join(lines[700:]), encoding="utf-8")
    for part in ("a", "b"):
        filter_run(tmp_path, "-i", tmp_path / f"{part}.tsv", "--save-model", tmp_path / f"{part}.npz",
                   name=f"{part}.out")
    filter_run(tmp_path, "-i", EN_JA, "--save-model", tmp_path / "whole.npz", "--scores", tmp_path / "whole.txt")
    run("phsic", "merge", tmp_path / "a.npz", tmp_path / "b.npz", "-o", tmp_path / "merged.npz")
    filter_run(tmp_path, "-i", EN_JA, "--model", tmp_path / "merged.npz", "--scores", tmp_path / "merged.txt",
               name="m.out")
    whole = [float(s) for s in open(tmp_path / "whole.txt").read().split()]
    merged = [float(s) for s in open(tmp_path / "merged.txt").read().split()]
    assert merged == pytest.approx(whole, rel=1e-6, abs=1e-12, nan_ok=True)


def test_second_run_on_a_locked_output_exits_75_and_leaves_it_alone(tmp_path):
    out = tmp_path / "kept.tsv"
    out.write_text("previous\n")
    with open(str(out) + ".lock", "a+") as lock:
        fcntl.flock(lock.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
        result, _ = filter_run(tmp_path, "-i", EN_JA, check=False)
    assert result.returncode == 75
    assert "another run" in result.stderr and "Traceback" not in result.stderr
    assert out.read_text() == "previous\n"
    filter_run(tmp_path, "-i", EN_JA)  # the lock is free again
    assert out.read_text() != "previous\n"


def test_sigkill_leaves_the_previous_output_and_the_next_run_cleans_up(tmp_path):
    big = tmp_path / "big.tsv"
    text = read(EN_JA)
    with open(big, "wb") as f:
        for _ in range(60):
            f.write(text)
    out = tmp_path / "kept.tsv"
    out.write_text("previous\n")
    args = [sys.executable, "-m", "kcooc", "filter-parallel", "-c", CONFIG, "-i", str(big), "-o", str(out), "-q",
            "--annotated", str(tmp_path / "why.tsv"), "--task-lines", "2000"]
    process = subprocess.Popen(args, stderr=subprocess.PIPE)
    deadline = time.time() + 60
    while time.time() < deadline and not any(n.startswith(".kcooc-filter-") for n in os.listdir(tmp_path)):
        time.sleep(0.05)
    time.sleep(0.5)
    os.kill(process.pid, signal.SIGKILL)
    process.wait()
    assert out.read_text() == "previous\n"
    assert any(n.startswith(".kcooc-filter-kept.tsv-") for n in os.listdir(tmp_path))
    assert subprocess.run(args).returncode == 0
    assert out.read_text() != "previous\n"
    assert sorted(os.listdir(tmp_path)) == ["big.tsv", "kept.tsv", "why.tsv"]  # the lock file goes with its run


def test_word_budget_and_threshold(tmp_path):
    clash = invoke("filter-parallel", "-c", CONFIG, "-i", EN_JA, "-o", tmp_path / "kept.tsv", "--word-budget", "5000",
                   "--top-k", "3")
    assert clash.returncode == 2 and "choose one" in clash.stderr
    _, out = filter_run(tmp_path, "-i", EN_JA, "--word-budget", "5000")  # replaces the config's top_ratio
    kept = read(out).decode().splitlines()
    assert 4800 < sum(len(line.split("\t")[0].split()) for line in kept) <= 5000
    filter_run(tmp_path, "-i", EN_JA, "--scores", tmp_path / "s.txt", "-c", os.devnull)
    ranked = sorted(float(s) for s in open(tmp_path / "s.txt").read().split() if s != "nan")
    median = (ranked[500] + ranked[501]) / 2  # between two printed scores: printing rounds them
    filter_run(tmp_path, "-i", EN_JA, "--threshold", median, "--annotated", tmp_path / "t.tsv", "-c", os.devnull)
    rows = annotated_rows(tmp_path / "t.tsv")
    assert {r[4] for r in rows if r[3] != "nan" and float(r[3]) >= median} == {"keep"}
    assert {r[5] for r in rows if r[3] != "nan" and float(r[3]) < median} == {"below_threshold"}


@pytest.mark.parametrize("content, args, message", [
    (b"a\tb\n", ["--tgt-col", "4"], "column 4 does not exist"),
    (b"one\tpair\tx\nbad \xff byte\tx\tx\n", [], "2: invalid UTF-8"),
    (b"one\tpair\tx\n\nnext\tpair\tx\n", [], "2: expected 3 tab-separated fields, found empty line"),
    (b"one\tpair\tx\nshort\n", [], "2: expected 3 tab-separated fields"),
])
def test_bad_input_is_one_line_exit_2_and_no_output(tmp_path, content, args, message):
    bad = tmp_path / "bad.tsv"
    bad.write_bytes(content)
    result = run("filter-parallel", "-i", bad, "-o", tmp_path / "kept.tsv", "-q", "--on-error", "fail", *args,
                 check=False)
    assert result.returncode == 2 and message in result.stderr and "Traceback" not in result.stderr
    assert not (tmp_path / "kept.tsv").exists()
    assert [n for n in os.listdir(tmp_path) if n.startswith(".")] == []


def test_malformed_lines_are_skipped_and_counted(tmp_path):
    corpus = read(EN_JA).splitlines(keepends=True)
    bad = tmp_path / "bad.tsv"
    bad.write_bytes(b"".join(corpus[:300]) + b"x\xff\ty\tz\n\n" + b"x" * 5000 + b"\tlong\tz\n" + b"".join(corpus[300:]))
    result, out = filter_run(tmp_path, "-i", bad, "--summary", tmp_path / "s.json", "--top-ratio", "1")
    summary = json.loads(open(tmp_path / "s.json").read())
    assert summary["read"]["skipped"] == {"bad_utf8": 1, "wrong_field_count": 1}
    assert summary["dropped"]["too_long"] == 1
    assert not any(line.startswith("xxx") for line in read(out).decode().splitlines())


# -- the learned score ----------------------------------------------------------------------------------
LEARNED = os.path.join(os.path.dirname(__file__), "..", "configs", "filter-learned.yaml")
SMALL_LEARNED = [*SMALL, "--seed", "1"]


def learned_run(tmp_path, *args, name="kept.tsv", check=True, config=LEARNED):
    out = tmp_path / name
    return run("filter-parallel", "-c", config, "-i", EN_JA, "-o", out, "-q", *SMALL_LEARNED, *args, check=check), out


def refused_model(tmp_path, model, *args, name="refused.tsv"):
    """A learned run with ``--model model`` in this process (conftest.invoke: refused at once), and its output."""
    out = tmp_path / name
    return invoke("filter-parallel", "-c", LEARNED, "-i", EN_JA, "-o", out, "-q", *SMALL_LEARNED, "--model", model,
                  *args), out


@pytest.mark.parametrize("detectors", [False, True])
def test_learned_score_explains_drops_and_reports_its_validation(tmp_path, detectors):
    pytest.importorskip("kcooc.langid")
    from kcooc.filtering.noise import NOISE_FAMILIES

    config = tmp_path / "detectors.yaml" if detectors else LEARNED
    if detectors:  # the learn.detectors option: one detector per noise family
        with open(LEARNED, encoding="utf-8") as f:
            cfg = yaml.safe_load(f)
        cfg["learn"]["detectors"] = True
        (tmp_path / "detectors.yaml").write_text(yaml.safe_dump(cfg))
    learned_run(tmp_path, "--annotated", tmp_path / "why.tsv", "--summary", tmp_path / "s.json", config=config)
    summary = json.loads(open(tmp_path / "s.json").read())
    classifier = summary["classifier"]
    assert summary["scorer"] == "learned" and classifier["validation_pairs"] > 200
    # the held-out synthetic noise ranks below the clean pairs; accuracy is at a probability of 1/2, which the
    # softmax over a dozen detectors and the typicality factor seldom reach on this 1,400-line corpus
    assert 0.5 <= classifier["validation_accuracy"] <= 1 and 0.8 < classifier["validation_roc_auc"] <= 1
    rows = annotated_rows(tmp_path / "why.tsv")
    names = {"src_chars", "tgt_chars", "char_ratio", "word_ratio", "numbers", "placeholders", "urls", "capitals",
             "punctuation", "ending", "sentences", "src_lang", "tgt_lang", "phsic", "fluency_src", "fluency_tgt",
             "words_src", "words_tgt", "numbers_mismatch", "placeholders_mismatch", "glyphs_src", "glyphs_tgt",
             "repeats_src", "repeats_tgt", "stutter_src", "stutter_tgt", "glued_src", "glued_tgt", "long_words_src",
             "long_words_tgt", "caps_gap", "symbols_gap", "copy", "align_tgt",
             "align_src", "cover_src", "cover_tgt", "order", "token_ratio", "encoding_src", "encoding_tgt",
             "spaced_src", "spaced_tgt", "initial_case", "spelling_src", "spelling_tgt", "swaps_src", "swaps_tgt",
             "foreign_src", "foreign_tgt"}
    ratios = {"char_ratio", "word_ratio", "token_ratio"}
    gate_only = {"tgt_lang", "foreign_src", "foreign_tgt"}  # the gate's, no input of the model
    inputs = names - gate_only - {"src_chars", "tgt_chars"} - ratios | {f"{r}_{side}" for r in ratios
                                                                         for side in ("above", "below")}
    # what lowered a dropped line most: a language gate, or one input (of the detector that fired most)
    prefixes = [f"{detector}:" for detector in set(NOISE_FAMILIES.values())] if detectors else [""]
    reasons = {prefix + name for prefix in prefixes for name in inputs} | {"tgt_lang", "src_lang"}
    for r in rows:
        score, decision, reason, weakest, features = r[3], r[4], r[5], r[6], r[7]
        if score == "nan":
            assert (weakest, features) == ("-", "-") and reason not in ("-", "not_selected")
            continue
        values = dict(item.split("=") for item in features.split(" "))
        assert set(values) == names and 0 <= float(score) <= 1
        assert (weakest in reasons) == (decision == "drop")
    kept = [float(r[3]) for r in rows if r[4] == "keep"]
    assert len(kept) == summary["kept"] == round(0.8 * summary["eligible"])
    assert min(kept) >= max(float(r[3]) for r in rows if r[5] == "not_selected")


def test_learned_score_is_byte_identical_with_its_saved_model_and_depends_on_the_seed(tmp_path):
    """(Serial, --jobs 2 and Dask: test_skipped_lines_leave_serial_jobs_and_dask_byte_identical.)"""
    pytest.importorskip("kcooc.langid")
    learned_run(tmp_path, "--annotated", tmp_path / "a1.tsv", "--save-model", tmp_path / "m1.npz", name="k1.tsv")
    learned_run(tmp_path, "--annotated", tmp_path / "a3.tsv", "--model", tmp_path / "m1.npz", name="k3.tsv")
    assert read(tmp_path / "k1.tsv") == read(tmp_path / "k3.tsv")
    assert read(tmp_path / "a1.tsv") == read(tmp_path / "a3.tsv")
    learned_run(tmp_path, "--annotated", tmp_path / "a4.tsv", "--seed", "2", name="k4.tsv")
    assert read(tmp_path / "a4.tsv") != read(tmp_path / "a1.tsv")


def test_learned_model_is_validated(tmp_path):
    pytest.importorskip("kcooc.langid")
    import numpy as np

    from kcooc import artifact

    learned_run(tmp_path, "--save-model", tmp_path / "m.npz")
    header, arrays = artifact.load(str(tmp_path / "m.npz"), "filter")
    assert not any(a.dtype == object for a in arrays.values())
    other, _ = learned_run(tmp_path, "--model", tmp_path / "m.npz", "--tgt-lang", "de", name="o.tsv", check=False)
    assert (other.returncode == 2 and "error: --tgt-lang: " in other.stderr
            and "trained with tgt_lang ja" in other.stderr)
    broken = {**arrays, "classifier_model0_weights": arrays["classifier_model0_weights"][:3]}  # too few terms
    artifact.save(str(tmp_path / "bad.npz"), "filter", broken, {k: v for k, v in header.items() if k not in (
        "kind", "format_version", "kcooc_version")})
    bad, _ = refused_model(tmp_path, tmp_path / "bad.npz", name="b.tsv")
    assert bad.returncode == 2 and "do not fit together" in bad.stderr and "Traceback" not in bad.stderr
    older = {k: v for k, v in header.items() if k not in ("kind", "format_version", "kcooc_version")}
    older["features"] = header["features"][:-5] + ["lexical_src_avg"] + header["features"][-5:]  # an older version's
    artifact.save(str(tmp_path / "older.npz"), "filter", arrays, older)
    old, _ = refused_model(tmp_path, tmp_path / "older.npz", name="b.tsv")
    assert old.returncode == 2 and "not used: lexical_src_avg" in old.stderr and "error: --model: " in old.stderr
    versions = ("kind", "format_version", "kcooc_version", "feature_version")
    unversioned = {k: v for k, v in header.items() if k not in versions}
    artifact.save(str(tmp_path / "v1.npz"), "filter", arrays, unversioned)  # as saved before the features had versions
    v1, _ = refused_model(tmp_path, tmp_path / "v1.npz", name="b.tsv")
    assert v1.returncode == 2 and "features are version 1" in v1.stderr and "train and save it again" in v1.stderr
    kept = {k: v for k, v in header.items() if k not in ("kind", "format_version", "kcooc_version")}
    for name, lie, expect in (  # header fields are checked as a config's: classifier, config, encoders
            ("seed.npz", {"classifier": {**header["classifier"], "seed": "zero"}}, "classifier seed"),
            ("block.npz", {"config": {**header["config"], "input": {**header["config"]["input"], "block_size": 0}}},
             "config.input.block_size"),
            ("spec.npz", {"encoders": [{**header["encoders"][0], "n_features": 0}, header["encoders"][1]]},
             "encoders.x.n_features")):
        artifact.save(str(tmp_path / name), "filter", arrays, {**kept, **lie})
        lying, _ = refused_model(tmp_path, tmp_path / name, name="b.tsv")
        assert lying.returncode == 2 and expect in lying.stderr and lying.stderr.count("\n") == 1, lying.stderr
    with zipfile.ZipFile(tmp_path / "m.npz") as good, zipfile.ZipFile(tmp_path / "nan.npz", "w") as poisoned:
        for member in good.namelist():  # NaN in a model, written around artifact.save (which refuses it)
            data = good.read(member)
            if member == "classifier_model0_weights.npy":
                buffer = io.BytesIO()
                np.save(buffer, arrays["classifier_model0_weights"] * np.nan)
                data = buffer.getvalue()
            poisoned.writestr(member, data)
    poisoned, _ = refused_model(tmp_path, tmp_path / "nan.npz", name="n.tsv")
    assert poisoned.returncode == 2 and "NaN" in poisoned.stderr and not (tmp_path / "n.tsv").exists()
    unsorted = {**arrays, "sentences_keys": np.array([5, 3], np.uint64), "sentences_counts": np.array([2, 2])}
    artifact.save(str(tmp_path / "keys.npz"), "filter", unsorted, kept)
    lying, _ = refused_model(tmp_path, tmp_path / "keys.npz", name="k.tsv")
    assert lying.returncode == 2 and "repeated sentences are not a sorted table" in lying.stderr
    short = {**arrays, "counts_accented_pairs": arrays["counts_accented_pairs"][:, :10]}  # one table cut short
    artifact.save(str(tmp_path / "short.npz"), "filter", short, kept)
    lying, _ = refused_model(tmp_path, tmp_path / "short.npz", name="s.tsv")
    assert lying.returncode == 2 and "corpus counts have bad shapes" in lying.stderr
    assert not (tmp_path / "s.tsv").exists()
    forward, rejection = arrays["alignment_forward"], arrays["classifier_rejection"]
    for lie, expect in (  # finite numbers that are not what the look-ups read: refused, not scored into garbage
            ({"counts_shapes": arrays["counts_shapes"][:, :100]}, "corpus counts have bad shapes"),
            ({"counts_words": -arrays["counts_words"] - 1}, "corpus counts are not counts"),
            ({"counts_bigrams": arrays["counts_bigrams"] + 0.5}, "corpus counts are not counts"),
            ({"counts_trigrams": arrays["counts_trigrams"] * 0 + 2 ** 62}, "corpus counts are not counts"),
            ({"sentences_keys": np.array([3, 5], np.uint64), "sentences_counts": np.array([2.5, 2])},
             "repeated sentences are not a sorted table"),
            ({"alignment_forward": -forward}, "alignment tables are not probabilities"),
            ({"alignment_reverse": np.zeros_like(forward)}, "alignment tables are not probabilities"),
            ({"alignment_forward": forward * 1000}, "alignment tables are not probabilities"),
            ({"alignment_diagonals": np.array([-4.0, 3.0])}, "lambda is none of"),
            ({"classifier_rejection": rejection + 5}, "rate outside (0, 1]"),
            ({"classifier_rejection": rejection * 0}, "rate outside (0, 1]")):
        artifact.save(str(tmp_path / "lie.npz"), "filter", {**arrays, **lie}, kept)
        lying, out = refused_model(tmp_path, tmp_path / "lie.npz", name="l.tsv")
        assert lying.returncode == 2 and expect in lying.stderr and lying.stderr.count("\n") == 1, (lie, lying.stderr)
        assert not out.exists()
    del arrays["counts_trigrams"]
    artifact.save(str(tmp_path / "bad2.npz"), "filter", arrays, {k: v for k, v in header.items() if k not in (
        "kind", "format_version", "kcooc_version")})
    bad, _ = refused_model(tmp_path, tmp_path / "bad2.npz", name="b.tsv")
    assert bad.returncode == 2 and "incomplete filter model" in bad.stderr
    phsic, _ = refused_model(tmp_path, tmp_path / "m.npz", "--scorer", "phsic", name="p.tsv")
    assert phsic.returncode == 2 and "expected a 'phsic' model" in phsic.stderr
    assert all(np.isfinite(v).all() for k, v in arrays.items() if k.startswith("classifier_model"))


def test_no_config_default_command_learns_with_language_rules(tmp_path):
    pytest.importorskip("kcooc.langid")
    out = tmp_path / "kept.tsv"
    run("filter-parallel", "-i", EN_JA, "-o", out, "--src-lang", "en", "--tgt-lang", "ja", "-q", *SMALL,
        "--summary", tmp_path / "s.json")
    summary = json.loads(open(tmp_path / "s.json").read())
    assert summary["scorer"] == "learned" and summary["kept"] == round(0.8 * summary["eligible"])
    assert summary["dropped"].get("length_ratio", 0) < 30  # Japanese: the automatic ratio is 8, not 3
    config = run("filter-parallel", "--src-lang", "en", "--tgt-lang", "ja", "--print-config").stdout
    assert "src_language: english" in config and "tgt_language: japanese" in config and "top_ratio: 0.8" in config
    assert "char_ngrams:\n  - 1\n  - 2" in config


def test_no_config_default_ranks_a_source_in_a_third_language_low(tmp_path):
    """--src-lang en with French sources (the French translation of the same English segment, so
    every other feature looks clean): the source's gentle language gate still ranks them low."""
    pytest.importorskip("kcooc.langid")
    rows = [line.rstrip("\n").split("\t")[:2] for line in open(os.path.join(DATA, "en-de.tsv"), encoding="utf-8")]
    french = {}
    for line in open(os.path.join(DATA, "en-fr.tsv"), encoding="utf-8"):
        english, translation = line.rstrip("\n").split("\t")[:2]
        french.setdefault(english, translation)
    shared = [i for i, (english, _) in enumerate(rows) if english in french]
    foreign = set(shared[::10])
    corpus = tmp_path / "corpus.tsv"
    corpus.write_text("".join(f"{french[e] if i in foreign else e}\t{t}\n" for i, (e, t) in enumerate(rows)),
                      encoding="utf-8")
    (tmp_path / "ungated.yaml").write_text("learn:\n  source_language_prior: 0.999999\n")  # the source gate all but off

    def auc(*config):  # ROC-AUC of the French sources below the others
        run("filter-parallel", "-i", corpus, "-o", tmp_path / "kept.tsv", "--src-lang", "en", "--tgt-lang", "de", "-q",
            "--scores", tmp_path / "scores.txt", *config)
        scores = [float(s) for s in open(tmp_path / "scores.txt").read().split()]
        wrong = [s for i, s in enumerate(scores) if i in foreign and s == s]
        right = [s for i, s in enumerate(scores) if i not in foreign and s == s]
        assert len(wrong) >= 20
        return sum(w < r for w in wrong for r in right) / (len(wrong) * len(right))

    gated = auc()
    assert gated > 0.83 and gated > auc("-c", tmp_path / "ungated.yaml") + 0.02  # .849 against .805 when written


@pytest.mark.parametrize("pair", ["en-de", "en-fr"])
def test_no_config_default_on_latin_pairs_drops_the_wrong_language(tmp_path, pair):
    pytest.importorskip("kcooc.langid")
    lines = open(os.path.join(DATA, f"{pair}.tsv"), encoding="utf-8").read().splitlines()
    other = "fr" if pair == "en-de" else "de"
    foreign = [line.split("\t") for line in open(os.path.join(DATA, f"en-{other}.tsv"), encoding="utf-8")]
    # every 10th target replaced by the other language's translation of another segment (same script)
    noisy = [f"{line.split(chr(9))[0]}\t{foreign[i][1]}" if i % 10 == 0 else "\t".join(line.split("\t")[:2])
             for i, line in enumerate(lines)]
    corpus = tmp_path / "corpus.tsv"
    corpus.write_text("\n".join(noisy) + "\n", encoding="utf-8")
    run("filter-parallel", "-i", corpus, "-o", tmp_path / "kept.tsv", "--src-lang", "en", "--tgt-lang", pair[3:], "-q",
        "--scores", tmp_path / "scores.txt")
    scores = [float(s) for s in open(tmp_path / "scores.txt").read().split()]
    wrong = [s for i, s in enumerate(scores) if i % 10 == 0 and s == s]
    right = [s for i, s in enumerate(scores) if i % 10 and s == s]
    assert sum(w < r for w in wrong for r in right) / (len(wrong) * len(right)) > 0.9  # ROC-AUC of the noise


def test_swapped_columns_or_a_wrong_language_code_are_warned_about(tmp_path):
    """The language gate calibrates on the corpus itself, so swapped columns (German sources, English targets
    under --src-lang en --tgt-lang de) or French targets declared German would pass unremarked; the run
    warns, naming the language the identifier found instead, and stays quiet on a sound corpus."""
    pytest.importorskip("kcooc.langid")
    de = [line.rstrip("\n").split("\t")[:2] for line in open(os.path.join(DATA, "en-de.tsv"), encoding="utf-8")]
    fr = [line.rstrip("\n").split("\t")[:2] for line in open(os.path.join(DATA, "en-fr.tsv"), encoding="utf-8")]
    corpora = {"swapped": [(t, s) for s, t in de], "french": fr, "sound": de}
    warnings = {}
    for name, rows in corpora.items():
        corpus = tmp_path / f"{name}.tsv"
        corpus.write_text("".join(f"{s}\t{t}\n" for s, t in rows), encoding="utf-8")
        result = run("filter-parallel", "-i", corpus, "-o", tmp_path / f"{name}.out", "--src-lang", "en",
                     "--tgt-lang", "de", "-q")
        warnings[name] = [line for line in result.stderr.splitlines() if "warning" in line]
    sources, targets = warnings["swapped"]
    assert "sources of 50 characters or more are identified as 'en', most of the others as 'de'" in sources
    assert "--src-lang and the columns (input.src_col is 1)" in sources
    assert "targets of 50 characters or more are identified as 'de', most of the others as 'en'" in targets
    assert len(warnings["french"]) == 1 and "most of the others as 'fr'" in warnings["french"][0]
    assert warnings["sound"] == []


def test_a_file_decoded_with_the_wrong_code_page_is_warned_about(tmp_path):
    """German targets whose UTF-8 was read as cp1252 (``über`` -> ``Ã¼ber``) in every line: the score, calibrated
    on the corpus itself, takes the damage for the corpus's normal and ranks the lines as it would the sound ones,
    so the run warns (exit 0); a sound corpus gets no such warning (the test above)."""
    rows = [line.rstrip("\n").split("\t")[:2] for line in open(os.path.join(DATA, "en-de.tsv"), encoding="utf-8")]
    corpus = tmp_path / "misdecoded.tsv"
    corpus.write_text("".join(f"{s}\t{t.encode().decode('cp1252', errors='replace')}\n" for s, t in rows),
                      encoding="utf-8")
    result = run("filter-parallel", "-i", corpus, "-o", tmp_path / "kept.tsv", "--src-lang", "en", "--tgt-lang", "de",
                 "-q")
    assert result.returncode == 0
    warnings = [line for line in result.stderr.splitlines() if "warning" in line]
    assert len(warnings) == 1 and "sampled targets look like UTF-8 read as Latin-1 or cp1252" in warnings[0]
    assert "Ã" in warnings[0] and "sources" not in warnings[0]


@pytest.mark.parametrize("flag", ["--src-lang", "--tgt-lang"])
def test_unknown_language_is_exit_2_before_any_work(tmp_path, flag):
    pytest.importorskip("kcooc.langid")
    result = run("filter-parallel", "-i", tmp_path / "missing.tsv", "-o", tmp_path / "kept.tsv", flag, "xx",
                 check=False)
    assert result.returncode == 2 and "'xx'" in result.stderr and "Traceback" not in result.stderr
    assert os.listdir(tmp_path) == []
