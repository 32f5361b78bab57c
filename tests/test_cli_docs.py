"""docs/cli.md is current, and every command keeps the shared option vocabulary (scripts/tools/cli_docs.py)."""

from __future__ import annotations

import collections
import contextlib
import io
import json
import os

import click
import pytest

from scripts.tools import cli_docs

from conftest import DATA, TRAIN, invoke, run

ROOT = os.path.join(os.path.dirname(__file__), "..")

COMMANDS = dict(cli_docs.commands())
EVERYWHERE = {"quiet": ["--quiet", "-q"], "verbose": ["--verbose", "-v"], "log_file": ["--log-file"],
              "summary_path": ["--summary"]}
SHARED = {"input_path": ["--input", "-i"], "output": ["--output", "-o"], "config_path": ["--config", "-c"],
          "jobs": ["--jobs", "-j"], **EVERYWHERE}


def options(command: click.Command) -> list[click.Option]:
    return [p for p in command.params if isinstance(p, click.Option) and p.name != "help"]


def test_docs_cli_md_is_current():
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        cli_docs.main()
    with open(os.path.join(ROOT, "docs", "cli.md"), encoding="utf-8") as f:
        assert f.read() == out.getvalue(), "docs/cli.md is stale: run `make cli-docs`"


def test_every_command_is_listed():
    assert set(COMMANDS) == {"phsic train", "phsic score", "phsic merge", "filter-parallel", "ca embed", "ca eval",
                             "ca plot", "srk classify", "nsk train", "nsk classify", "ks align"}


def test_no_single_letter_long_option():
    for name, command in COMMANDS.items():
        for param in options(command):
            for opt in param.opts + param.secondary_opts:
                assert not (opt.startswith("--") and len(opt) == 3), f"{name}: {opt}"


@pytest.mark.parametrize("name", sorted(COMMANDS))
def test_every_command_has_the_run_options_and_input_output(name):
    command = COMMANDS[name]
    by_name = {p.name: p for p in options(command)}
    for dest, opts in EVERYWHERE.items():
        assert dest in by_name and sorted(by_name[dest].opts) == sorted(opts), f"{name} lacks {opts}"
    has_io = "input_path" in by_name and "output" in by_name
    assert has_io != (name in cli_docs.EXCEPTIONS), f"{name}: -i/-o or a documented exception, not both"
    if name in cli_docs.EXCEPTIONS:
        assert "output" in by_name


def test_one_spelling_and_one_meaning_per_option():
    """A shared destination has one spelling; a spelling has one destination and one kind of value
    everywhere (choices may differ: --method); --jobs has one default and one help text."""
    spellings = collections.defaultdict(set)
    kinds = collections.defaultdict(set)
    for name, command in COMMANDS.items():
        for param in options(command):
            if param.name in SHARED:
                assert sorted(param.opts) == sorted(SHARED[param.name]), f"{name}: {param.opts}"
            for opt in param.opts + param.secondary_opts:
                spellings[opt].add(param.name)
                kinds[opt].add((type(param.type).__name__, param.is_flag, param.multiple))
    assert {opt: dests for opt, dests in spellings.items() if len(dests) > 1} == {}
    assert {opt: k for opt, k in kinds.items() if len(k) > 1} == {}
    jobs = {(p.default, p.help) for c in COMMANDS.values() for p in options(c) if p.name == "jobs"}
    assert len(jobs) == 1 and all(p.workers in ("processes", "threads") for c in COMMANDS.values()
                                  for p in options(c) if p.name == "jobs")


def test_old_spellings_name_current_options():
    for name, command in COMMANDS.items():
        current = {opt for p in options(command) for opt in p.opts}
        for old, new in command.old_options.items():
            assert new in current and old not in current, f"{name}: {old} -> {new}"


# -- the shared behaviour, on real commands --------------------------------------------------------------


