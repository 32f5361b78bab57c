"""Labelled filtering benchmark: how well do kcooc and its peers find realistic noise in real corpora?

Two parts, one page (``docs/results-filtering.md``, written by page.py) and one JSON file of every number (``--json``):

*In distribution* (``--pairs``): en-ja, en-de, en-fr from ``data_parallel.py``, the corpora the
learned score was developed on. A fixed sample of real pairs (whole runs of neighbouring segments,
at most ``--per-source`` per source so package descriptions and UI or compiler messages weigh the
same) gets ``--rate`` of its pairs replaced by noise of seven kinds, made from real material of the
same corpus wherever possible (``KINDS``):

* ``neighbour``: the target of a neighbouring segment of the same description or catalogue (a
  near-miss: same package or alphabetically adjacent message, not a random shuffle);
* ``wrong_language``: a real translation of the same English segment into another language of
  the same or a similar script (en-de gets the French one, en-fr the German one, en-ja the
  Simplified Chinese one), so only language identification can see it;
* ``source_language``: the target is the English text of a neighbouring segment (untranslated
  text; exact copies of the source are left out: the learned scorer trains on exactly those);
* ``partial``: the target keeps only its first half of sentences, or is cut at the clause boundary
  nearest its middle, while the source stays whole;
* ``joined``: over-/under-segmentation: one side carries its own and the neighbouring segment;
* ``boilerplate``: URLs, e-mail addresses, paths and version strings found in the corpus itself,
  on the target alone or on both sides;
* ``numbers``: a number of the target changed, or a printf-style placeholder dropped (the only
  kind made by editing a string).

These kinds come from the same ideas as the learned score's training noise, so that part measures
the score in distribution. *Out of distribution* (``--ood``, ``OOD_SETS``): corpora of other
sources and languages (``data_parallel_ood.py``: program catalogues of command-line tools and
desktop applications in en-de/fr/ja/it/nl/es/sv/hu/el, and en-ru, en-ko, en-pl, en-uk, en-cs with
package descriptions too; ``HELD_OUT`` sets are scored apart, by ``make filter-eval-heldout``), with
the seven kinds above and the seven of ``ood_noise.OOD_KINDS`` (misordered words, mojibake, lost
spaces, HTML residue, repeated text, a length-matched segment of another source, romanised text),
which neither the training noise nor ``KINDS`` makes. On every test set the learned score is also
trained *leaving one family out*: for each family of training noise (``noise.NOISE_FAMILIES``) a
run without its kinds among the default ones (config ``learn.noise_kinds``); each kind's leave-one-family-out AUC is the
one of the run without its closest family (``CLOSEST_FAMILY``), and the headline is the worst kind.

Every scorer ranks every pair of the same noisy file with hard rules off; we report ROC-AUC (clean
above noise), overall and per kind, and precision = recall of the lowest-scored ``rate`` share
taken as the noise; a kcooc cell that a peer beats is marked. Pipeline rows (in distribution: hard
rules on, then the score; OpusFilter's own filter run) report the precision and recall of what they
drop. kcooc rows run the real ``kcooc filter-parallel`` command; OpusFilter runs from its own
virtualenv (``--opusfilter-venv``) exactly as its users run it: ``opusfilter-autogen`` (its default
clustering method, its default filters with language ID), then ``opusfilter`` on the generated
config; its ranking is the probability of its own ``train_classifier``/``classify`` steps on its
``score`` output. bicleaner-hardrules runs from its own virtualenv (``--bicleaner-venv``) with its
default rules except those that download models at run time (language ID, language model, porn
removal); its ranking is minus the number of its rules a pair fails.

    python -m scripts.experiments.filtering.eval_filtering --data data/parallel \
        --opusfilter-venv data/venv-opusfilter --bicleaner-venv data/venv-bicleaner \
        --out docs/results-filtering.md --json docs/results-filtering.json

The four leave-one-family-out runs of a test set can go two at a time on two cores (``--concurrent-runs 2``: the
same scores; the page shows no seconds of theirs, and every timed run still runs alone). A development run
prints the learned rows alone and writes no page (``--learned-only``):

    python -m scripts.experiments.filtering.eval_filtering --data data/parallel --pairs ja --ood ko,ja-programs \
        --learned-only --concurrent-runs 2 --workdir runs/filter-dev
"""

from __future__ import annotations

import argparse
import gzip
import json
import os
import random
import re
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor

import numpy as np
import yaml
from sklearn.metrics import roc_auc_score

from kcooc.encoders import tokenize
from kcooc.filtering.noise import DEFAULT_NOISE_KINDS, NOISE_FAMILIES
from scripts.experiments.filtering.auc_intervals import comparable
from scripts.experiments.filtering.benchmark import HELD_OUT, KINDS, LEARNED
from scripts.experiments.filtering.ood_noise import ood_candidates
from scripts.experiments.filtering.page import print_learned, write_results

