"""``ca embed --report``: the page's numbers are the model's (singular values, shares of the total inertia
against a dense chi^2/n, and SCA's against the dense matrix of Def. 5, the solver's residuals), SCA's
section, escaping, and the real command on a real excerpt (its browser test: tests/test_report_browser.py;
its hostile paths: tests/test_hostile.py). The shared blocks (kcooc/io/html.py) are tested here too: the
line chart is this page's."""

import json
import os
import re
import warnings

import numpy as np
import pytest
import scipy.sparse as sp
from test_ca import dense_ca, dense_sca, real_counts

from kcooc import artifact
from kcooc.ca.config import CaConfig
from kcooc.ca.model import PPMISVD, CorrespondenceAnalysis
from kcooc.ca.report import inertia_shares, report_page, supervision_details
from kcooc.ca.sca import supervision_matrix
from kcooc.io.html import line_chart, number, ticks

from conftest import TRAIN, run

REQUESTS = re.compile(r"https?:|//[a-z]|\bsrc=|\bhref=|<script|@import|url\(", re.IGNORECASE)


def component_rows(page: str) -> list[list[str]]:
    """The cells of the page's table of every component."""
    body = re.search(r"<summary>Every component \([\d,]+\)</summary><table[^>]*>.*?<tbody>(.*?)</tbody>", page).group(1)
    return [re.findall(r"<td>(.*?)</td>", row) for row in re.findall(r"<tr>(.*?)</tr>", body)]


def fact(page: str, name: str) -> str:
    return re.search(rf"<tr><td>{re.escape(name)}</td><td>(.*?)</td></tr>", page).group(1)


def section(page: str, name: str) -> str:
    return re.search(rf'<section id="{name}">(.*?)</section>', page, re.DOTALL).group(1)


def page_of(model, N, cfg, history, words=None, **run):
    words = words or [f"w{i}" for i in range(N.shape[0])]
    return report_page(cfg, model, **{"input_name": "corpus.txt", "output": "v.npz", "words": words,
                                      "counts": np.asarray(N.sum(axis=1)).ravel(), "table_shape": N.shape,
                                      "nonzeros": N.nnz, "seconds": {"vocabulary": 0.25, "svd": 1.5},
                                      "history": history, **run})


def test_ca_page_shows_the_models_singular_values_their_shares_and_residuals():
    N = real_counts("flat", words=40)
    cfg = CaConfig(dims=8, power=0.5, oversample=40, power_iterations=2)
    history = []
    model = CorrespondenceAnalysis(8, 0.0, 0.5, oversample=40, power_iterations=2).fit(
        N, progress=lambda iteration, worst: history.append(worst))
    page = page_of(model, N, cfg, history)
    assert all(f'<section id="{name}">' in page for name in ("run", "spectrum", "residuals"))
    assert 'id="supervision"' not in page and not REQUESTS.search(page)
    assert fact(page, "non-zeros of the table") == number(N.nnz) and fact(page, "dimensions kept") == "8"
    assert fact(page, "power iterations done (at most)") == "2 (2)" and "ROOT-CA" in fact(page, "method")
    total = float((dense_ca(N.toarray() ** 0.5) ** 2).sum())  # chi^2/n of N^0.5, densely (a 40 x 40 test table)
    assert model.total_inertia_ == pytest.approx(total)
    s, residual = model.singular_values_, model.relative_residuals_
    rows = component_rows(page)
    assert [r[0] for r in rows] == [str(i) for i in range(1, 9)]
    assert [r[1] for r in rows] == [number(v) for v in s] and [r[2] for r in rows] == [number(v * v) for v in s]
    assert [r[3] for r in rows] == [number(v * v / model.total_inertia_) for v in s]
    assert [float(r[4]) for r in rows] == pytest.approx(np.cumsum(s**2) / total, rel=1e-3)
    assert [r[5] for r in rows] == [number(r) for r in residual] and [r[6] for r in rows] == \
        [number(r * v) for r, v in zip(residual, s)]
    assert f"<b>{number(float((s**2).sum() / model.total_inertia_))}</b>" in section(page, "spectrum")
    # the residual per component, then the largest after the sketch and each of the 2 power iterations
    charts = section(page, "residuals").split("<svg")[1:]
    assert len(charts) == 2 and charts[1].count("<circle") == len(history) == 3
    assert history[-1] == pytest.approx(residual.max())


