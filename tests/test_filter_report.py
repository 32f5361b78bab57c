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


# -- two aligned files -------------------------------------------------------------------------------------
def split_corpus(tmp_path, source=EN_JA, edit=None):
    """The corpus as two aligned files (Moses/OPUS form); ``edit(src_lines, tgt_lines)`` changes them first."""
    rows = [line.split(b"\t") for line in read(source).split(b"\n")[:-1]]
    src, tgt = [r[0] for r in rows], [r[1] for r in rows]
    if edit:
        edit(src, tgt)
    (tmp_path / "corpus.en").write_bytes(b"\n".join(src) + b"\n")
    (tmp_path / "corpus.ja").write_bytes(b"\n".join(tgt) + b"\n")
    return ["--src-input", tmp_path / "corpus.en", "--tgt-input", tmp_path / "corpus.ja"]


def sides_of(tsv: bytes) -> tuple[bytes, bytes]:
    rows = [line.split(b"\t") for line in tsv.split(b"\n")[:-1]]
    return b"".join(r[0] + b"\n" for r in rows), b"".join(r[1] + b"\n" for r in rows)


def test_two_aligned_files_filter_as_their_tsv_on_any_jobs_compressed_or_not(tmp_path):
    pairs = split_corpus(tmp_path)  # en-ja.tsv has a third column (where a pair comes from): the TSV of the two files
    (tmp_path / "pairs.tsv").write_bytes(b"".join(b"\t".join(line.split(b"\t")[:2]) + b"\n"
                                                  for line in read(EN_JA).split(b"\n")[:-1]))
    run("filter-parallel", "-c", HASHING, "-i", tmp_path / "pairs.tsv", "-o", tmp_path / "tsv.tsv",
        "--annotated", tmp_path / "a0.tsv", *SMALL)
    run("filter-parallel", "-c", HASHING, *pairs, "--src-output", tmp_path / "k.en", "--tgt-output", tmp_path / "k.ja",
        "--annotated", tmp_path / "a1.tsv", "--summary", tmp_path / "s.json", *SMALL)
    (tmp_path / "z.en.gz").write_bytes(__import__("gzip").compress(read(tmp_path / "corpus.en")))
    (tmp_path / "z.ja.zst").write_bytes(zstd(read(tmp_path / "corpus.ja")))
    run("filter-parallel", "-c", HASHING, "--src-input", tmp_path / "z.en.gz", "--tgt-input", tmp_path / "z.ja.zst",
        "-o", tmp_path / "both.tsv", "--src-output", tmp_path / "k2.en", "--tgt-output", tmp_path / "k2.ja.zst",
        "--jobs", "2", *SMALL)
    kept = read(tmp_path / "tsv.tsv")
    assert (read(tmp_path / "k.en"), read(tmp_path / "k.ja")) == sides_of(kept)
    assert read(tmp_path / "a1.tsv") == read(tmp_path / "a0.tsv") and read(tmp_path / "both.tsv") == kept
    assert read(tmp_path / "k2.en") == read(tmp_path / "k.en")
    assert pytest.importorskip("zstandard").ZstdDecompressor().decompressobj().decompress(
        read(tmp_path / "k2.ja.zst")) == read(tmp_path / "k.ja")
    summary = summary_of(tmp_path / "s.json")
    assert summary["src_input"].endswith("corpus.en") and summary["output"] is None
    assert not (tmp_path / "kept.tsv").exists()


def failed(tmp_path, *args):
    (tmp_path / "out").mkdir(exist_ok=True)
    result = run("filter-parallel", "-c", HASHING, *args, "-o", tmp_path / "out" / "k.tsv", *SMALL, check=False)
    assert result.returncode == 2 and len(result.stderr.strip().splitlines()) == 1, result.stderr
    assert "Traceback" not in result.stderr and os.listdir(tmp_path / "out") == []
    return result.stderr


def test_two_files_of_different_lengths_are_exit_2_naming_both_and_the_shorter_count(tmp_path):
    message = failed(tmp_path, *split_corpus(tmp_path, edit=lambda src, tgt: tgt.pop()))
    assert f"{tmp_path / 'corpus.ja'} has 1,399 lines and {tmp_path / 'corpus.en'} more" in message
    message = failed(tmp_path, *split_corpus(tmp_path, edit=lambda src, tgt: src.__delitem__(slice(700, None))))
    assert f"{tmp_path / 'corpus.en'} has 700 lines and {tmp_path / 'corpus.ja'} more" in message


@pytest.mark.parametrize("side", [0, 1])
def test_bad_utf8_in_either_file_names_that_file_and_line(tmp_path, side):
    def edit(src, tgt):
        (src, tgt)[side][41] = b"bad \xff byte"

    message = failed(tmp_path, *split_corpus(tmp_path, edit=edit), "--on-error", "fail")
    assert f"{tmp_path / ('corpus.en', 'corpus.ja')[side]}:42: invalid UTF-8 at byte 4" in message


