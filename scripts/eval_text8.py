"""Table 4 analogue of the kernel-CA paper: word similarity of CA vectors (flat, skip, tail-cut, SCA) and of
word2vec SGNS, CBOW and fastText skip-gram trained on the same corpus, with training times.

Uses data/text8 when it exists (the real text8), else the offline corpus of scripts/data_text8.py.
Every CA row runs `kcooc ca embed`; every row is scored by `kcooc ca eval`.

    python scripts/eval_text8.py --corpus data/text8-offline --out docs/results-text8.md
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time

from reports import write_report

BENCHMARKS = ["ws353-sim", "ws353-rel", "men", "mturk", "rw", "simlex"]


def kcooc(*args: str) -> str:
    return subprocess.run([sys.executable, "-m", "kcooc", *args], check=True, capture_output=True, text=True).stdout


def evaluate(vectors: str, data_dir: str) -> dict[str, float]:
    rows = [line.split("\t") for line in kcooc("ca", "eval", "-v", vectors, "-b", ",".join(BENCHMARKS),
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


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--corpus", default=None)
    parser.add_argument("--data-dir", default="data/benchmarks")
    parser.add_argument("--workdir", default="runs/text8")
    parser.add_argument("--out", default="docs/results-text8.md")
    parser.add_argument("--threads", type=int, default=2)
    args = parser.parse_args()
    corpus = args.corpus or ("data/text8" if os.path.exists("data/text8") else "data/text8-offline")
    os.makedirs(args.workdir, exist_ok=True)
    results = {}
    runs = [(f"ca-{table}", f"CA N^{table}" + (" (tail-cut kernel)" if table == "cut" else ""), ["--table", table])
            for table in ("flat", "skip", "cut")]
    runs += [(f"sca-{name}", f"SCA+{label} (N^flat)", ["--table", "flat", "--supervision", os.path.join(args.data_dir, file)])
             for name, label, file in (("men", "MEN", "men.txt"), ("mturk", "MTurk", "mturk.txt"))]
    for name, label, options in runs:  # a finished run (vectors + summary) is reused
        vectors, summary = os.path.join(args.workdir, f"{name}.npz"), os.path.join(args.workdir, f"{name}.json")
        if not (os.path.exists(vectors) and os.path.exists(summary)):
            kcooc("ca", "embed", "-c", "configs/text8.yaml", "--corpus", corpus, *options, "-o", vectors,
                  "--summary", summary)
        results[label] = (evaluate(vectors, args.data_dir), json.load(open(summary))["seconds"]["total"])
        print(label, results[label], file=sys.stderr)
    for kind, label in (("sgns", "word2vec SGNS (gensim)"), ("cbow", "word2vec CBOW (gensim)"),
                        ("fasttext", "fastText skip-gram")):
        path, timing = os.path.join(args.workdir, f"{kind}.txt"), os.path.join(args.workdir, f"{kind}.seconds")
        if not (os.path.exists(path) and os.path.exists(timing)):
            seconds = train_baseline(kind, corpus, path, 300, 5, args.threads)
            with open(timing, "w") as f:
                f.write(f"{seconds}\n")
        results[label] = (evaluate(path, args.data_dir), float(open(timing).read()))
        print(kind, results[label], file=sys.stderr)
    lines = ["# Word similarity on a text8-like corpus (kernel-CA paper, Table 4 analogue)", "",
             f"Corpus: `{corpus}`; every model sees the same tokens. Spearman's rho of cosine similarity with human",
             "scores (pairs with an out-of-vocabulary word are left out), and training time on 2 cores.", "",
             f"Made by: `make text8` (= `python scripts/eval_text8.py --corpus {corpus} --out {args.out}`)", "",
             "| method | " + " | ".join(BENCHMARKS) + " | seconds |", "|---|" + "---|" * (len(BENCHMARKS) + 1)]
    for label, (scores, seconds) in results.items():
        lines.append(f"| {label} | " + " | ".join(f"{scores[b]:.3f}" for b in BENCHMARKS) + f" | {seconds:.0f} |")
    write_report(args.out, lines, "text8_notes.md")
    print("\n".join(lines))


if __name__ == "__main__":
    main()
