"""The language gate on real program messages: clean pairs it costs and wrong-language targets it catches.

For each declared target language, a seeded sample of a translated-catalogue corpus
(``programs-en-<lang>.tsv``: msgid <TAB> msgstr <TAB> source, as built from Debian's gettext
catalogues) keeps its real pairs as the clean ones and gets a share of noisy targets:

* ``wrong:<xx>``: the translation of the *same* English message into a related language ``xx``
  (Portuguese, Galician, Catalan or Italian for Spanish; Russian for Ukrainian; Slovak for Czech;
  Chinese for Japanese; ...), from the corpus of that language: only language identification sees it;
* ``english``: the English message of another pair left as the target (untranslated).

``kcooc filter-parallel`` (the default learned score, every hard rule off so that every pair is
ranked) scores the noisy file and saves its model; the gate's factor of every pair is recomputed
from the saved gate and the features of ``--annotated``. Per language pair: the clean pairs whose
factor is below 1/2, the clean pairs in the lowest ``--cut`` share of the scores that would be
above it without the gate ("lost"), and per noise kind the ROC-AUC of clean above it and the share
whose factor is below 1/2.

    python -m scripts.experiments.filtering.eval_gate --data data/parallel --out docs/results-gate.md
"""

from __future__ import annotations

import argparse
import os
import sys

import numpy as np

from kcooc import artifact
from kcooc.filtering.gate import LanguageGate
from kcooc.metrics import roc_auc
from scripts.experiments.filtering.eval_filtering import RULES_OFF, run_kcooc
from scripts.reports import write_report

# declared target language -> related languages whose translations of the same messages are the wrong-language targets
WRONG = {"es": ["pt", "gl", "ca", "it"], "de": ["nl", "fr"], "fr": ["es", "it", "de"], "uk": ["ru", "bg", "be"],
         "ru": ["uk", "bg"], "cs": ["sk", "pl", "sl"], "pl": ["cs", "sk"], "ja": ["zh", "ko"], "zh": ["ja"],
         "it": ["es", "fr"], "nl": ["de", "da"]}


def corpus_path(data: list[str], lang: str) -> str | None:
    found = [os.path.join(d, f"programs-en-{lang}.tsv") for d in data
             if os.path.exists(os.path.join(d, f"programs-en-{lang}.tsv"))]
    return found[0] if found else None


def read_pairs(path: str) -> dict[str, str]:
    """English message -> its translation (the first one), untranslated entries left out."""
    pairs: dict[str, str] = {}
    with open(path, encoding="utf-8") as f:
        for line in f:
            en, xx = line.rstrip("\n").split("\t")[:2]
            if en.strip() != xx.strip():
                pairs.setdefault(en, xx)
    return pairs


def noisy_corpus(data: list[str], lang: str, size: int, rate: float,
                 seed: int) -> tuple[list[str], list[str], list[str]]:
    """(src, tgt, kind): ``size`` real pairs, a ``rate`` share of them with a noisy target, kinds in equal shares."""
    clean = read_pairs(corpus_path(data, lang))
    rng = np.random.default_rng(seed)
    english = sorted(clean)
    src = [english[i] for i in np.sort(rng.choice(len(english), min(size, len(english)), replace=False))]
    tgt, kind = [clean[s] for s in src], ["clean"] * len(src)
    others = {w: read_pairs(corpus_path(data, w)) for w in WRONG[lang] if corpus_path(data, w)}
    kinds = [f"wrong:{w}" for w in others] + ["english"]
    order = rng.permutation(len(src))
    quota = int(round(rate * len(src))) // len(kinds)
    for name in kinds:
        taken = 0
        for i in order:
            if taken == quota:
                break
            if kind[i] != "clean":
                continue
            if name == "english":
                target = src[(i + 1 + int(rng.integers(len(src) - 1))) % len(src)]
            else:
                target = others[name[6:]].get(src[i])
            if target and target not in (tgt[i], src[i]):
                tgt[i], kind[i] = target, name
                taken += 1
    return src, tgt, kind


def gate_factors(model: str, annotated: str) -> tuple[np.ndarray, float]:
    """(pairs, gated sides) factors of the saved model's gate, from the features of ``--annotated``, and the gate's
    weight (the power of the factors in the score)."""
    header, arrays = artifact.load(model, "filter")
    names = header["features"]
    gate = LanguageGate.from_state(names, header["classifier"], {k[len("classifier_"):]: v for k, v in arrays.items()
                                                                 if k.startswith("classifier_")})
    rows = []
    with open(annotated, encoding="utf-8") as f:
        for line in f:
            values = dict(field.split("=", 1) for field in line.rstrip("\n").split("\t")[6].split())
            rows.append([float(values[name]) for name in names])
    return gate.factors(np.array(rows)), gate.weight