def test_sca_page_shows_its_supervision_and_each_components_share_of_the_sca_matrixs_total():
    N = real_counts("flat", words=30)
    words = ["<b>bold</b>", "a&b", *(f"w{i}" for i in range(2, 30))]
    pairs = [(0, 3, 8.0), (2, 5, 4.0), (3, 7, 2.0), (1, 1, 5.0)]  # a word with itself: no entry of S
    S = supervision_matrix(pairs, 30, 1.0)
    cfg = CaConfig(dims=6, power=1.0, oversample=30, power_iterations=2, supervision="<i>pairs.txt",
                   supervision_weight=1.0)
    model = CorrespondenceAnalysis(6, 0.0, 1.0, oversample=30, power_iterations=2).fit(N, S)
    page = page_of(model, N, cfg, [], words=words, sca=(S, pairs, 7))
    supervision = section(page, "supervision")
    assert fact(supervision, "pairs in the file") == "7" and fact(supervision, "pairs with both words in the "
                                                                              "vocabulary") == "4"
    assert fact(supervision, "distinct supervised pairs (S_ij, i &lt; j)") == "3"
    assert fact(supervision, "supervised words (the block where the Hadamard terms are formed)") == "5"
    assert fact(supervision, "tuning ratios 1 + S_ij") == "1.25 to 2"  # 1 + score / max score
    unit = model.vectors_ / np.linalg.norm(model.vectors_, axis=1, keepdims=True)
    assert (f"<tr><td>&lt;b&gt;bold&lt;/b&gt;</td><td>w3</td><td>8</td><td>2</td>"
            f"<td>{number(float(unit[0] @ unit[3]), 3)}</td></tr>") in supervision
    assert "<td>a&amp;b</td>" not in supervision  # its only pair was with itself
    total = float((dense_sca(N.toarray().astype(float), S.toarray()) ** 2).sum())  # Def. 5, densely (30 x 30)
    assert model.total_inertia_ == pytest.approx(total, rel=1e-10)
    s = model.singular_values_
    assert [r[3] for r in component_rows(page)] == [number(v * v / model.total_inertia_) for v in s]
    spectrum = section(page, "spectrum")
    assert "the total inertia of the SCA matrix" in spectrum and f"= {number(model.total_inertia_)}," in spectrum
    assert f"<b>{number(float((s**2).sum() / model.total_inertia_))}</b>" in spectrum and "No share" not in spectrum
    assert "&lt;i&gt;pairs.txt" in page and "<i>" not in page and "<b>bold" not in page
    assert "SCA" in fact(page, "method")


def test_spearman_of_equal_scores_is_no_value_and_no_warning():
    words = [f"w{i}" for i in range(6)]
    pairs = [(0, 1, 5.0), (2, 3, 5.0), (4, 5, 5.0)]
    vectors = np.random.default_rng(0).standard_normal((6, 3))
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        details = supervision_details(words, vectors, pairs, supervision_matrix(pairs, 6, 1.0), 3, "p.txt", 1.0)
    assert details["spearman"] is None and details["ratio_min"] == details["ratio_max"] == 2.0


def test_ppmi_page_shares_the_squared_norm_of_the_ppmi_matrix():
    N = real_counts("skip", words=30)
    cfg = CaConfig(method="ppmi", dims=5, oversample=25, power_iterations=2)
    model = PPMISVD(5, oversample=25, power_iterations=2).fit(N)
    page = page_of(model, N, cfg, [])
    assert "the squared norm of the PPMI matrix" in page and "not CA" in fact(page, "method")
    shares, cumulative = inertia_shares(model.singular_values_, model.total_inertia_)
    assert [r[3] for r in component_rows(page)] == [number(v) for v in shares]
    assert cumulative[-1] <= 1 and inertia_shares(model.singular_values_, None) is None


def test_run_facts_and_titles_are_escaped():
    N = real_counts("flat", words=20)
    cfg = CaConfig(dims=3, oversample=17, power_iterations=1)
    model = CorrespondenceAnalysis(3, oversample=17, power_iterations=1).fit(N)
    page = page_of(model, N, cfg, [], input_name='<script>alert(1)</script> & "q"', output="o\ud800.npz")
    assert "<script" not in page and "<title>kcooc ca embed: &lt;script&gt;alert(1)&lt;/script&gt; &amp; " \
        "&quot;q&quot;</title>" in page
    assert fact(page, "vectors written to") == "o\\ud800.npz"
    assert fact(page, "tol") == "–" and fact(page, "every relative residual at or below tol") == "–"


def test_line_chart_leaves_out_what_a_log_axis_cannot_show_and_escapes_names():
    chart = line_chart([("a <b>", np.arange(5), np.array([1e-3, 0.0, -1.0, np.nan, 10.0]), "#000")], log_y=True,
                       level=(0.05, "tol <0.05>"))
    assert chart.count("<circle") == 2 and "a &lt;b&gt;: 4, 10</title>" in chart
    assert 'class="level"' in chart and "tol &lt;0.05&gt;" in chart and "<b>" not in chart
    assert line_chart([("x", [1], [2.0], "#000")]).count("<circle") == 1  # a single point has an axis too
    assert ticks(1e-16, 1e-3, log=True)[-1] >= 1e-3 and ticks(1, 20, integer=True) == [5, 10, 15, 20]
    assert ticks(0, 0.0797) == pytest.approx([0, 0.02, 0.04, 0.06])


# -- the command --------------------------------------------------------------------------------------------
def corpus(tmp_path, name="corpus.txt", extra=""):
    path = tmp_path / name
    path.write_text(open(TRAIN, encoding="utf-8").read().lower().replace("\t", " ") + extra, encoding="utf-8")
    return path


