"""Train the English fastText model that `make data` caches (no pretrained vectors ship offline).

Text: the GCIDE dictionary from the Debian package dict-gcide (fetched with
`apt-get download` into the cache, never installed) plus the *training* side of the dialogue
data (never the test conversations). Normalised like text8: lower case, letters and digits only.

Usage: python -m scripts.experiments.phsic.data_fasttext --dialogue data/dialogue/train.tsv --cache data/cache \
           --output data/fasttext/en-300.bin [--dim 300] [--epoch 5] [--threads 2]
"""

from __future__ import annotations

import argparse
import glob
import gzip
import os
import re
import subprocess
import tempfile


def gcide_text(cache: str) -> str:
    """The GCIDE dictionary text from the dict-gcide .deb (downloaded once into ``cache``)."""
    target = os.path.join(cache, "gcide.dict.dz")
    if not os.path.exists(target):
        os.makedirs(cache, exist_ok=True)
        with tempfile.TemporaryDirectory() as tmp:
            subprocess.run(["apt-get", "download", "dict-gcide"], cwd=tmp, check=True, capture_output=True)
            deb = glob.glob(os.path.join(tmp, "dict-gcide_*.deb"))[0]
            subprocess.run(["dpkg", "-x", deb, os.path.join(tmp, "x")], check=True)
            os.replace(os.path.join(tmp, "x/usr/share/dictd/gcide.dict.dz"), target)
    with gzip.open(target, "rt", encoding="utf-8", errors="replace") as f:
        return f.read()


def text8(text: str) -> str:
    return re.sub(r"[^a-z0-9]+", " ", text.lower())


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--dialogue", required=True)
    parser.add_argument("--cache", required=True)
    parser.add_argument("--output", required=True)
    parser.add_argument("--dim", type=int, default=300)
    parser.add_argument("--epoch", type=int, default=5)
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--bucket", type=int, default=200_000,
                        help="subword hash buckets; fastText's 2M default makes a 2.4 GB model that takes "
                             "seconds to load")
    args = parser.parse_args()
    import fasttext

    corpus = os.path.join(args.cache, "english-text8.txt")
    os.makedirs(args.cache, exist_ok=True)
    with open(args.dialogue, encoding="utf-8") as f:
        dialogue = f.read()
    with open(corpus, "w", encoding="utf-8") as f:
        f.write(text8(gcide_text(args.cache)) + " " + text8(dialogue))
    model = fasttext.train_unsupervised(corpus, model="skipgram", dim=args.dim, epoch=args.epoch, minCount=3,
                                        bucket=args.bucket,
                                        thread=args.threads, verbose=0)
    os.makedirs(os.path.dirname(os.path.abspath(args.output)), exist_ok=True)
    tmp = args.output + ".tmp"
    model.save_model(tmp)
    os.replace(tmp, args.output)
    print(f"trained {args.output}: {len(model.words)} words, dim {args.dim}")


if __name__ == "__main__":
    main()