# target language -> (script-rule language, language of the wrong-language material, OpusFilter script)
PAIRS = {"ja": ("japanese", "zh", None), "de": ("latin", "fr", "Latin"), "fr": ("latin", "de", "Latin")}
# out-of-distribution test sets: name -> (target language, corpus files, files of wrong-language material,
# OpusFilter script)
OOD_SETS = {
    "ru": ("ru", ["descriptions-en-ru.tsv", "programs-en-ru.tsv"], ["descriptions-en-uk.tsv", "programs-en-uk.tsv"],
           "Cyrillic"),
    "ko": ("ko", ["descriptions-en-ko.tsv", "programs-en-ko.tsv"], ["en-zh.tsv", "programs-en-zh.tsv"], "Hangul"),
    "pl": ("pl", ["descriptions-en-pl.tsv", "programs-en-pl.tsv"], ["descriptions-en-cs.tsv", "programs-en-cs.tsv"],
           "Latin"),
    "de-programs": ("de", ["programs-en-de.tsv"], ["programs-en-nl.tsv"], "Latin"),
    "fr-programs": ("fr", ["programs-en-fr.tsv"], ["programs-en-it.tsv"], "Latin"),
    "ja-programs": ("ja", ["programs-en-ja.tsv"], ["programs-en-zh.tsv"], None),
    # held out until the learned score's features were fixed; development sets of the round that added foreign letters
    "uk": ("uk", ["descriptions-en-uk.tsv", "programs-en-uk.tsv"], ["descriptions-en-ru.tsv", "programs-en-ru.tsv"],
           "Cyrillic"),
    "cs": ("cs", ["descriptions-en-cs.tsv", "programs-en-cs.tsv"], ["descriptions-en-pl.tsv", "programs-en-pl.tsv"],
           "Latin"),
    "it-programs": ("it", ["programs-en-it.tsv"], ["programs-en-fr.tsv"], "Latin"),
    "nl-programs": ("nl", ["programs-en-nl.tsv"], ["programs-en-de.tsv"], "Latin"),
    # held out: first scored after that round's choices were made (HELD_OUT; make filter-eval-heldout)
    "es-programs": ("es", ["programs-en-es.tsv"], ["programs-en-pt.tsv"], "Latin"),
    "sv-programs": ("sv", ["programs-en-sv.tsv"], ["programs-en-da.tsv"], "Latin"),
    "hu-programs": ("hu", ["programs-en-hu.tsv"], ["programs-en-sk.tsv"], "Latin"),
    "el-programs": ("el", ["programs-en-el.tsv"], ["programs-en-ru.tsv"], "Greek"),
}
RULES_OFF = {"empty_side": False, "identical_sides": False, "max_chars": None, "max_length_ratio": None,
             "control_chars": False, "dedup": False,
             "min_script_ratio": 0.0}  # script rule off even when languages are declared
SENTENCE_END = re.compile(r"(?<=[.!?])\s+(?=[\"'(«A-ZÀ-Ý0-9])|(?<=[。！？])")
CLAUSE_MARK = re.compile(r"[,;:、，；]")
NUMBER = re.compile(r"\d+")
PLACEHOLDER = re.compile(r"%(?:\d+\$)?[-#0 +']*\d*(?:\.\d+)?[hlLqjzt]*[a-zA-Z]|\{\d*\}|\$\{?[A-Za-z_]\w*\}?")
NON_LINGUISTIC = re.compile(r"https?://\S+|www\.\S+|[\w.+-]+@[\w-]+\.[\w.]+|(?:/[\w.+-]+){2,}|\b[vV]?\d+(?:\.\d+){1,3}\b")


# ---------------------------------------------------------------------------------------------- data

def read_corpus(path: str) -> tuple[list[str], list[str], list[str]]:
    """(en, translation, source) columns of a ``data_parallel.py`` TSV (source "-" when absent),
    without the pairs whose two sides are the same text: untranslated catalogue entries are not
    translations, so they can be labelled neither clean nor as one of the noise kinds."""
    rows = [line.rstrip("\n").split("\t") for line in open(path, encoding="utf-8")]
    rows = [r for r in rows if r[0].strip() != r[1].strip()]
    return [r[0] for r in rows], [r[1] for r in rows], [r[2] if len(r) > 2 else "-" for r in rows]


def read_files(data: str, files: list[str]) -> tuple[list[str], list[str], list[str]]:
    """``read_corpus`` of each file of ``data`` in turn, concatenated."""
    columns = ([], [], [])
    for name in files:
        for column, values in zip(columns, read_corpus(os.path.join(data, name))):
            column.extend(values)
    return columns


def sample_runs(source: list[str], per_source: int, seed: int, run: int = 100) -> np.ndarray:
    """Row indices, in file order: per source, whole runs of ``run`` consecutive rows drawn in a seeded
    order until ``per_source`` rows (so most rows keep their real neighbours)."""
    rng = np.random.default_rng(seed)
    source = np.asarray(source)
    keep = []
    for name in sorted(set(source.tolist())):
        rows = np.flatnonzero(source == name)
        runs = [rows[i:i + run] for i in range(0, rows.size, run)]
        taken = 0
        for r in rng.permutation(len(runs)):
            if taken >= per_source:
                break
            keep.append(runs[r][: per_source - taken])
            taken += keep[-1].size
    return np.sort(np.concatenate(keep))


