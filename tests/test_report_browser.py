"""The --report pages of real runs (filter-parallel, ca embed) in a real browser: headless Chromium
(Debian's `chromium`, which `make test` installs; skipped with the reason where it is missing) loads each
with every network request refused and logged, and the page's DOM holds each section."""

import os
import re
import shutil
import subprocess

import pytest

from conftest import DATA, TRAIN, run

CHROMIUM = next((shutil.which(name) for name in ("chromium", "chromium-browser") if shutil.which(name)), None)
pytestmark = pytest.mark.skipif(CHROMIUM is None, reason="chromium is not installed (make test installs Debian's "
                                                        "chromium; or apt-get install chromium)")
SECTIONS = ("run", "drops", "scores", "features", "classifier", "gate")


def chromium(*args, tmp_path):
    """Run headless Chromium on a throwaway profile: (stdout, the verbose log)."""
    result = subprocess.run([CHROMIUM, "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run",
                             f"--user-data-dir={tmp_path / 'profile'}", "--enable-logging=stderr", "--v=1",
                             # the browser's own traffic off (updates, spelling, time), any other name unresolvable:
                             # what the log still shows asking for an address is the page's
                             "--disable-background-networking", "--disable-component-update", "--disable-sync",
                             "--disable-default-apps", "--disable-extensions", "--disable-spell-checking",
                             "--host-resolver-rules=MAP * ~NOTFOUND", *args],
                            capture_output=True, text=True, timeout=120, env={**os.environ, "HOME": str(tmp_path)})
    return result.stdout, result.stderr


def addresses(log: str) -> set[str]:
    return {re.sub(r"[?#].*", "", u) for u in re.findall(r"(?:https?|ftp|wss?|file)://[^\s\"')]+", log)}


def loads_with_no_request(page_path, sections, tmp_path) -> str:
    """Load the page in Chromium: nothing it could fetch, every section in the DOM, no request but the
    file's and no console error, and a screenshot. The DOM."""
    page = page_path.read_text(encoding="utf-8")
    # nothing the page could fetch: no address, no src or href, no script, no @import or url()
    assert not re.search(r"https?:|//[a-z]|\bsrc=|\bhref=|<script|@import|url\(", page, re.IGNORECASE)
    url = page_path.as_uri()
    dom, log = chromium("--dump-dom", url, tmp_path=tmp_path)
    for section in sections:
        assert f'<section id="{section}">' in dom, section
    # every address the log shows asked for, less what the browser asks for by itself on an empty page
    # (its time and search services: not the page's), by scheme, host and path: nothing but the file
    (tmp_path / "empty.html").write_text("<!DOCTYPE html><title>empty</title>", encoding="utf-8")
    _, quiet = chromium("--dump-dom", (tmp_path / "empty.html").as_uri(), tmp_path=tmp_path)
    assert addresses(log) - addresses(quiet) - {url} == set()
    console = [line for line in log.splitlines() if "CONSOLE" in line and ("ERROR" in line or "Uncaught" in line)]
    assert console == []
    _, _ = chromium(f"--screenshot={tmp_path / 'report.png'}", "--window-size=1200,3000", url, tmp_path=tmp_path)
    assert (tmp_path / "report.png").stat().st_size > 10_000
    return dom


def test_report_loads_in_chromium_with_no_request_and_every_section(tmp_path):
    run("filter-parallel", "--src-lang", "en", "--tgt-lang", "de", "-i", os.path.join(DATA, "en-de.tsv"),
        "-o", tmp_path / "kept.tsv", "--report", tmp_path / "report.html", "-q")
    dom = loads_with_no_request(tmp_path / "report.html", SECTIONS, tmp_path)
    assert dom.count("<svg") >= 3 and "kcooc filter-parallel" in dom


def test_ca_report_loads_in_chromium_with_no_request_and_every_section(tmp_path):
    """ca embed's page, SCA (every section) on the real dialogue excerpt."""
    corpus = tmp_path / "corpus.txt"
    corpus.write_text(open(TRAIN, encoding="utf-8").read().lower().replace("\t", " "), encoding="utf-8")
    (tmp_path / "pairs.txt").write_text("yes yeah 9\ngood great 8\nlike love 7\n")
    run("ca", "embed", "-i", corpus, "--dims", "10", "--window", "2", "--min-count", "3", "--supervision",
        tmp_path / "pairs.txt", "-o", tmp_path / "v.npz", "--report", tmp_path / "report.html", "-q")
    dom = loads_with_no_request(tmp_path / "report.html", ("run", "spectrum", "residuals", "supervision"), tmp_path)
    assert dom.count("<svg") == 4 and "kcooc ca embed" in dom and "<td>yeah</td>" in dom