def test_print_config_needs_no_input_or_output():
    for args in (["phsic", "train", "-c", "configs/dialogue.yaml"], ["ca", "embed", "-c", "configs/text8.yaml"],
                 ["srk", "classify", "-c", "configs/srk-faq.yaml"], ["ks", "align", "-c", "configs/ks-names.yaml"],
                 ["nsk", "train", "-c", "configs/nsk-brown.yaml"]):
        result = invoke(*args, "--print-config")  # in this process: each is a start-up and a print
        assert result.returncode == 0 and result.stderr == ""
        assert result.stdout.startswith(("input:", "method:", "seed:", "kernel:")) or "\n" in result.stdout
    missing = run("phsic", "train", "-c", "configs/dialogue.yaml", check=False)
    assert missing.returncode == 2 and "Missing option '--output'" in missing.stderr


def test_quiet_verbose_and_log_file(tmp_path):
    """-q silences ks align's report on stderr but not the log file; -v adds the resolved config; an old
    spelling works with a warning; -q and -v together are a usage error."""
    args = ["ks", "align", "--method", "ks", "--source", os.path.join(DATA, "names-en.txt"),
            "--target", os.path.join(DATA, "names-ar.txt"), "--gold", os.path.join(DATA, "names-gold.tsv"),
            "-o", tmp_path / "a.tsv"]
    loud = run(*args)
    assert "recovered" in loud.stderr
    log = tmp_path / "run.log"
    quiet = run(*args, "-q", "--log-file", log)
    assert quiet.stderr == "" and "INFO: recovered" in log.read_text()
    assert "kcooc ks align[" in log.read_text()
    verbose = run(*args, "-v")
    assert "config:" in verbose.stderr and "recovered" in verbose.stderr
    both = run(*args, "-q", "-v", check=False)
    assert both.returncode == 2 and "exclude each other" in both.stderr


def test_old_spelling_warns_and_works(tmp_path):
    corpus = tmp_path / "corpus.txt"
    with open(TRAIN, encoding="utf-8") as f:
        corpus.write_text(f.read().replace("\t", " "), encoding="utf-8")
    common = ["ca", "embed", "--dims", "5", "--window", "2", "--min-count", "3", "-q"]
    old = run(*common, "--corpus", corpus, "-o", tmp_path / "old.npz", "--summary", tmp_path / "s.json")
    assert old.stderr.startswith("kcooc ca embed: warning: --corpus is deprecated") and old.stderr.count("\n") == 1
    run(*common, "-i", corpus, "-o", tmp_path / "new.npz")
    assert (tmp_path / "old.npz").read_bytes() == (tmp_path / "new.npz").read_bytes()
    assert json.loads((tmp_path / "s.json").read_text())["command"] == "ca embed"


def test_errors_reach_the_log_file(tmp_path):
    log = tmp_path / "run.log"
    result = run("ca", "eval", "-i", tmp_path / "missing.npz", "-q", "--log-file", log, check=False)
    assert result.returncode == 2 and result.stderr.startswith("kcooc ca eval: error: ")
    assert result.stderr.count("\n") == 1 and "ERROR: " in log.read_text()
    bad_log = run("ca", "eval", "-i", tmp_path / "missing.npz", "--log-file", tmp_path / "no" / "x.log", check=False)
    assert bad_log.returncode == 2 and "--log-file" in bad_log.stderr


def test_log_file_that_is_an_input_or_the_output_is_refused(tmp_path):
    """--log-file appends: naming an input (also through a hard link) or the output is exit 2, nothing touched."""
    names = tmp_path / "names-en.txt"
    names.write_bytes(open(os.path.join(DATA, "names-en.txt"), "rb").read())
    link = tmp_path / "link.txt"
    os.link(names, link)
    before = names.read_bytes()
    args = ["ks", "align", "--method", "ks", "--source", names, "--target", os.path.join(DATA, "names-ar.txt"),
            "--gold", os.path.join(DATA, "names-gold.tsv")]
    for log, clash in ((names, "--source"), (link, "--source"), (tmp_path / "a.tsv", "--output")):
        result = run(*args, "-o", tmp_path / "a.tsv", "--log-file", log, check=False)
        assert result.returncode == 2 and f"is also the command's {clash}" in result.stderr
        assert result.stderr.count("\n") == 1
    assert names.read_bytes() == before and not (tmp_path / "a.tsv").exists()
    assert sorted(os.listdir(tmp_path)) == ["link.txt", "names-en.txt"]
