"""Offline stand-ins for the kernelized-sorting paper's data.

* docs-parallel (~EP-P): the 127 HTML sections of Debian's debian-handbook in English and
  Spanish, as plain text, one document per file.
* docs-comparable (~EP-C): the first half (by words) of each English document and the second
  half of the Spanish one.
* names (~TL): 300 English -> Arabic name transliterations drawn from PyPI arabnamer (seed 0);
  names-noisy adds 50 unaligned names on each side (Table 3 analogue).
* tl-ar, tl-ru, tl-ja (closer to the paper's TL: multi-word names first): English and native-script
  names of territories, time-zone exemplar cities and languages from the CLDR data in PyPI babel,
  kept only when they are transliterations (see ``is_transliteration``); 300 pairs, and tl-*-noisy
  with 50 further English-only and 50 native-only names. The native side stays in its script;
  ``features.romanise`` romanises it at run time (configs/ks-translit-paper.yaml), ``features.skeleton``
  reduces both sides to consonant skeletons (configs/ks-translit.yaml). CLDR holds few multi-word
  transliterations: every multi-word pair that passes the filter is used (78 of the 400 Arabic names).
Each set has source/, target/ (or .txt files) and gold.tsv.

    python -m scripts.experiments.ks.data_ks --out data/ks --cache data/cache
"""

from __future__ import annotations

import argparse
import glob
import html
import json
import os
import re
import subprocess

import numpy as np


