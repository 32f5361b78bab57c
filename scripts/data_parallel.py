"""Build the en-ja parallel corpus that stands in for ASPEC (DATA.md, "Parallel corpora").

Two real sources with natural noise, both from Debian packages:
* package-description translations: apt's Translation-en and Translation-ja index files, aligned
  on Description-md5; each description is split into its short description and paragraphs,
  paired when both languages have the same number of paragraphs;
* LibreOffice's Japanese UI catalogues (libreoffice-l10n-ja, gettext .mo read with polib):
  msgid -> msgstr, with menu accelerators removed.

Writes ``OUT/en-ja.tsv``: en <TAB> ja <TAB> source, unique pairs, in a fixed order. With
``--fasttext DIR`` also trains a fastText skip-gram model per language on the corpus' own sides
(``DIR/en-100.bin``, ``DIR/ja-100.bin``; Japanese with every kana/Han character a token, matching
the encoder's ``split_cjk``), single-threaded so the models are reproducible.

    python scripts/data_parallel.py --out data/parallel --cache data/cache --fasttext data/fasttext
"""

from __future__ import annotations

import argparse
import glob
import os
import re
import subprocess
import tempfile
import unicodedata

LANGUAGES = "en,ja"


def apt_lists(cache: str) -> str:
    """A private apt lists directory holding the Translation-en/ja indexes (fetched once)."""
    lists = os.path.join(cache, "apt-lists")
    if not glob.glob(os.path.join(lists, "*_main_i18n_Translation-ja*")):
        os.makedirs(os.path.join(lists, "partial"), exist_ok=True)
        subprocess.run(["apt-get", "-q", "-o", f"Dir::State::Lists={os.path.abspath(lists)}",
                        "-o", f"Acquire::Languages={LANGUAGES}", "update"], check=True, stdout=subprocess.DEVNULL)
    return lists


def read_index(path: str) -> dict[str, tuple[str, list[str]]]:
    """Description-md5 -> (short description, paragraphs) from one Translation-* index."""
    text = subprocess.run(["/usr/lib/apt/apt-helper", "cat-file", path], check=True, capture_output=True).stdout
    entries = {}
    for record in text.decode("utf-8", "replace").split("\n\n"):
        md5, lines, body = None, [], False
        for line in record.split("\n"):
            if line.startswith("Description-md5:"):
                md5 = line.split(":", 1)[1].strip()
            elif line.startswith("Description-"):
                lines, body = [line.split(":", 1)[1].strip()], True
            elif body and line.startswith(" "):
                lines.append(line[1:])
            else:
                body = False
        if md5 and lines:
            entries[md5] = (lines[0], paragraphs(lines[1:]))
    return entries


def paragraphs(lines: list[str]) -> list[str]:
    """Join wrapped lines into paragraphs ('.' lines separate them); no space is inserted
    between two non-ASCII (e.g. Japanese) characters, where the wrap broke a word."""
    result, current = [], ""
    for line in lines + ["."]:
        if line.strip() == ".":
            if current.strip():
                result.append(current.strip())
            current = ""
            continue
        line = line.strip()
        if current and line and not (current[-1].isascii() or line[0].isascii()):
            current += line
        else:
            current = f"{current} {line}" if current else line
    return result


def description_pairs(lists: str) -> list[tuple[str, str, str]]:
    en_file = glob.glob(os.path.join(lists, "*bookworm_main_i18n_Translation-en*"))[0]
    ja_file = glob.glob(os.path.join(lists, "*bookworm_main_i18n_Translation-ja*"))[0]
    english, japanese = read_index(en_file), read_index(ja_file)
    pairs = []
    for md5, (ja_short, ja_paragraphs) in japanese.items():
        if md5 not in english:
            continue
        en_short, en_paragraphs = english[md5]
        if len(en_paragraphs) != len(ja_paragraphs):
            continue
        pairs.append((en_short, ja_short, "debian-description"))
        pairs += [(e, j, "debian-description") for e, j in zip(en_paragraphs, ja_paragraphs)]
    return pairs