COMMON = ["--dims", "10", "--window", "2", "--min-count", "3", "-q"]


def test_cli_report_is_the_runs_page_and_leaves_the_vectors_as_they_were(tmp_path):
    text = corpus(tmp_path)
    run("ca", "embed", "-i", text, *COMMON, "-o", tmp_path / "v.npz", "--report", tmp_path / "r.html",
        "--summary", tmp_path / "s.json", "--export-w2v", tmp_path / "v.txt")
    run("ca", "embed", "-i", text, *COMMON, "-o", tmp_path / "plain.npz")
    assert (tmp_path / "v.npz").read_bytes() == (tmp_path / "plain.npz").read_bytes()
    page = (tmp_path / "r.html").read_text(encoding="utf-8")
    summary = json.loads((tmp_path / "s.json").read_text())
    header, arrays = artifact.load(str(tmp_path / "v.npz"), "ca-vectors")
    rows = component_rows(page)
    assert [r[1] for r in rows] == [number(v) for v in arrays["singular_values"]]
    assert [r[5] for r in rows] == [number(v) for v in arrays["relative_residuals"]]
    assert [r[3] for r in rows] == [number(v * v / header["total_inertia"]) for v in arrays["singular_values"]]
    assert fact(page, "vocabulary (words)") == number(summary["vocabulary"])
    assert fact(page, "non-zeros of the table") == number(summary["nonzeros"])
    assert fact(page, "tokens of the vocabulary") == number(summary["tokens_in_vocabulary"])
    assert fact(page, "input") == str(text) and fact(page, "kcooc version") == header["kcooc_version"]
    assert re.search(r"<tr><td>svd</td><td>[\d.]+ s</td></tr>", page) and "ROOTROOT-CA" in page
    assert not REQUESTS.search(page) and "Content-Security-Policy" in page
    assert section(page, "residuals").split("<svg")[2].count("<circle") == 5  # the sketch and 4 iterations
    assert sorted(os.listdir(tmp_path)) == ["corpus.txt", "plain.npz", "r.html", "s.json", "v.npz", "v.txt"]


def test_cli_sca_report_shows_the_supervised_pairs_and_escapes_corpus_words(tmp_path):
    text = corpus(tmp_path, "in <&> corpus.txt", extra=" yes <b> & good" * 30)
    (tmp_path / "pairs.txt").write_text("<b> yes 9\n& good 4\nyes good 2\nunicorn yes 5\n")
    run("ca", "embed", "-i", text, *COMMON, "--no-lowercase", "--supervision", tmp_path / "pairs.txt",
        "-o", tmp_path / "v.npz", "--report", tmp_path / "r.html", "--summary", tmp_path / "s.json")
    page = (tmp_path / "r.html").read_text(encoding="utf-8")
    header, arrays = artifact.load(str(tmp_path / "v.npz"), "ca-vectors")
    summary = json.loads((tmp_path / "s.json").read_text())
    assert summary["total_inertia"] == header["total_inertia"]  # SCA's own total, shared on the page
    assert [r[3] for r in component_rows(page)] == \
        [number(v * v / header["total_inertia"]) for v in arrays["singular_values"]]
    supervision = section(page, "supervision")
    assert fact(supervision, "pairs in the file") == "4" and fact(supervision, "pairs with both words in the "
                                                                              "vocabulary") == "3"
    assert "<td>&lt;b&gt;</td><td>yes</td><td>9</td><td>2</td>" in supervision or \
        "<td>yes</td><td>&lt;b&gt;</td><td>9</td><td>2</td>" in supervision
    assert "<td>&amp;</td>" in supervision and "<td><b></td>" not in page and "<td>&</td>" not in page
    assert "kcooc ca embed: " + str(tmp_path).replace("&", "&amp;") + "/in &lt;&amp;&gt; corpus.txt" in page
    assert not REQUESTS.search(page)


def test_cli_report_and_stdout(tmp_path):
    """--report - writes the page on stdout (the vectors go to their file)."""
    result = run("ca", "embed", "-i", corpus(tmp_path), *COMMON, "-o", tmp_path / "v.npz", "--report", "-")
    assert result.stdout.startswith("<!DOCTYPE html>") and result.stdout.endswith("</html>\n")
    assert sorted(os.listdir(tmp_path)) == ["corpus.txt", "v.npz"]


def test_sparse_input_is_never_densified_for_the_page(monkeypatch):
    """The page's numbers come from the model and the table's counts: no dense matrix is formed."""
    N = real_counts("flat", words=20)
    cfg = CaConfig(dims=3, oversample=17, power_iterations=1)
    model = CorrespondenceAnalysis(3, oversample=17, power_iterations=1).fit(N)
    assert isinstance(N, sp.csr_matrix)

    def refuse(*args, **kwargs):
        raise AssertionError("densified")

    monkeypatch.setattr(sp.csr_matrix, "toarray", refuse)
    monkeypatch.setattr(sp.csr_matrix, "todense", refuse)
    assert 'id="spectrum"' in page_of(model, N, cfg, [])
