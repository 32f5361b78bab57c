import os
import subprocess
import sys

import numpy as np
import pytest

DATA = os.path.join(os.path.dirname(__file__), "data")
TRAIN = os.path.join(DATA, "chitchat-train.tsv")
CANDIDATES = os.path.join(DATA, "chitchat-candidates.tsv")


def read_pairs(path=TRAIN, n=None):
    with open(path, encoding="utf-8") as f:
        rows = [line.rstrip("\n").split("\t") for line in f]
    rows = rows[:n] if n else rows
    return [r[0] for r in rows], [r[1] for r in rows]


def run(*args, stdin=None, check=True):
    """Run the real `kcooc` command; returns the CompletedProcess (text mode)."""
    result = subprocess.run([sys.executable, "-m", "kcooc", *map(str, args)], input=stdin,
                            capture_output=True, text=isinstance(stdin, str) or stdin is None)
    if check and result.returncode != 0:
        raise AssertionError(f"kcooc {' '.join(map(str, args))} exited {result.returncode}: {result.stderr}")
    return result


def invoke(*args):
    """Run the real `kcooc` command in this process (click's test runner), for tests of many quick exits where a
    new interpreter's start-up would be most of the time; a CompletedProcess as `run(..., check=False)` gives.
    An exception that escapes the command is raised here."""
    from click.testing import CliRunner

    from kcooc.cli import cli

    result = CliRunner().invoke(cli, list(map(str, args)))
    if result.exception is not None and not isinstance(result.exception, SystemExit):
        raise result.exception
    return subprocess.CompletedProcess(args, result.exit_code, result.stdout, result.stderr)


def needs_extra(module: str, extra: str) -> pytest.MarkDecorator:
    """Skip unless ``module``, which only the optional ``extra`` installs, is there: .ci/run also runs the
    suite on the core install alone, where such tests skip and say what to install."""
    import importlib.util

    return pytest.mark.skipif(importlib.util.find_spec(module) is None,
                              reason=f"{module} is not installed (pip install 'kcooc[{extra}]')")


needs_plot = needs_extra("matplotlib", "plot")
needs_fasttext = needs_extra("fasttext", "fasttext")
needs_wordllama = needs_extra("wordllama", "wordllama")
needs_translit = needs_extra("anyascii", "translit")


@pytest.fixture(scope="session")
def fasttext_model(tmp_path_factory):
    """A small fastText model trained on the real dialogue excerpt (deterministic: one thread), in an interpreter
    of its own: once, inside a pytest-xdist worker after other tests, fastText's training stopped with
    'Encountered NaN' (not seen when its tests ran alone or serially; cause not found)."""
    pytest.importorskip("fasttext", reason="fasttext is not installed (pip install 'kcooc[fasttext]')")

    from kcooc.encoders import tokenize

    directory = tmp_path_factory.mktemp("fasttext")
    corpus = directory / "text.txt"
    x, y = read_pairs()
    corpus.write_text("\n".join(" ".join(tokenize(s, True, True)) for s in x + y), encoding="utf-8")
    path = directory / "tiny.bin"
    train = ("import sys, fasttext; fasttext.train_unsupervised(sys.argv[1], dim=16, epoch=2, minCount=2, thread=1, "
             "verbose=0).save_model(sys.argv[2])")
    subprocess.run([sys.executable, "-c", train, str(corpus), str(path)], check=True)
    return str(path)


@pytest.fixture
def rng():
    return np.random.default_rng(0)


@pytest.fixture(scope="session")
def verse_pairs():
    """30 tokenised KJV/WEB verse pairs (real text) for the string rewriting kernels."""
    from kcooc.encoders import tokenize

    with open(os.path.join(DATA, "srk-verses-train.tsv"), encoding="utf-8") as f:
        rows = [line.rstrip("\n").split("\t") for line in f][:30]
    return [(tokenize(s, True, True), tokenize(t, True, True)) for _, s, t in rows]


def wordnet_missing() -> str | None:
    """Why the WordNet word-type tests cannot run here, or None: they need nltk and WordNet 3.0's
    dictionary files, which `make test` installs from Debian's wordnet-base."""
    import importlib.util

    from kcooc.srk.wordnet import DEFAULT_DICT

    if importlib.util.find_spec("nltk") is None:
        return "nltk is not installed (pip install 'kcooc[wordnet]')"
    folder = os.environ.get("KCOOC_WORDNET") or DEFAULT_DICT
    if not os.path.isfile(os.path.join(folder, "data.noun")):
        return f"no WordNet 3.0 in {folder} (`make wordnet` installs Debian's wordnet-base; or set KCOOC_WORDNET)"
    return None


needs_wordnet = pytest.mark.skipif(wordnet_missing() is not None, reason=str(wordnet_missing()))