def handbook(cache: str) -> str:
    root = os.path.join(cache, "handbook")
    if not glob.glob(os.path.join(root, "x", "**", "en-US", "*.html"), recursive=True):
        os.makedirs(root, exist_ok=True)
        subprocess.run(["apt-get", "-q", "download", "debian-handbook"], cwd=root, check=True,
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        deb = glob.glob(os.path.join(root, "debian-handbook_*.deb"))[0]
        subprocess.run(["dpkg-deb", "-x", deb, os.path.join(root, "x")], check=True)
    return glob.glob(os.path.join(root, "x", "**", "html"), recursive=True)[0]


def html_text(path: str) -> str:
    with open(path, encoding="utf-8") as f:
        page = f.read()
    page = re.sub(r"(?s)<(script|style|head)\b.*?</\1>", " ", page)
    return re.sub(r"\s+", " ", html.unescape(re.sub(r"<[^>]+>", " ", page))).strip()


def write_set(out: str, name: str, pairs: list[tuple[str, str, str]], seed: int = 0) -> None:
    """Targets get shuffled ids (t000.txt ...), so no method can profit from both sides' order."""
    for side in ("source", "target"):
        os.makedirs(os.path.join(out, name, side), exist_ok=True)
    position = np.random.default_rng(seed).permutation(len(pairs))
    gold = []
    for (doc_id, en, es), slot in zip(pairs, position):
        target_id = f"t{slot:03d}.txt"
        with open(os.path.join(out, name, "source", doc_id), "w", encoding="utf-8") as f:
            f.write(en)
        with open(os.path.join(out, name, "target", target_id), "w", encoding="utf-8") as f:
            f.write(es)
        gold.append(f"{doc_id}\t{target_id}\n")
    with open(os.path.join(out, name, "gold.tsv"), "w", encoding="utf-8") as f:
        f.writelines(gold)


def write_lines(out: str, name: str, source: list[str], target: list[str], gold: list[tuple[int, int]]) -> None:
    os.makedirs(os.path.join(out, name), exist_ok=True)
    for side, lines in (("source.txt", source), ("target.txt", target)):
        with open(os.path.join(out, name, side), "w", encoding="utf-8") as f:
            f.write("\n".join(lines) + "\n")
    with open(os.path.join(out, name, "gold.tsv"), "w", encoding="utf-8") as f:
        f.writelines(f"{s + 1}\t{t + 1}\n" for s, t in gold)


SCRIPTS = ("ar", "ru", "ja")  # locales of the tl-* sets
SIMILARITY = 0.7  # is_transliteration threshold (difflib ratio of consonant skeletons)


def filter_skeleton(name: str) -> str:
    """kcooc.ks.features.skeleton without its article rule and word boundaries (as the filter was built)."""
    from kcooc.ks.features import skeleton

    return skeleton(name, drop_article=False, keep_spaces=False)


def is_transliteration(english: str, native: str) -> bool:
    """A transliteration rather than a translation: the consonant skeletons of the English name and
    of the romanised native name agree (difflib ratio >= SIMILARITY). Keeps e.g. Mozambique /
    موزمبيق (mwzmbyq), drops Bahamas / جزر البهاما ("islands of the Bahamas") and German / الألمانية."""
    import difflib

    a, b = filter_skeleton(english), filter_skeleton(native)
    return bool(a and b) and difflib.SequenceMatcher(None, a, b).ratio() >= SIMILARITY


def cldr_names(code: str) -> list[tuple[str, str]]:
    """(English, native) names of territories (no numeric regions), time-zone exemplar cities (the
    English city from the English locale, else from the zone id) and languages, one pair per
    English and per native name, letters, spaces, hyphens, apostrophes and dots only."""
    from babel import Locale

    en, native = Locale("en"), Locale(code)
    pairs = [(en.territories[k], v) for k, v in native.territories.items() if k in en.territories and not k.isdigit()]
    for zone, names in native.time_zones.items():
        if "city" in names:
            city = en.time_zones.get(zone, {}).get("city") or zone.split("/")[-1].replace("_", " ")
            pairs.append((city, names["city"]))
    pairs += [(en.languages[k], v) for k, v in native.languages.items() if k in en.languages]
    seen_en, seen_native, kept = set(), set(), []
    for english, name in sorted(pairs):
        if (re.fullmatch(r"[^\W\d_]+([ '.-]+[^\W\d_]+)*\.?", english)
                and re.fullmatch(r"[^\W\d_]+([ '.\u00b7\u30fb-]+[^\W\d_]+)*", name)
                and english not in seen_en and name not in seen_native and is_transliteration(english, name)):
            seen_en.add(english)
            seen_native.add(name)
            kept.append((english, name))
    return kept


def transliteration_sets(out: str, code: str, seed: int = 0) -> tuple[int, int]:
    """tl-<code> (300 pairs) and tl-<code>-noisy (+50 unaligned names per side); multi-word English
    names first (the paper's TL names are multi-word), then single words, each group in seeded random
    order. Returns (pairs available, multi-word names among the 400 used)."""
    pairs = cldr_names(code)
    rng = np.random.default_rng(seed)
    multi = [pairs[i] for i in rng.permutation(len(pairs)) if " " in pairs[i][0]]
    single = [pairs[i] for i in rng.permutation(len(pairs)) if " " not in pairs[i][0]]
    chosen = (multi + single)[:400]
    if len(chosen) < 400:
        raise SystemExit(f"only {len(chosen)} transliterated names for {code}; need 400")
    chosen = [chosen[i] for i in rng.permutation(400)]
    aligned, extra = chosen[:300], chosen[300:]
    order = rng.permutation(300)  # target lines in another order than their sources
    write_lines(out, f"tl-{code}", [e for e, _ in aligned], [aligned[i][1] for i in order],
                [(i, int(p)) for i, p in enumerate(np.argsort(order))])
    source = [e for e, _ in aligned] + [e for e, _ in extra[:50]]
    target = [a for _, a in aligned] + [a for _, a in extra[50:]]
    order = rng.permutation(len(target))
    position = np.argsort(order)
    write_lines(out, f"tl-{code}-noisy", source, [target[i] for i in order],
                [(i, int(position[i])) for i in range(300)])
    return len(pairs), sum(" " in e for e, _ in chosen)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", default="data/ks")
    parser.add_argument("--cache", default="data/cache")
    args = parser.parse_args()
    root = handbook(args.cache)
    docs = []
    for path in sorted(glob.glob(os.path.join(root, "en-US", "*.html"))):
        name = os.path.basename(path)
        spanish = os.path.join(root, "es-ES", name)
        if os.path.exists(spanish):
            en, es = html_text(path), html_text(spanish)
            if len(en.split()) > 50 and len(es.split()) > 50:
                docs.append((name.removesuffix(".html") + ".txt", en, es))
    write_set(args.out, "docs-parallel", docs)
    halves = []
    for doc_id, en, es in docs:
        en_words, es_words = en.split(), es.split()
        halves.append((doc_id, " ".join(en_words[: len(en_words) // 2]), " ".join(es_words[len(es_words) // 2 :])))
    write_set(args.out, "docs-comparable", halves)

    import arabnamer

    with open(os.path.join(os.path.dirname(arabnamer.__file__), "data", "dict_FINAL.json"), encoding="utf-8") as f:
        names = sorted(json.load(f).items())
    rng = np.random.default_rng(0)
    picked = rng.choice(len(names), size=400, replace=False)
    aligned, extra = [names[i] for i in picked[:300]], [names[i] for i in picked[300:]]
    order = rng.permutation(300)  # target lines in another order than their sources
    write_lines(args.out, "names", [e for e, _ in aligned], [aligned[i][1] for i in order],
                [(i, int(p)) for i, p in enumerate(np.argsort(order))])
    source = [e for e, _ in aligned] + [e for e, _ in extra[:50]]
    target = [a for _, a in aligned] + [a for _, a in extra[50:100]]
    order = rng.permutation(len(target))  # unaligned names mixed in at random places on the target side
    position = np.argsort(order)
    write_lines(args.out, "names-noisy", source, [target[i] for i in order],
                [(i, int(position[i])) for i in range(300)])
    print(f"{len(docs)} handbook documents; 300 names (+50 unaligned per side in names-noisy) -> {args.out}")
    for code in SCRIPTS:
        available, multi = transliteration_sets(args.out, code)
        print(f"tl-{code}: {available} transliterated CLDR names, 400 used ({multi} multi-word)")


if __name__ == "__main__":
    main()
