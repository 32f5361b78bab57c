"""Table 4 analogue of the kernel-CA paper: word similarity of CA vectors (flat, skip, tail-cut; counts raised to
the power 1, 0.5, 0.25; word or word + context vectors; SCA), of the PPMI-SVD reference and of word2vec SGNS, CBOW
and fastText skip-gram trained on the same corpus, with training times.

Uses data/text8 when it exists (the real text8), else the offline corpus of scripts/experiments/ca/data_text8.py.
Every CA and PPMI row runs `kcooc ca embed`; every row is scored by `kcooc ca eval`. A finished run (vectors +
summary, or word vectors + seconds, in --workdir) is reused, so a rerun after an interruption only trains what is
missing; ``--finished-only`` writes the page from the finished runs alone (the others marked 'not run') for a partial
table. The word2vec and fastText rows run first, so a cut-short run still compares against baselines trained in it.

    python -m scripts.experiments.ca.eval_text8 --corpus data/text8-offline --out docs/results-text8.md
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time

from scripts.reports import write_report

BENCHMARKS = ["ws353-sim", "ws353-rel", "men", "mturk", "rw", "simlex"]
POWERS = ("1", "0.5", "0.25")
LABELS = {"sgns": "word2vec SGNS (gensim)", "cbow": "word2vec CBOW (gensim)", "fasttext": "fastText skip-gram"}


def kcooc(*args: str) -> str:
    return subprocess.run([sys.executable, "-m", "kcooc", *args], check=True, capture_output=True, text=True).stdout


def evaluate(vectors: str, data_dir: str) -> dict[str, float]:
    rows = [line.split("\t") for line in kcooc("ca", "eval", "-i", vectors, "-b", ",".join(BENCHMARKS),
                                                 "--data-dir", data_dir).splitlines()[1:]]
    return {name: float(rho) for name, rho, _, _ in rows}


def train_baseline(kind: str, corpus: str, path: str, dims: int, window: int, threads: int) -> float:
    start = time.perf_counter()
    if kind == "fasttext":
        import fasttext

        model = fasttext.train_unsupervised(corpus, model="skipgram", dim=dims, ws=window, minCount=5, epoch=5,
                                            thread=threads, verbose=0)
        with open(path, "w", encoding="utf-8") as f:
            words = model.get_words()
            f.write(f"{len(words)} {dims}\n")
            f.writelines(f"{w} {' '.join(f'{v:.6g}' for v in model.get_word_vector(w))}\n" for w in words)
    else:
        from gensim.models import Word2Vec
        from gensim.models.word2vec import LineSentence

        model = Word2Vec(LineSentence(corpus, max_sentence_length=10000), vector_size=dims, window=window, min_count=5,
                         sg=1 if kind == "sgns" else 0, negative=5, epochs=5, workers=threads, seed=0)
        model.wv.save_word2vec_format(path)
    return time.perf_counter() - start


def ca_runs(data_dir: str, best: str) -> list[tuple[str, str, list[str]]]:
    """(name, label, kcooc ca embed options) of every CA and PPMI row."""
    runs = [(f"ca-{table}-p{power}", f"CA N^{table}{' (tail-cut)' if table == 'cut' else ''}, power {power}",
             ["--table", table, "--power", power]) for table in ("flat", "skip", "cut") for power in POWERS]
    runs += [(f"ca-{table}-p{best}-rc", f"CA N^{table}{' (tail-cut)' if table == 'cut' else ''}, power {best}, "
              "row+column", ["--table", table, "--power", best, "--vectors", "row+column"]) for table in ("skip",)]
    runs += [(f"ppmi-skip{suffix}", f"PPMI-SVD (not CA; N^skip, alpha 0.75, U S^0.5){label}",
              ["--method", "ppmi", "--table", "skip", "--weight", "0.5", *options])
             for suffix, label, options in (("", "", []), ("-rc", ", row+column", ["--vectors", "row+column"]))]
    return runs


def sca_run(data_dir: str, best: str) -> tuple[str, str, list[str]]:
    return (f"sca-men-p{best}", f"SCA+MEN (N^flat, power {best})",
            ["--table", "flat", "--power", best, "--supervision", os.path.join(data_dir, "men.txt")])


def embed(name: str, options: list[str], corpus: str, args) -> tuple[dict[str, float], float, str] | None:
    """(scores, seconds, largest relative residual) of one `kcooc ca embed` run, reused when finished (None:
    not finished and --finished-only)."""
    vectors, summary = os.path.join(args.workdir, f"{name}.npz"), os.path.join(args.workdir, f"{name}.json")
    if not (os.path.exists(vectors) and os.path.exists(summary)):
        if args.finished_only:
            return None
        kcooc("ca", "embed", "-c", "configs/text8.yaml", "-i", corpus, *options, "-o", vectors,
              "--summary", summary, "-q")
    run = json.load(open(summary))
    return (evaluate(vectors, args.data_dir), run["seconds"]["total"],
            f"{run['convergence']['max_relative_residual']:.2f}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--corpus", default=None)
    parser.add_argument("--data-dir", default="data/benchmarks")
    parser.add_argument("--workdir", default="runs/text8")
    parser.add_argument("--out", default="docs/results-text8.md")
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--best-power", default="0.25", help="power of the row+column and SCA rows")
    parser.add_argument("--sca", action="store_true",
                        help="add the SCA+MEN row (the slowest run; tuned on MEN's own pairs, so not a fair row)")
    parser.add_argument("--finished-only", action="store_true",
                        help="start no run: rows without finished vectors in --workdir are marked 'not run'")
    args = parser.parse_args()
    corpus = args.corpus or ("data/text8" if os.path.exists("data/text8") else "data/text8-offline")
    os.makedirs(args.workdir, exist_ok=True)
    baselines = {}
    for kind, label in LABELS.items():  # first: the rows every CA row is compared with
        path, timing = os.path.join(args.workdir, f"{kind}.txt"), os.path.join(args.workdir, f"{kind}.seconds")
        if not (os.path.exists(path) and os.path.exists(timing)):
            if args.finished_only:
                baselines[label] = None
                continue
            seconds = train_baseline(kind, corpus, path, 300, 5, args.threads)
            with open(timing, "w") as f:
                f.write(f"{seconds}\n")
        baselines[label] = (evaluate(path, args.data_dir), float(open(timing).read()), "")
        print(kind, baselines[label], file=sys.stderr, flush=True)
    results = {}
    for name, label, options in ca_runs(args.data_dir, args.best_power):
        results[label] = embed(name, options, corpus, args)
        print(label, results[label], file=sys.stderr, flush=True)
    results.update(baselines)
    if args.sca:  # last: the slowest CA row, tuned on MEN's own pairs
        name, label, options = sca_run(args.data_dir, args.best_power)
        results[label] = embed(name, options, corpus, args)
    lines = ["# Word similarity on a text8-like corpus (kernel-CA paper, Table 4 analogue)", "",
             f"Corpus: `{corpus}`; every model sees the same tokens. Spearman's rho of cosine similarity with human",
             "scores (pairs with an out-of-vocabulary word are left out), and training time on 2 cores. CA and PPMI",
             "rows: `configs/text8.yaml` (window 10, 300 dimensions, U S^0, 4 power iterations) with the options",
             "named in the row (PPMI: U S^0.5, as Levy et al. 2015 recommend); `residual` is the largest relative",
             "residual norm(A v - s u) / s of the 300 singular triples. word2vec and fastText: 300 dimensions,",
             "window 5, 5 epochs, min count 5.", "",
             f"Made by: `python -m scripts.experiments.ca.eval_text8 --corpus {corpus} --out {args.out}"
             + (" --sca" if args.sca else "") + (" --finished-only" if args.finished_only else "") + "`"
             + (": the finished runs of an interrupted `make text8`; rows marked 'not run' did not finish."
                if args.finished_only else " (= `make text8`)."), "",
             "| method | " + " | ".join(BENCHMARKS) + " | residual | seconds |",
             "|---|" + "---|" * (len(BENCHMARKS) + 2)]
    for label, result in results.items():
        if result is None:
            lines.append(f"| {label} | " + " | ".join("not run" for _ in BENCHMARKS) + " | | |")
            continue
        scores, seconds, residual = result
        lines.append(f"| {label} | " + " | ".join(f"{scores[b]:.3f}" for b in BENCHMARKS)
                     + f" | {residual} | {seconds:.0f} |")
    write_report(args.out, lines, "text8_notes.md")
    print("\n".join(lines))


if __name__ == "__main__":
    main()