def libreoffice_pairs(cache: str) -> list[tuple[str, str, str]]:
    import polib

    root = os.path.join(cache, "libreoffice-ja")
    if not glob.glob(os.path.join(root, "**", "*.mo"), recursive=True):
        os.makedirs(root, exist_ok=True)
        subprocess.run(["apt-get", "-q", "download", "libreoffice-l10n-ja"], cwd=root, check=True,
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        deb = glob.glob(os.path.join(root, "libreoffice-l10n-ja_*.deb"))[0]
        subprocess.run(["dpkg-deb", "-x", deb, root], check=True)
    pairs = []
    for path in sorted(glob.glob(os.path.join(root, "**", "*.mo"), recursive=True)):
        for entry in polib.mofile(path):
            if entry.msgstr and entry.msgid and any(c.isalpha() for c in entry.msgid):
                en, ja = entry.msgid, entry.msgstr
                if re.search(r"\(_[^)]\)", ja):  # GTK mnemonic: '非表示(_B)' <-> 'Invisi_ble'
                    en, ja = en.replace("_", "", 1), re.sub(r"\(_[^)]\)", "", ja)
                pairs.append((strip_accelerator(en), strip_accelerator(ja), "libreoffice"))
    return pairs


def strip_accelerator(text: str) -> str:
    """'~Open' -> 'Open', '開く(~O)' -> '開く'; newlines and tabs become spaces."""
    text = re.sub(r"\(~[^)]\)", "", text).replace("~", "")
    return re.sub(r"\s+", " ", text).strip()


def clean(text: str) -> str:
    return re.sub(r"\s+", " ", unicodedata.normalize("NFC", text)).strip()


def train_fasttext(sentences: list[str], split_cjk: bool, output: str) -> None:
    import fasttext

    from kcooc.encoders import tokenize

    with tempfile.NamedTemporaryFile("w", encoding="utf-8", suffix=".txt") as text:
        text.write("\n".join(" ".join(tokenize(s, True, True, split_cjk)) for s in sentences) + "\n")
        text.flush()
        model = fasttext.train_unsupervised(text.name, model="skipgram", dim=100, epoch=10, minCount=2,
                                            bucket=200000, thread=1, verbose=0)
    model.save_model(output)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", default="data/parallel")
    parser.add_argument("--cache", default="data/cache")
    parser.add_argument("--fasttext", default=None, help="also train en-100.bin and ja-100.bin here")
    args = parser.parse_args()
    os.makedirs(args.out, exist_ok=True)
    pairs = description_pairs(apt_lists(args.cache)) + libreoffice_pairs(args.cache)
    seen, rows = set(), []
    for en, ja, source in pairs:
        en, ja = clean(en), clean(ja)
        if en and ja and (en, ja) not in seen:
            seen.add((en, ja))
            rows.append(f"{en}\t{ja}\t{source}\n")
    with open(os.path.join(args.out, "en-ja.tsv"), "w", encoding="utf-8") as f:
        f.writelines(rows)
    counts = {s: sum(r.endswith(f"\t{s}\n") for r in rows) for s in ("debian-description", "libreoffice")}
    print(f"{len(rows)} unique en-ja pairs -> {args.out}/en-ja.tsv {counts}")
    if args.fasttext:
        os.makedirs(args.fasttext, exist_ok=True)
        columns = [row.split("\t") for row in rows]
        train_fasttext([c[0] for c in columns], False, os.path.join(args.fasttext, "en-100.bin"))
        train_fasttext([c[1] for c in columns], True, os.path.join(args.fasttext, "ja-100.bin"))
        print(f"fastText models -> {args.fasttext}/en-100.bin, ja-100.bin")


if __name__ == "__main__":
    main()