def evaluate(data: list[str], lang: str, args) -> dict:
    src, tgt, kind = noisy_corpus(data, lang, args.size, args.rate, args.seed)
    workdir = os.path.join(args.workdir, f"en-{lang}")
    os.makedirs(workdir, exist_ok=True)
    corpus, model = os.path.join(workdir, "noisy.tsv"), os.path.join(workdir, "model.npz")
    with open(corpus, "w", encoding="utf-8") as f:
        f.writelines(f"{s}\t{t}\n" for s, t in zip(src, tgt))
    with open(os.path.join(workdir, "labels.txt"), "w", encoding="utf-8") as f:
        f.writelines(f"{k}\n" for k in kind)
    scores, _, _ = run_kcooc(corpus, workdir, "learned", {"rules": RULES_OFF},
                             ["--src-lang", "en", "--tgt-lang", lang, "--save-model", model])
    factors, weight = gate_factors(model, os.path.join(workdir, "learned.annotated"))
    factor = factors.prod(axis=1)
    kind = np.array(kind)
    clean = kind == "clean"
    cut = int(round(args.cut * len(scores)))
    low = np.zeros(len(scores), bool)
    low[np.argsort(scores, kind="stable")[:cut]] = True
    low_without = np.zeros(len(scores), bool)
    low_without[np.argsort(scores / factor ** weight, kind="stable")[:cut]] = True
    result = {"pairs": len(src), "clean": int(clean.sum()),
              "clean_factor_below_half": int((clean & (factor < 0.5)).sum()),
              "clean_lost": int((clean & low & ~low_without).sum()), "auc": roc(scores[clean], scores[~clean]),
              "kinds": {}}
    for name in sorted(set(kind.tolist()) - {"clean"}):
        rows = kind == name
        result["kinds"][name] = {"pairs": int(rows.sum()), "auc": roc(scores[clean], scores[rows]),
                                 "factor_below_half": float(np.mean(factor[rows] < 0.5))}
    print(lang, result, file=sys.stderr, flush=True)
    return result


def roc(clean: np.ndarray, noise: np.ndarray) -> float:
    return roc_auc(np.r_[np.ones(clean.size, bool), np.zeros(noise.size, bool)], np.r_[clean, noise])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--data", default="data/parallel",
                        help="directories (comma-separated) with programs-en-<lang>.tsv")
    parser.add_argument("--pairs", default="es,de,fr,uk,ru,cs,pl,ja,zh,it,nl", help="declared target languages")
    parser.add_argument("--size", type=int, default=6000, help="pairs per language pair")
    parser.add_argument("--rate", type=float, default=0.1, help="share of noisy targets")
    parser.add_argument("--cut", type=float, default=0.2,
                        help="a clean pair is lost in this lowest share of the scores")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--workdir", default="runs/gate-eval")
    parser.add_argument("--out", default="docs/results-gate.md")
    args = parser.parse_args()
    data = args.data.split(",")
    results = {}
    for lang in args.pairs.split(","):
        if corpus_path(data, lang) is None:
            print(f"en-{lang}: no programs-en-{lang}.tsv in {args.data}; skipped", file=sys.stderr)
            continue
        results[lang] = evaluate(data, lang, args)
    write_results(args, results)


def write_results(args, results: dict) -> None:
    lines = ["# The language gate on program messages", "",
             f"Command: `python -m scripts.experiments.filtering.eval_gate --data {args.data} --pairs {args.pairs} "
             f"--size {args.size} --rate {args.rate} --cut {args.cut} --seed {args.seed}`. Per language pair "
             f"{args.size:,} real pairs of translated program messages, {args.rate:.0%} of them with a noisy target "
             "(equal shares of each kind); `kcooc filter-parallel --src-lang en --tgt-lang XX` with the default "
             "learned score and every hard rule off. Clean pairs: those with factor < 1/2 (the gate at least halves "
             f"their score), and those 'lost' (in the lowest {args.cut:.0%} of the scores, and not without the gate's "
             "factor). Per noise kind: ROC-AUC of the clean pairs above it (the score), and the share whose factor is "
             "below 1/2. `wrong:xx`: the same message's translation into xx; `english`: another pair's English.", "",
             "| pair | clean pairs | factor < 1/2 | lost | noise kinds: AUC (factor < 1/2) |", "|---|---|---|---|---|"]
    for lang, r in results.items():
        kinds = ", ".join(f"{name} {k['auc']:.3f} ({k['factor_below_half']:.0%})"
                          for name, k in sorted(r["kinds"].items()))
        lines.append(f"| en-{lang} | {r['clean']:,} | {r['clean_factor_below_half']} "
                     f"({r['clean_factor_below_half'] / r['clean']:.1%}) "
                     f"| {r['clean_lost']} ({r['clean_lost'] / r['clean']:.1%}) | {kinds} |")
    write_report(args.out, lines, "gate_notes.md")
    print(f"-> {args.out}")


if __name__ == "__main__":
    main()