def neighbours(src: list[str], tgt: list[str], source: list[str], reach: int = 3) -> np.ndarray:
    """For each row the nearest row (next first) of the same source whose sides both differ; -1 if none."""
    n, result = len(src), np.full(len(src), -1)
    for i in range(n):
        for step in range(1, reach + 1):
            j = next((j for j in (i + step, i - step) if 0 <= j < n and source[j] == source[i]
                      and src[j] != src[i] and tgt[j] != tgt[i]), -1)
            if j >= 0:
                result[i] = j
                break
    return result


# --------------------------------------------------------------------------------------- noise makers

def partial_target(text: str) -> str | None:
    """The first half of the sentences (at least one), or the text cut at the clause mark nearest its
    middle (30-80% in); None when neither exists."""
    bounds = [0, *(m.start() for m in SENTENCE_END.finditer(text)), len(text)]
    ends = [b for a, b in zip(bounds, bounds[1:]) if text[a:b].strip()]  # where each sentence ends
    if len(ends) >= 2:
        return text[: ends[len(ends) // 2 - 1]].rstrip()
    cuts = [m.start() for m in CLAUSE_MARK.finditer(text) if 0.3 * len(text) <= m.start() <= 0.8 * len(text)]
    if not cuts:
        return None
    return text[: min(cuts, key=lambda c: abs(c - len(text) / 2))].rstrip()


def number_mismatch(text: str, rng: random.Random) -> str | None:
    """One number of the text changed (by 1-9), or one placeholder dropped; None when it has neither."""
    numbers, placeholders = list(NUMBER.finditer(text)), list(PLACEHOLDER.finditer(text))
    if not numbers and not placeholders:
        return None
    if numbers and (not placeholders or rng.random() < 0.5):
        m = rng.choice(numbers)
        return text[: m.start()] + str(int(m.group()) + rng.randint(1, 9)) + text[m.end():]
    m = rng.choice(placeholders)
    return re.sub(r"\s{2,}", " ", text[: m.start()] + text[m.end():]).strip()


def harvest_boilerplate(texts: list[str]) -> list[str]:
    """The URLs, e-mail addresses, paths and version strings that occur in ``texts``, sorted, unique."""
    return sorted({m.group().rstrip(".,;:)>\"'") for text in texts for m in NON_LINGUISTIC.finditer(text)})


def boilerplate(material: list[str], rng: random.Random) -> str:
    """One to three of the harvested strings, space-separated ("" when there are none)."""
    return " ".join(rng.sample(material, min(len(material), rng.randint(1, 3))))


def inject_noise(src: list[str], tgt: list[str], source: list[str], other: dict[str, str], rate: float,
                 seed: int, joiner: str = " ",
                 extra: dict[str, list] | None = None) -> tuple[list[str], list[str], np.ndarray]:
    """Replace ``rate`` of the pairs by noise, equal shares of ``KINDS`` and the kinds of ``extra`` (a kind
    short of eligible pairs leaves its share to the others); returns the new sides and each pair's kind
    index into ``KINDS + list(extra)`` (-1 = clean).

    ``other`` maps an English segment to its real translation into another language; ``extra`` maps
    more kinds to each pair's noisy version (None where the kind cannot apply). Pair i's noise is drawn
    from its own seeded generator, so it does not depend on which other pairs are noisy."""
    n = len(src)
    near = neighbours(src, tgt, source)
    material = harvest_boilerplate(src + tgt)
    candidates = [[None] * n for _ in KINDS]
    for i in range(n):
        rng, j = random.Random(f"{seed}:{i}"), near[i]
        part, mismatch, filler = partial_target(tgt[i]), number_mismatch(tgt[i], rng), boilerplate(material, rng)
        options = {
            "neighbour": (src[i], tgt[j]) if j >= 0 else None,
            "wrong_language": (src[i], other[src[i]]) if other.get(src[i], tgt[i]) not in (tgt[i], src[i]) else None,
            "source_language": (src[i], src[j]) if j >= 0 else None,
            "partial": (src[i], part) if part else None,
            "joined": None if j < 0 else (
                (f"{src[min(i, j)]} {src[max(i, j)]}", tgt[i]) if i % 2
                else (src[i], joiner.join((tgt[min(i, j)], tgt[max(i, j)])))),
            "boilerplate": None if not filler else (filler, filler) if i % 2 else (src[i], filler),
            "numbers": (src[i], mismatch) if mismatch else None,
        }
        for k, name in enumerate(KINDS):
            candidates[k][i] = options[name]
    candidates += list((extra or {}).values())
    order = np.random.default_rng(seed).permutation(n)
    kind, remaining = np.full(n, -1), int(round(rate * n))
    by_scarcity = sorted(range(len(candidates)), key=lambda k: sum(c is not None for c in candidates[k]))
    for done, k in enumerate(by_scarcity):
        quota = remaining // (len(candidates) - done)
        chosen = [i for i in order if kind[i] < 0 and candidates[k][i] is not None][:quota]
        kind[chosen] = k
        remaining -= len(chosen)
    new_src, new_tgt = list(src), list(tgt)
    for i in np.flatnonzero(kind >= 0):
        new_src[i], new_tgt[i] = candidates[kind[i]][i]
    return new_src, new_tgt, kind


# ------------------------------------------------------------------------------------------ metrics

def detection(scores: np.ndarray, kind: np.ndarray, rate: float, names: list[str]) -> dict:
    """ROC-AUC of clean above noise (overall and per kind: ``names[k]`` for kind index k), and P = R of the
    lowest ``rate`` share as noise. nan scores (pairs a rule dropped) rank below every number."""
    noise = kind >= 0
    scores = comparable(scores)  # finite: roc_auc_score refuses inf
    flagged = np.zeros(len(scores), dtype=bool)
    flagged[np.lexsort((np.arange(len(scores)), scores))[: int(round(rate * len(scores)))]] = True
    return {**aucs(scores, kind, names), "precision": float((flagged & noise).sum() / max(flagged.sum(), 1)),
            "recall": float((flagged & noise).sum() / max(noise.sum(), 1))}


def aucs(scores: np.ndarray, kind: np.ndarray, names: list[str]) -> dict:
    clean = scores[kind < 0]

    def auc(bad):
        return (roc_auc_score(np.r_[np.ones(clean.size), np.zeros(bad.size)], np.r_[clean, bad]) if bad.size
                else float("nan"))
    return {"auc": auc(scores[kind >= 0]), **{name: auc(scores[kind == k]) for k, name in enumerate(names)}}


def dropping(dropped: np.ndarray, kind: np.ndarray, names: list[str]) -> dict:
    """A keep/drop decision as a two-level score: its AUC, and precision / recall of the dropped pairs."""
    noise = kind >= 0
    return {**aucs(np.where(dropped, 0.0, 1.0), kind, names),
            "precision": float((dropped & noise).sum() / max(dropped.sum(), 1)),
            "recall": float((dropped & noise).sum() / max(noise.sum(), 1))}


# ---------------------------------------------------------------------------------------- scorers

def run_kcooc(corpus: str, workdir: str, name: str, config: dict | None,
              options: list[str]) -> tuple[np.ndarray, np.ndarray, float]:
    """``kcooc filter-parallel`` on the corpus: every line's score, which lines a rule dropped, seconds.
    With every rule off (``RULES_OFF``) a dropped line is an error: the ranking must cover every pair."""
    command = [sys.executable, "-m", "kcooc", "filter-parallel", "-i", corpus, "-q", *options]
    if config is not None:
        config_path = os.path.join(workdir, f"{name}.yaml")
        with open(config_path, "w", encoding="utf-8") as f:
            yaml.safe_dump(config, f, allow_unicode=True)
        command += ["-c", config_path]
    paths = {key: os.path.join(workdir, f"{name}.{key}") for key in ("kept", "scores", "json", "annotated")}
    start = time.perf_counter()
    subprocess.run(command + ["-o", paths["kept"], "--scores", paths["scores"], "--summary", paths["json"],
                              "--annotated", paths["annotated"]], check=True)
    seconds = time.perf_counter() - start
    scores = np.array([float(s) for s in open(paths["scores"]).read().split()])
    # after src, tgt, score, keep/drop
    reasons = [line.rstrip("\n").split("\t")[4] for line in open(paths["annotated"], encoding="utf-8")]
    ruled = np.array([r not in ("-", "not_selected", "below_threshold") for r in reasons])
    if config is not None and config.get("rules") == RULES_OFF and ruled.any():
        raise RuntimeError(f"{name}: rules are off but {int(ruled.sum())} lines were dropped by a rule")
    return scores, ruled, seconds


def kcooc_has(option: str) -> bool:
    text = subprocess.run([sys.executable, "-m", "kcooc", "filter-parallel", "--help"], capture_output=True,
                          text=True).stdout
    return option in text


def length_ratio_scores(src: list[str], tgt: list[str]) -> np.ndarray:
    """Minus the distance of log(len src / len tgt) from its corpus median (chars)."""
    ratio = np.log(np.array([max(len(s), 1) for s in src]) / np.array([max(len(t), 1) for t in tgt]))
    return -np.abs(ratio - np.median(ratio))


def eflomal_scores(src: list[str], tgt: list[str]) -> np.ndarray:
    """Minus the mean of eflomal's forward and reverse per-sentence alignment costs (fast_align's role
    in the PHSIC paper)."""
    import eflomal

    src = [" ".join(tokenize(s, True, True)) or "_" for s in src]
    tgt = [" ".join(tokenize(t, True, True, split_cjk=True)) or "_" for t in tgt]
    with tempfile.TemporaryDirectory() as tmp:
        fwd, rev = os.path.join(tmp, "fwd"), os.path.join(tmp, "rev")
        eflomal.Aligner().align(src, tgt, scores_filename_fwd=fwd, scores_filename_rev=rev)
        cost = (np.loadtxt(fwd) + np.loadtxt(rev)) / 2
    return -cost


OPUS_DIRECTIONS = {"clean_high": "high", "clean_low": "low"}  # the others are not usable classifier features


def opusfilter_run(src: list[str], tgt: list[str], lang: str, script: str | None, workdir: str, venv: str) -> dict:
    """OpusFilter as its users run it. Returns its classifier probabilities (the ranking), which lines its
    generated filter config kept, the seconds and lines/s of that filter run, and the lines/s of its
    score pass with every standard filter (the one to compare throughput with: its filter set is fixed)."""
    workdir, venv = os.path.abspath(workdir), os.path.abspath(venv)
    os.makedirs(workdir, exist_ok=True)
    files = [os.path.join(workdir, name) for name in ("src.txt", "tgt.txt")]
    for path, side in zip(files, (src, tgt)):
        with open(path, "w", encoding="utf-8") as f:
            f.writelines(line + "\n" for line in side)
    binary = os.path.join(venv, "bin")

    def autogen(method: str) -> tuple[str, list]:
        """opusfilter-autogen's config for this corpus (``clustering`` is its default method) and its filters."""
        path = os.path.join(workdir, f"autogen-{method}.yaml")
        command = [os.path.join(binary, "opusfilter-autogen"), "--files", *files, "--langs", "en", lang,
                   "--method", method, "--work-dir", workdir, "--inter-dir", os.path.join(workdir, method),
                   "--overwrite", "-o", path]
        subprocess.run(command + (["--scripts", "Latin", script] if script else []), check=True, cwd=workdir,
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        steps = yaml.safe_load(open(path, encoding="utf-8"))["steps"]
        return path, next(step for step in steps if step["type"] == "filter")

    config_path, filter_step = autogen("clustering")
    start = time.perf_counter()
    subprocess.run([os.path.join(binary, "opusfilter"), "--overwrite", config_path], check=True, cwd=workdir,
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    seconds = time.perf_counter() - start
    kept_files = [os.path.join(workdir, path) for path in filter_step["parameters"]["outputs"]]
    kept = kept_mask(src, tgt, *[read_lines(path) for path in kept_files])

    filters = autogen("defaults")[1]["parameters"]["filters"]  # every standard filter, default parameters
    directions = opus_directions(binary, [next(iter(f)) for f in filters])
    features = {name: {"clean-direction": direction, "quantiles": {"min": 0, "max": 0.1, "initial": 0.02}}
                for name, direction in directions.items()}
    steps = [[{"type": "score", "parameters": {"inputs": files, "output": "scores.jsonl.gz", "filters": filters}}],
             [{"type": "train_classifier", "parameters": {"training_scores": "scores.jsonl.gz", "criterion": "CE",
                                                          "model": "classifier.pickle", "features": features}},
              {"type": "classify", "parameters": {"model": "classifier.pickle", "scores": "scores.jsonl.gz",
                                                  "output_probabilities": "probabilities.txt"}}]]
    times = []
    for part, part_steps in enumerate(steps):  # two runs, so that the score pass is timed on its own
        path = os.path.join(workdir, f"score-{part}.yaml")
        with open(path, "w", encoding="utf-8") as f:
            yaml.safe_dump({"common": {"output_directory": workdir}, "steps": part_steps}, f, allow_unicode=True)
        start = time.perf_counter()
        subprocess.run([os.path.join(binary, "opusfilter"), "--overwrite", path], check=True, cwd=workdir,
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        times.append(time.perf_counter() - start)
    probabilities = np.loadtxt(os.path.join(workdir, "probabilities.txt"))
    return {"scores": probabilities, "kept": kept, "filter_seconds": seconds,
            "filters": filter_step["parameters"]["filters"], "features": features, "score_seconds": sum(times),
            "lines_per_second": len(src) / seconds,
            "score_lines_per_second": len(src) / times[0], "standard_filters": [next(iter(f)) for f in filters]}


def opus_directions(binary: str, names: list[str]) -> dict[str, str]:
    """Filter name (as in the config) -> "high"/"low", from OpusFilter's own score_direction."""
    code = ("import json, sys, opusfilter.filters as f, opusfilter.lid as l\n"
            "print(json.dumps({n: getattr(getattr(f, n.split('.')[0], None) or getattr(l, n.split('.')[0]), "
            "'score_direction') for n in sys.argv[1:]}))")
    result = subprocess.run([os.path.join(binary, "python"), "-c", code, *names], check=True, capture_output=True,
                            text=True, cwd=tempfile.gettempdir())
    return {name: OPUS_DIRECTIONS[d] for name, d in json.loads(result.stdout).items() if d in OPUS_DIRECTIONS}


def bicleaner_scores(src: list[str], tgt: list[str], lang: str, workdir: str, venv: str) -> np.ndarray:
    """bicleaner-hardrules as its users run it, every rule tested (``-A``), without the rules that download
    models at run time (language ID, language model, porn removal): minus the number of rules a pair fails
    (0 = kept; its keep/drop decision is 0 against the rest)."""
    workdir, venv = os.path.abspath(workdir), os.path.abspath(venv)
    os.makedirs(workdir, exist_ok=True)
    pairs, tagged = os.path.join(workdir, "pairs.tsv"), os.path.join(workdir, "annotated.tsv")
    with open(pairs, "w", encoding="utf-8") as f:
        f.writelines(f"{s}\t{t}\n" for s, t in zip(src, tgt))
    subprocess.run([os.path.join(venv, "bin", "bicleaner-hardrules"), pairs, tagged, "-s", "en", "-t", lang, "-p", "1",
                    "--disable_lang_ident", "--disable_lm_filter", "--disable_porn_removal", "--annotated_output",
                    "-A", "-q"],
                   check=True, cwd=workdir, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    with open(tagged, encoding="utf-8") as f:
        tags = [line.rstrip("\n").rsplit("\t", 1)[-1] for line in f]
    if len(tags) != len(src):
        raise RuntimeError(f"bicleaner-hardrules wrote {len(tags)} lines for {len(src)} pairs")
    return -np.array([0 if tag == "keep" else tag.count("+") + 1 for tag in tags], dtype=np.float64)


def read_lines(path: str) -> list[str]:
    """The lines of a file split at newlines only (str.splitlines also splits at U+2028, U+0085, ...)."""
    opener = gzip.open if path.endswith(".gz") else open
    with opener(path, "rt", encoding="utf-8", newline="\n") as f:
        text = f.read()
    lines = text.split("\n")
    return lines[:-1] if lines[-1] == "" else lines


def kept_mask(src: list[str], tgt: list[str], kept_src: list[str], kept_tgt: list[str]) -> np.ndarray:
    """Which input pairs an order-preserving filter kept: greedy in-order matching of the output pairs
    (white space around a side aside: OpusFilter strips it, a no-break space that ends a mojibake too)."""
    kept, k = np.zeros(len(src), dtype=bool), 0
    for i, (s, t) in enumerate(zip(src, tgt)):
        if k < len(kept_src) and (s.strip(), t.strip()) == (kept_src[k].strip(), kept_tgt[k].strip()):
            kept[i], k = True, k + 1
    if k != len(kept_src):
        raise RuntimeError(f"OpusFilter output has {len(kept_src) - k} pairs that are not in its input in order")
    return kept


# ------------------------------------------------------------------------------------------- driver

def corpus_spec(name: str, in_distribution: bool) -> tuple[str, list[str], list[str], str | None]:
    """(target language, corpus files, files of wrong-language material, OpusFilter script) of a test set."""
    if in_distribution:
        other, script = PAIRS[name][1:]
        return name, [f"en-{name}.tsv"], [f"en-{other}.tsv"], script
    return OOD_SETS[name]


def title(name: str) -> str:
    """'ja' -> 'en-ja', 'de-programs' -> 'en-de programs'."""
    return "en-" + name.replace("-", " ")


def evaluate(name: str, in_distribution: bool, args) -> dict:
    lang, files, other_files, script = corpus_spec(name, in_distribution)
    missing = [f for f in files if not os.path.exists(os.path.join(args.data, f))]
    if missing:
        raise SystemExit(f"{', '.join(missing)} not in {args.data}: build them with make data-parallel "
                         "data-parallel-ood")
    src, tgt, source = read_files(args.data, files)
    group = [s.split("/")[0] for s in source]  # cli/coreutils -> cli: the sample weighs each group the same
    per_group = args.per_source if in_distribution else args.ood_pairs // len(set(group))
    rows = sample_runs(group, per_group, args.seed)
    src, tgt, source, group = ([column[i] for i in rows] for column in (src, tgt, source, group))
    other = {}
    for e, x, _ in zip(*read_files(args.data, [f for f in other_files if os.path.exists(os.path.join(args.data, f))])):
        other.setdefault(e, x)
    extra = None if in_distribution else ood_candidates(src, tgt, group, args.seed)
    names = KINDS + list(extra or {})
    src, tgt, kind = inject_noise(src, tgt, source, other, args.rate, args.seed, "" if lang == "ja" else " ", extra)
    workdir = os.path.join(args.workdir, f"en-{name}")
    os.makedirs(workdir, exist_ok=True)
    corpus = os.path.join(workdir, "noisy.tsv")
    with open(corpus, "w", encoding="utf-8") as f:
        f.writelines(f"{s}\t{t}\n" for s, t in zip(src, tgt))
    with open(os.path.join(workdir, "labels.txt"), "w", encoding="utf-8") as f:
        f.writelines(f"{names[k] if k >= 0 else 'clean'}\n" for k in kind)

    hashing = {"name": "hashing", "n_features": 1024, "word_ngrams": 2}
    y_hashing = ({"name": "hashing", "n_features": 1024, "word_ngrams": 0, "char_ngrams": [1, 2]} if lang == "ja"
                 else hashing)
    phsic = {"encoder": hashing, "y_encoder": y_hashing, "kernel": {"name": "cos"}}
    learned = kcooc_has("--scorer")
    phsic_options = ["--scorer", "phsic"] if learned else []
    languages = ["--src-lang", "en", "--tgt-lang", lang]
    results, pipelines, lofo = {}, {}, {}
    evaluation = {"title": title(name), "in_distribution": in_distribution, "lang": lang, "n": len(src), "kind": kind,
                  "names": names, "results": results, "pipelines": pipelines, "lofo": lofo,
                  "sources": {g: group.count(g) for g in sorted(set(group))}, "learned": learned, "opus": None}

    scored = {}  # row label (a leave-one-family-out run: "lofo:<family>") -> every pair's score, for the intervals

    def record(label: str, scores: np.ndarray, seconds: float) -> None:
        scored[label] = scores
        results[label] = {**detection(scores, kind, args.rate, names), "seconds": seconds}

    def timed(label, function):
        start = time.perf_counter()
        scores = function()
        record(label, scores, time.perf_counter() - start)
        print(title(name), label, {k: round(v, 3) for k, v in results[label].items()}, file=sys.stderr)

    def learned_mean(label: str, config: dict, row: str) -> dict:
        """The learned score's detection, the mean over ``--train-seeds`` training seeds in a development run (the
        first seed's scores kept as ``row``'s)."""
        seeds = [["--seed", str(seed)] for seed in range(args.train_seeds)] if args.learned_only else [[]]
        runs = []
        for seed in seeds:
            scores, _, seconds = run_kcooc(corpus, workdir, label, config, languages + seed)
            scored.setdefault(row, scores)
            runs.append({**detection(scores, kind, args.rate, names), "seconds": seconds})
        mean = {key: float(np.mean([r[key] for r in runs])) for key in runs[0]}
        print(title(name), label, {k: round(v, 3) for k, v in mean.items()}, file=sys.stderr)
        return {**mean, "auc_sd": float(np.std([r["auc"] for r in runs]))}

    if not args.learned_only:
        timed("length ratio (chars)", lambda: length_ratio_scores(src, tgt))
        if in_distribution:
            scores, _, seconds = run_kcooc(corpus, workdir, "phsic", {**phsic, "rules": RULES_OFF}, phsic_options)
            record("kcooc pure PHSIC (hashing, cos)", scores, seconds)
    if learned:
        results[LEARNED] = learned_mean("learned", {"rules": RULES_OFF}, LEARNED)  # alone: its seconds count
        families = list(dict.fromkeys(NOISE_FAMILIES.values()))

        def left_out(family: str) -> dict:
            trained = [k for k in DEFAULT_NOISE_KINDS if NOISE_FAMILIES[k] != family]
            return learned_mean(f"learned-without-{family}", {"rules": RULES_OFF, "learn": {"noise_kinds": trained}},
                                f"lofo:{family}")

        with ThreadPoolExecutor(args.concurrent_runs) as pool:  # each run a process of its own; no seconds shown
            lofo.update(zip(families, pool.map(left_out, families)))
    if args.learned_only:
        return evaluation
    if in_distribution and lang == "ja" and all(os.path.exists(os.path.join(args.fasttext, f"{x}-100.bin"))
                                                for x in ("en", "ja")):
        fasttext = {"encoder": {"name": "fasttext", "model": os.path.join(args.fasttext, "en-100.bin")},
                    "y_encoder": {"name": "fasttext", "model": os.path.join(args.fasttext, "ja-100.bin"),
                                  "split_cjk": True},
                    "kernel": {"name": "rbf", "rank": 100, "normalize": True}, "rules": RULES_OFF}
        scores, _, seconds = run_kcooc(corpus, workdir, "paper", fasttext, phsic_options)
        record("kcooc pure PHSIC (fastText, RBF-ICD d=100: the paper's)", scores, seconds)
    timed("eflomal alignment cost (fwd+rev)/2", lambda: eflomal_scores(src, tgt))
    opus = None
    if args.opusfilter_venv:
        opus = opusfilter_run(src, tgt, lang, script, os.path.join(workdir, "opusfilter"), args.opusfilter_venv)
        record("OpusFilter classifier probability", opus["scores"], opus["score_seconds"])
        record("OpusFilter autogen filters (keep/drop)", opus["kept"].astype(float), opus["filter_seconds"])
        evaluation["opus"] = {k: v for k, v in opus.items() if k not in ("scores", "kept")}
    if args.bicleaner_venv:
        timed("bicleaner-hardrules (rules failed)",
              lambda: bicleaner_scores(src, tgt, lang, os.path.join(workdir, "bicleaner"), args.bicleaner_venv))
    if in_distribution:  # pipelines: what a user gets from the command as shipped (rule drops rank below every score)
        rules_on = {"max_length_ratio": 8.0 if lang == "ja" else 3.0, "src_language": "english",
                    "tgt_language": PAIRS[name][0]}
        scores, ruled, seconds = run_kcooc(corpus, workdir, "phsic-rules", {**phsic, "rules": rules_on}, phsic_options)
        pipelines["kcooc rules + pure PHSIC"] = {**detection(scores, kind, args.rate, names), "seconds": seconds,
                                                 "rules": dropping(ruled, kind, names)}
        if learned:
            scores, ruled, seconds = run_kcooc(corpus, workdir, "learned-rules", None, languages)
            pipelines["kcooc rules + learned (no config)"] = {**detection(scores, kind, args.rate, names),
                                                              "seconds": seconds,
                                                              "rules": dropping(ruled, kind, names)}
        if opus is not None:
            pipelines["OpusFilter autogen filters (keep/drop)"] = {**dropping(~opus["kept"], kind, names),
                                                                   "seconds": opus["filter_seconds"]}
    np.savez_compressed(os.path.join(workdir, "scores.npz"), *scored.values())
    evaluation.update(scores=list(scored), scores_file=os.path.relpath(os.path.join(workdir, "scores.npz"),
                                                                       args.workdir))
    return evaluation


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--data", default="data/parallel", help="directory with the corpora of data_parallel.py and "
                        "data_parallel_ood.py")
    parser.add_argument("--pairs", default="ja,de,fr",
                        help="in-distribution target languages to evaluate ('' for none)")
    parser.add_argument("--ood", default=",".join(name for name in OOD_SETS if name not in HELD_OUT),
                        help="out-of-distribution test sets to evaluate ('' for none; by default all but HELD_OUT, "
                        "which make filter-eval-heldout scores on a page of their own)")
    parser.add_argument("--fasttext", default="data/fasttext", help="en-100.bin and ja-100.bin for the paper's row")
    parser.add_argument("--opusfilter-venv", default=None,
                        help="virtualenv with opusfilter installed (rows skipped if unset)")
    parser.add_argument("--bicleaner-venv", default=None,
                        help="virtualenv with bicleaner-hardrules installed (row skipped if unset)")
    parser.add_argument("--per-source", type=int, default=4000,
                        help="pairs sampled per source of an in-distribution pair")
    parser.add_argument("--ood-pairs", type=int, default=6000, help="pairs sampled per out-of-distribution test set "
                        "(the same number from each of its source groups)")
    parser.add_argument("--rate", type=float, default=0.2)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--workdir", default="runs/filter-eval")
    parser.add_argument("--out", default="docs/results-filtering.md")
    parser.add_argument("--notes", default="filtering_notes.md",
                        help="the hand-written notes the page ends with (a file beside this script)")
    parser.add_argument("--json", default=None, help="also write every number of the page here (JSON, to diff runs)")
    parser.add_argument("--report-only", action="store_true",
                        help="rewrite --out (and --json) from the numbers the last run saved in --workdir (after "
                        "editing the notes)")
    parser.add_argument("--learned-only", action="store_true",
                        help="development runs: score with the learned rows alone (default and leave-one-family-out) "
                             "and print them (no other rows, no --out)")
    parser.add_argument("--train-seeds", type=int, default=1,
                        help="with --learned-only: train the learned scorer with --seed 0..N-1 and print the mean "
                             "(its synthetic noise is random: one seed's AUC moves by about +-.005)")
    parser.add_argument("--concurrent-runs", type=int, default=1,
                        help="the leave-one-family-out runs of a test set this many at a time, each a process of its "
                             "own (the page shows no seconds of theirs; every other run, timed, runs alone)")
    args = parser.parse_args()
    if args.concurrent_runs < 1:
        parser.error("--concurrent-runs must be at least 1")
    saved = os.path.join(args.workdir, "results.json")
    if args.report_only:
        with open(saved, encoding="utf-8") as f:
            state = json.load(f)
        for e in state["evaluations"].values():
            e["kind"] = np.array(e["kind"])
        vars(args).update({k: v for k, v in state["args"].items() if k not in ("out", "workdir", "json")})
        write_results(args, state["evaluations"], state["seconds"])
        return
    start = time.perf_counter()
    evaluations = {name: evaluate(name, True, args) for name in filter(None, args.pairs.split(","))}
    evaluations.update({name: evaluate(name, False, args) for name in filter(None, args.ood.split(","))})
    seconds = time.perf_counter() - start
    if args.learned_only:
        print_learned(evaluations, seconds)
        return
    with open(saved, "w", encoding="utf-8") as f:
        json.dump({"args": {k: v for k, v in vars(args).items() if k != "report_only"}, "seconds": seconds,
                   "evaluations": {name: {**e, "kind": e["kind"].tolist()} for name, e in evaluations.items()}}, f)
    write_results(args, evaluations, seconds)


if __name__ == "__main__":
    main()
