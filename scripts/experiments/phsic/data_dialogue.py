"""Build the dialogue response-selection data (PHSIC paper §6.2) from chitchat-dataset (MIT).

Each conversation is a list of turns (consecutive messages of one speaker, joined); every two
adjacent turns give a context -> response pair. Conversations are split into train and test
(seeded), so no test conversation leaks into training. Writes to OUTDIR:

  train.tsv              context<TAB>response, all training pairs in a seeded random order
  train-1000.tsv ...     the first 1e3 / 1e4 / 1e5 pairs of train.tsv (nested subsets)
  test.tsv               the true test pairs (one per distinct context)
  test-candidates.tsv    ten-choice questions: context<TAB>candidate<TAB>label, ten lines per
                         context, the true response plus nine responses of other test pairs,
                         shuffled (the paper's "shuffled combinations of context and response")

Usage: python -m scripts.experiments.phsic.data_dialogue OUTDIR [--test-conversations 100] [--seed 0]
"""

from __future__ import annotations

import argparse
import json
import os
import pathlib
import re

import numpy as np


def dataset_path() -> pathlib.Path:
    import chitchat_dataset

    return pathlib.Path(chitchat_dataset.__file__).parent / "dataset.json"


def clean(text: str) -> str:
    return re.sub(r"\s+", " ", text).strip()


def conversation_pairs(conversation: dict) -> list[tuple[str, str]]:
    turns = [clean(" ".join(m["text"] for m in turn)) for turn in conversation["messages"]]
    turns = [t for t in turns if t]
    return list(zip(turns[:-1], turns[1:]))


def write_tsv(path: str, rows) -> None:
    with open(path, "w", encoding="utf-8") as f:
        f.writelines("\t".join(row) + "\n" for row in rows)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("outdir")
    parser.add_argument("--test-conversations", type=int, default=100)
    parser.add_argument("--candidates", type=int, default=10)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    rng = np.random.default_rng(args.seed)
    with open(dataset_path(), encoding="utf-8") as f:
        conversations = [v for _, v in sorted(json.load(f).items())]
    order = rng.permutation(len(conversations))
    test_ids = set(order[: args.test_conversations].tolist())
    train, test = [], []
    for i, conversation in enumerate(conversations):
        (test if i in test_ids else train).extend(conversation_pairs(conversation))
    train = [train[i] for i in rng.permutation(len(train))]
    seen, unique_test = set(), []
    for context, response in test:
        if context not in seen:
            seen.add(context)
            unique_test.append((context, response))
    os.makedirs(args.outdir, exist_ok=True)
    write_tsv(os.path.join(args.outdir, "train.tsv"), train)
    for size in (1000, 10000, 100000):
        write_tsv(os.path.join(args.outdir, f"train-{size}.tsv"), train[:size])
    write_tsv(os.path.join(args.outdir, "test.tsv"), unique_test)
    responses = [r for _, r in unique_test]
    rows = []
    for q, (context, response) in enumerate(unique_test):
        others = rng.choice(np.delete(np.arange(len(responses)), q), size=args.candidates - 1, replace=False)
        candidates = [(response, "1")] + [(responses[j], "0") for j in others]
        rows.extend((context, candidates[j][0], candidates[j][1]) for j in rng.permutation(args.candidates))
    write_tsv(os.path.join(args.outdir, "test-candidates.tsv"), rows)
    print(f"{len(train)} train pairs, {len(unique_test)} test questions x {args.candidates} candidates "
          f"-> {args.outdir}")


if __name__ == "__main__":
    main()