def test_a_tab_inside_a_sentence_and_mixed_inputs_are_refused(tmp_path):
    def edit(src, tgt):
        tgt[9] = b"a\tb"

    message = failed(tmp_path, *split_corpus(tmp_path, edit=edit))
    assert f"{tmp_path / 'corpus.ja'}:10: a tab inside a sentence" in message
    pairs = split_corpus(tmp_path)
    assert "exclude each other" in failed(tmp_path, *pairs, "-i", EN_JA)
    assert "go together" in failed(tmp_path, *pairs[:2])
    message = failed(tmp_path, "-i", EN_JA, "--src-output", tmp_path / "x", "--tgt-output", tmp_path / "y")
    assert "write the form of --src-input" in message
    assert "would overwrite the input" in failed(tmp_path, *pairs, "--src-output", tmp_path / "corpus.en",
                                                 "--tgt-output", tmp_path / "y")


# -- the report ------------------------------------------------------------------------------------------
SECTIONS = ('id="run"', 'id="drops"', 'id="scores"', 'id="features"', 'id="classifier"', 'id="gate"')


def sampled_part(page: str) -> str:
    """The page less its first section (times differ from run to run)."""
    return page[page.index('<section id="drops">'):]


def test_report_is_the_same_on_any_jobs_and_escapes_corpus_text(tmp_path):
    lines = read(EN_DE).split(b"\n")[:-1]
    lines[3] = b"<script>alert(1)</script> &amp; <b>bold</b>\t\tx"  # the only empty side: in its sample
    lines[4] = lines[4].split(b"\t")[0] + b"\t" + lines[4].split(b"\t")[0] + b"\tx"  # identical sides too
    (tmp_path / "in.tsv").write_bytes(b"\n".join(lines) + b"\n")
    for jobs in ("1", "2"):
        run("filter-parallel", "--src-lang", "en", "--tgt-lang", "de", "-i", tmp_path / "in.tsv",
            "-o", tmp_path / f"k{jobs}.tsv", "--report", tmp_path / f"r{jobs}.html", "--summary", tmp_path / "s.json",
            "--task-lines", "128", "--jobs", jobs, "-q")
    page = (tmp_path / "r1.html").read_text(encoding="utf-8")
    assert sampled_part(page) == sampled_part((tmp_path / "r2.html").read_text(encoding="utf-8"))
    assert all(section in page for section in SECTIONS)
    assert "<script" not in page and "&lt;script&gt;alert(" in page and "&amp;amp;" in page
    assert "http://" not in page and "https://" not in page and 'src="' not in page and 'href="' not in page
    assert "validation_roc_auc" in page and "tgt_lang" in page and 'class="cut"' in page
    identical = page[page.index("<td>identical_sides</td>"):].split("</tr>")[0]
    assert "<td>not scored</td>" in identical and ">nan<" not in page  # a rule's line has no score
    summary = summary_of(tmp_path / "s.json")
    assert summary["report"].endswith("r2.html") and "write" in summary["seconds"]


def test_report_renders_a_lone_surrogate_and_markup_as_text():
    from kcooc.io.html import text

    assert text("a\ud800b <script>") == "a\\ud800b &lt;script&gt;"
    assert text('"x" & \'y\'') == "&quot;x&quot; &amp; &#x27;y&#x27;"


def test_phsic_report_has_its_sections_and_a_cut(tmp_path):
    run("filter-parallel", "-c", HASHING, "-i", EN_JA, "-o", tmp_path / "k.tsv", "--report", tmp_path / "r.html",
        *SMALL)
    page = (tmp_path / "r.html").read_text(encoding="utf-8")
    assert all(section in page for section in SECTIONS[:4]) and 'class="cut"' in page and "not_selected" in page


@pytest.mark.parametrize("where, message", [
    ("input", "would overwrite the input"), ("directory", "is a directory"), ("missing", "does not exist"),
    ("output", "given for two outputs")])
def test_report_path_is_checked_before_any_work(tmp_path, where, message):
    copy = tmp_path / "in.tsv"
    copy.write_bytes(read(EN_JA))
    (tmp_path / "dir").mkdir()
    path = {"input": copy, "directory": tmp_path / "dir", "missing": tmp_path / "nope" / "r.html",
            "output": tmp_path / "k.tsv"}[where]
    result = run("filter-parallel", "-c", HASHING, "-i", copy, "-o", tmp_path / "k.tsv", "--report", path, *SMALL,
                 check=False)
    assert result.returncode == 2 and message in result.stderr and len(result.stderr.strip().splitlines()) == 1
    assert read(copy) == read(EN_JA) and sorted(os.listdir(tmp_path)) == ["dir", "in.tsv"]


def test_report_with_annotated_and_scores_over_several_write_blocks(tmp_path):
    big = tmp_path / "big.tsv"  # > 8 MB: the write pass reads it in two blocks
    big.write_bytes(read(EN_JA) * 32)
    run("filter-parallel", "-c", HASHING, "-i", big, "-o", tmp_path / "k.tsv", "--annotated", tmp_path / "a.tsv",
        "--scores", tmp_path / "s.txt", "--report", tmp_path / "r.html", "--task-lines", "20000", "-q")
    page = (tmp_path / "r.html").read_text(encoding="utf-8")
    assert 'id="drops"' in page and "duplicate" in page
    assert len(read(tmp_path / "s.txt").splitlines()) == 32 * len(read(EN_JA).splitlines())
