"""filter-parallel as its users live it: the summary's score quantiles, two aligned files as input and
output, and the --report HTML page (its browser test: tests/test_report_browser.py)."""

import json
import os

import numpy as np
import pytest

from conftest import DATA, run

EN_DE = os.path.join(DATA, "en-de.tsv")
EN_JA = os.path.join(DATA, "en-ja.tsv")
CONFIGS = os.path.join(os.path.dirname(__file__), "..", "configs")
HASHING = os.path.join(CONFIGS, "filter-hashing.yaml")
LEARNED = os.path.join(CONFIGS, "filter-learned.yaml")
SMALL = ["--task-lines", "300", "--block-size", "128", "-q"]


def read(path):
    with open(path, "rb") as f:
        return f.read()


def summary_of(path):
    return json.loads(open(path, encoding="utf-8").read())


# -- score quantiles ------------------------------------------------------------------------------------
def test_summary_quantiles_describe_the_scored_pairs_the_same_on_any_jobs(tmp_path):
    for jobs in ("1", "2"):
        run("filter-parallel", "-c", HASHING, "-i", EN_JA, "-o", tmp_path / f"k{jobs}.tsv", *SMALL, "--jobs", jobs,
            "--annotated", tmp_path / f"a{jobs}.tsv", "--summary", tmp_path / f"s{jobs}.json")
    first, second = summary_of(tmp_path / "s1.json"), summary_of(tmp_path / "s2.json")
    assert first["score_quantiles"] == second["score_quantiles"]
    quantiles = first["score_quantiles"]
    rows = [line.rstrip("\n").split("\t") for line in open(tmp_path / "a1.tsv", encoding="utf-8")]
    scored = np.array([float(r[3]) for r in rows if r[5] in ("-", "not_selected", "below_threshold")])
    assert quantiles["pairs"] == scored.size == first["eligible"]
    assert quantiles["min"] == pytest.approx(scored.min()) and quantiles["max"] == pytest.approx(scored.max())
    assert quantiles["p50"] == pytest.approx(np.median(scored), rel=1e-6)
    names = ["min", "p01", "p05", "p10", "p25", "p50", "p75", "p90", "p95", "p99", "max"]
    assert [quantiles[n] for n in names] == sorted(quantiles[n] for n in names)
    assert quantiles["kept_share"] == pytest.approx(first["kept"] / first["eligible"])
    assert quantiles["cut"] == first["lowest_kept_score"]


# -- zstd ------------------------------------------------------------------------------------------------
def zstd(data: bytes) -> bytes:
    return pytest.importorskip("zstandard").ZstdCompressor(level=3).compress(data)


def test_zst_input_by_suffix_and_on_stdin_and_zst_output_are_the_plain_bytes(tmp_path):
    data = read(EN_JA)
    (tmp_path / "in.tsv.zst").write_bytes(zstd(data))
    run("filter-parallel", "-c", HASHING, "-i", EN_JA, "-o", tmp_path / "plain.tsv", *SMALL)
    run("filter-parallel", "-c", HASHING, "-i", tmp_path / "in.tsv.zst", "-o", tmp_path / "kept.tsv.zst", *SMALL)
    piped = run("filter-parallel", "-c", HASHING, *SMALL, stdin=zstd(data)).stdout
    plain = read(tmp_path / "plain.tsv")
    assert pytest.importorskip("zstandard").ZstdDecompressor().decompressobj().decompress(
        read(tmp_path / "kept.tsv.zst")) == plain
    assert piped == plain


def test_truncated_zst_is_exit_2_naming_the_file_and_leaves_nothing(tmp_path):
    compressed = zstd(read(EN_JA))
    (tmp_path / "cut.tsv.zst").write_bytes(compressed[: len(compressed) * 2 // 3])
    result = run("filter-parallel", "-c", HASHING, "-i", tmp_path / "cut.tsv.zst", "-o", tmp_path / "out" / "k.tsv",
                 *SMALL, check=False)
    assert result.returncode == 2 and "does not exist" in result.stderr  # the missing directory: before any work
    (tmp_path / "out").mkdir()
    result = run("filter-parallel", "-c", HASHING, "-i", tmp_path / "cut.tsv.zst", "-o", tmp_path / "out" / "k.tsv",
                 *SMALL, check=False)
    assert result.returncode == 2 and "cut.tsv.zst:" in result.stderr and "truncated or corrupt" in result.stderr
    assert len(result.stderr.strip().splitlines()) == 1 and os.listdir(tmp_path / "out") == []
