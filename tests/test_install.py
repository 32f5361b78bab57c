"""A light install: commands load lazily, optional dependencies fail with the extra to install, and
nothing needs fcntl but the output lock. Each case runs a fresh interpreter in which a module is made
unimportable (``sys.modules[name] = None``, as on a machine without it), then the real command."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap

import pytest

from kcooc.cli import COMMANDS, cli

from conftest import DATA, TRAIN

HEAVY = ("scipy", "numba", "sklearn", "matplotlib", "fasttext", "wordllama", "nltk", "distributed")


def kcooc_without(modules: list[str], *args, report_modules: bool = False) -> subprocess.CompletedProcess:
    """``kcooc ARGS`` in a fresh interpreter where ``modules`` cannot be imported; with
    ``report_modules``, the heavy modules it loaded are printed as JSON on stderr's last line."""
    code = textwrap.dedent(f"""
        import atexit, json, sys
        for name in {modules!r}:
            sys.modules[name] = None
        if {report_modules!r}:
            atexit.register(lambda: print(json.dumps(sorted(m for m in {HEAVY!r} if sys.modules.get(m))),
                                          file=sys.stderr))
        sys.argv = ["kcooc", *{list(map(str, args))!r}]
        from kcooc.cli import main
        main()
    """)
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)


def loaded_by(*args) -> list[str]:
    result = kcooc_without([], *args, report_modules=True)
    assert result.returncode == 0, result.stderr
    return json.loads(result.stderr.strip().splitlines()[-1])


@pytest.mark.parametrize("command", ["--help", "phsic score --help", "phsic train --help", "filter-parallel --help",
                                     "ca embed --help", "ca plot --help", "srk classify --help", "nsk train --help",
                                     "ks align --help"])
def test_help_loads_no_numerical_stack(command):
    assert loaded_by(*command.split()) == []


def test_a_small_job_loads_only_what_it_uses(tmp_path):
    """PHSIC with hashed words and a linear kernel needs scipy.sparse and the compiled loops, not
    scikit-learn, matplotlib or the optional encoders."""
    loaded = loaded_by("phsic", "train", "--encoder", "hashing", "--kernel", "linear", "-i", TRAIN,
                       "-o", tmp_path / "m.npz", "-q")
    assert "scipy" in loaded and not {"sklearn", "matplotlib", "fasttext", "wordllama", "nltk"} & set(loaded)


def test_the_command_list_is_each_commands_own_help():
    """`kcooc --help` lists COMMANDS without importing them: each line must be the command's own."""
    for name, (_, _, short_help) in COMMANDS.items():
        command = cli.get_command(None, name)
        assert command.name == name and command.get_short_help_str(limit=1000) == short_help


@pytest.mark.parametrize("module, extra, args", [
    ("matplotlib", "plot", ["ca", "plot", "-o", "{tmp}/fisher.png"]),
    ("fasttext", "fasttext", ["phsic", "train", "--encoder", "fasttext", "--encoder-model", TRAIN, "-i", TRAIN,
                              "-o", "{tmp}/m.npz"]),
    ("wordllama", "wordllama", ["phsic", "train", "--encoder", "wordllama", "-i", TRAIN, "-o", "{tmp}/m.npz"]),
    ("nltk", "wordnet", ["srk", "classify", "-c", "{tmp}/wordnet.yaml", "--train", f"{DATA}/srk-verses-train.tsv",
                         "--test", f"{DATA}/srk-verses-test.tsv", "-o", "{tmp}/pred.tsv"]),
    ("anyascii", "translit", ["ks", "align", "-c", f"{DATA}/../../configs/ks-translit.yaml", "--method", "p-smooth",
                              "--source", f"{DATA}/tl-ar-en.txt", "--target", f"{DATA}/tl-ar-native.txt",
                              "-o", "{tmp}/alignment.tsv"]),
])
def test_a_missing_extra_is_one_line_naming_it(tmp_path, module, extra, args):
    (tmp_path / "wordnet.yaml").write_text("kernels:\n  - {kind: srk, k: [1], pattern_types: [synonym]}\n")
    result = kcooc_without([module], *[a.format(tmp=tmp_path) for a in args])
    assert result.returncode == 2, result.stderr
    assert len(result.stderr.strip().splitlines()) == 1 and f"pip install 'kcooc[{extra}]'" in result.stderr
    assert sorted(p.name for p in tmp_path.iterdir()) == ["wordnet.yaml"]  # no output, no lock file left


def test_without_fcntl_only_the_output_lock_is_missing(tmp_path):
    """Everything imports and runs where fcntl does not exist (Windows); a command that locks its
    output says why it cannot, in one line."""
    result = kcooc_without(["fcntl"], "ca", "embed", "-i", TRAIN, "-o", tmp_path / "ca.npz", "--dims", "5")
    assert result.returncode == 0 and (tmp_path / "ca.npz").stat().st_size > 0, result.stderr
    result = kcooc_without(["fcntl"], "phsic", "train", "--encoder", "hashing", "-i", TRAIN, "-o", tmp_path / "m.npz")
    assert result.returncode == 1 and "needs fcntl" in result.stderr and len(result.stderr.strip().splitlines()) == 1
    assert not (tmp_path / "m.npz").exists()
    code = ("import sys; sys.modules['fcntl'] = None; import kcooc, kcooc.cli, kcooc.cli.runtime, kcooc.io.outputs; "
            "print('ok')")
    assert subprocess.run([sys.executable, "-c", code], capture_output=True, text=True).stdout == "ok\n"
